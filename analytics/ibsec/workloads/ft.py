"""NAS FT: 3-D FFT PDE solver, NPB 2.x/3.x MPI structure with the 1-D layout.

Each process holds a slab of the nx x ny x nz complex grid. A 3-D FFT is two
local 1-D FFT passes, a global transpose (MPI_Alltoall of nx ny nz / P^2
complex numbers, 16 bytes each, to every process), and the third pass. The
timed part: barrier, set-up, one forward FFT, then `niter` x (evolve,
inverse FFT, checksum); each checksum is an MPI_Reduce of one complex number
to process 0. FT has no point-to-point messages at all. The 1-D layout needs
P <= ny and P <= nz (the source switches to a 2-D layout beyond that).
"""

from __future__ import annotations

from collections.abc import Iterator

from .common import Params, Workload, is_power_of_two, programs, scaled
from .program import Rank

NAME = "FT"
PROCS_RULE = "a power of two"
CLASSES = {"S": (64, 64, 64, 6), "W": (128, 128, 32, 6), "A": (256, 256, 128, 6)}  # nx, ny, nz, niter
COMPLEX = 16
WEIGHTS = {"setup": 1.5, "fft": 1.0, "evolve": 0.6, "checksum": 0.002}
# FT is not in Table 1. This puts class A on 16 processes at about 21.7 s: the
# Table-1 rate of MG (11.86 s for 3.9 Gflop) applied to FT's 7.1 Gflop (NPB op counts).
NS_PER_UNIT = 242.5


def procs_problem(procs: int) -> str | None:
    return None if is_power_of_two(procs) and procs >= 2 else f"{NAME} needs {PROCS_RULE} of at least 2 processes"


def class_problem(procs: int, cls: str) -> str | None:
    _, ny, nz, _ = CLASSES[cls]
    if procs > min(ny, nz):
        return f"{NAME} class {cls} with the 1-D layout allows at most {min(ny, nz)} processes"
    return None


class FT:
    def __init__(self, params: Params):
        self.params = params
        self.nx, self.ny, self.nz, self.full_iterations = CLASSES[params.cls]
        self.iterations = scaled(self.full_iterations, params.scale)
        self.points = self.nx * self.ny * self.nz // params.procs  # per process
        self.pair_bytes = COMPLEX * self.nx * self.ny * self.nz // params.procs ** 2

    def work(self, r: Rank, routine: str, units: float) -> None:
        r.compute(NS_PER_UNIT * WEIGHTS[routine] * units)

    def fft(self, r: Rank, first_axes: tuple[int, ...], last_axis: int) -> None:
        """Local 1-D FFTs along two axes, the transpose, then the third axis."""
        self.work(r, "fft", self.points * sum(n.bit_length() - 1 for n in first_axes))
        r.alltoall(self.pair_bytes)
        self.work(r, "fft", self.points * (last_axis.bit_length() - 1))

    def program(self, r: Rank) -> Iterator[None]:
        r.barrier()
        self.work(r, "setup", self.points)  # index map, initial conditions, fft_init
        self.fft(r, (self.nx, self.ny), self.nz)
        for _ in range(self.iterations):
            self.work(r, "evolve", self.points)
            self.fft(r, (self.nz,), self.ny)  # inverse: z first, transpose, then y and x
            self.work(r, "fft", self.points * (self.nx.bit_length() - 1))
            self.work(r, "checksum", self.points)
            r.reduce(0, COMPLEX)
            yield


def build(params: Params) -> Workload:
    ft = FT(params)
    notes = [
        f"FT class {params.cls}: {ft.nx}x{ft.ny}x{ft.nz} grid, {ft.iterations} of {ft.full_iterations} "
        f"iterations (scale {params.scale:g})",
        "follows the NPB MPI FT structure, 1-D layout: transposes by alltoall "
        f"({ft.pair_bytes} bytes per pair), checksum reduce to process 0; not in the paper's Table 1, "
        "compute times chosen by analogy with MG",
    ]
    return Workload(params, ft.iterations, ft.full_iterations, notes, programs(params, ft.program))
