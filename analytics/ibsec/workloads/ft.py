"""NAS FT: 3-D FFT PDE solver, NPB 3.4 MPI structure with the 1-D layout.

Each process holds a slab of the nx x ny x nz complex grid. A 3-D FFT is two
local 1-D FFT passes, a global transpose (MPI_Alltoall of nx ny nz / P^2
complex numbers, 16 bytes each, to every process, on commslice1: a split of
the world with every process), and the third pass. The whole run: 5 bcasts
of the input, set-up (index map, initial conditions, FFT tables), one
untimed forward FFT, the barrier that starts the timer, the set-up again,
one forward FFT, then `niter` x (evolve, inverse FFT, checksum); each
checksum is an MPI_Reduce of one complex number to process 0. FT has no
point-to-point messages at all. The 1-D layout needs P <= nz (the source
switches to a 2-D layout beyond that) and P <= ny for its slabs.
"""

from __future__ import annotations

from collections.abc import Iterator

from .common import Params, Workload, is_power_of_two, programs, scaled
from .machine import COSTS, Costs, machine_for
from .program import Rank

NAME = "FT"
PROCS_RULE = "a power of two"
CLASSES = {"S": (64, 64, 64, 6), "W": (128, 128, 32, 6), "A": (256, 256, 128, 6)}  # nx, ny, nz, niter
COMPLEX = 16
INTEGER = 4
COMM_SLICE1 = 1
INPUT_BCASTS = 5  # np1, np2, layout_type, niter, timers_enabled: one integer each
# Relative cost per local point (iteration units: a point of one 1-D FFT pass of length 2; a pass of
# length n costs log2 n of them); the set-up's index map and initial conditions per local point.
WEIGHTS = {"fft": 1.0, "evolve": 1.0, "checksum": 0.0}
SETUP_WEIGHTS = {"indexmap": 1.0, "initial": 1.0}


def procs_problem(procs: int) -> str | None:
    return None if is_power_of_two(procs) and procs >= 2 else f"{NAME} needs {PROCS_RULE} of at least 2 processes"


def class_problem(procs: int, cls: str) -> str | None:
    _, ny, nz, _ = CLASSES[cls]
    if procs > min(ny, nz):
        return f"{NAME} class {cls} with the 1-D layout allows at most {min(ny, nz)} processes"
    return None


class FT:
    def __init__(self, params: Params, costs: Costs):
        self.params = params
        self.costs = costs
        self.nx, self.ny, self.nz, self.full_iterations = CLASSES[params.cls]
        self.iterations = scaled(self.full_iterations, params.scale)
        self.points = self.nx * self.ny * self.nz // params.procs  # per process
        self.pair_bytes = COMPLEX * self.nx * self.ny * self.nz // params.procs ** 2

    def work(self, r: Rank, routine: str, units: float) -> None:
        if routine in SETUP_WEIGHTS:
            r.compute(self.costs.setup_ns * SETUP_WEIGHTS[routine] * units)
        else:
            r.compute(self.costs.iteration_ns * WEIGHTS[routine] * units)

    def passes(self, *axes: int) -> int:
        """FFT work of 1-D passes along these axes, per local point."""
        return sum(n.bit_length() - 1 for n in axes)

    def fft(self, r: Rank, first_axes: tuple[int, ...], last_axes: tuple[int, ...]) -> None:
        """Local 1-D FFTs along the first axes, the transpose, then along the others."""
        self.work(r, "fft", self.points * self.passes(*first_axes))
        r.alltoall(self.pair_bytes, comm=COMM_SLICE1)
        self.work(r, "fft", self.points * self.passes(*last_axes))

    def set_up(self, r: Rank) -> None:
        """compute_indexmap, compute_initial_conditions, fft_init."""
        self.work(r, "indexmap", self.points)
        self.work(r, "initial", self.points)

    def program(self, r: Rank) -> Iterator[None]:
        for _ in range(INPUT_BCASTS):
            r.bcast(0, INTEGER)
        self.set_up(r)
        self.fft(r, (self.nx, self.ny), (self.nz,))  # untimed
        r.barrier()
        self.set_up(r)
        self.fft(r, (self.nx, self.ny), (self.nz,))
        for _ in range(self.iterations):
            self.work(r, "evolve", self.points)
            self.fft(r, (self.nz,), (self.ny, self.nx))  # inverse: z first, transpose, then y and x
            self.work(r, "checksum", self.points)
            r.reduce(0, COMPLEX)
            yield


def build(params: Params, costs: Costs | None = None, jitter: float | None = None) -> Workload:
    costs = costs or COSTS[(NAME, params.cls)]
    ft = FT(params, costs)
    notes = [
        f"FT class {params.cls}: {ft.nx}x{ft.ny}x{ft.nz} grid, {ft.iterations} of {ft.full_iterations} "
        f"iterations (scale {params.scale:g})",
        "follows the NPB MPI FT structure, 1-D layout: transposes by alltoall on commslice1 "
        f"({ft.pair_bytes} bytes per pair), checksum reduce to process 0; input bcasts, set-up and the "
        "untimed forward FFT included",
    ]
    comms = {COMM_SLICE1: list(range(params.procs))}
    return Workload(params, ft.iterations, ft.full_iterations, notes,
                    programs(params, ft.program, costs.call_gap_ns, jitter),
                    comms=comms, machine=machine_for(NAME, params.cls))
