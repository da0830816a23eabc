"""NAS MG: a V-cycle multigrid Poisson solver, NPB 2.x/3.x MPI structure.

P (a power of two) processes form a pi1 x pi2 x pi3 grid chosen as in the
source's setup (pi1 = 2^(log2 P / 3), pi2 = 2^((log2 P - log2 pi1) / 2), the
rest on the third axis), periodic in every axis. Every smoothing, residual
and restriction step ends with comm3: for each axis in turn, irecv from both
neighbours, send to both, wait for both (6 neighbours in all; tags are the
source's msg_type = 100 (dir + 2 + 10 axis)). The timed part is: barrier,
residual, norm (two 8-byte allreduces), `nit` x (V-cycle + residual), norm,
and the timer reduce. Levels so coarse that some process holds no point,
which the source handles with idle "dead" processes, are computed without
messages here.
"""

from __future__ import annotations

from collections.abc import Iterator

from .common import Params, Workload, is_power_of_two, programs, scaled
from .program import Rank

NAME = "MG"
PROCS_RULE = "a power of two"
CLASSES = {"S": (32, 4), "W": (128, 4), "A": (256, 4)}  # grid points per axis, nit
DOUBLE = 8

# Relative cost of each routine per local grid point of the level it works on.
WEIGHTS = {"resid": 1.0, "psinv": 0.85, "rprj3": 1.4, "interp": 0.45, "zero3": 0.05, "norm2u3": 0.2}
# Calibrated so that class A on 16 processes takes Table 1's 11.86 s (docs/workloads.md).
NS_PER_UNIT = 655.6


def procs_problem(procs: int) -> str | None:
    return None if is_power_of_two(procs) and procs >= 2 else f"{NAME} needs {PROCS_RULE} of at least 2 processes"


def class_problem(procs: int, cls: str) -> str | None:
    n = CLASSES[cls][0]
    if min(n // p for p in process_grid(procs)) < 2:
        return f"{NAME} class {cls} ({n}^3) leaves fewer than 2 points per process on an axis"
    return None


def process_grid(procs: int) -> tuple[int, int, int]:
    log_p = procs.bit_length() - 1
    dx = log_p // 3
    dy = (log_p - dx) // 2
    return 1 << dx, 1 << dy, procs >> (dx + dy)


def tag(axis: int, direction: int) -> int:
    """The source's msg_type(axis, dir), axis 1..3, dir -1/+1."""
    return 100 * (direction + 2 + 10 * axis)


class MG:
    def __init__(self, params: Params):
        self.params = params
        self.n, self.full_iterations = CLASSES[params.cls]
        self.iterations = scaled(self.full_iterations, params.scale)
        self.pi = process_grid(params.procs)
        self.top = self.n.bit_length() - 1  # lt: the finest level, 2^lt points per axis

    def coords(self, rank: int) -> tuple[int, int, int]:
        p1, p2, _ = self.pi
        return rank % p1, (rank // p1) % p2, rank // (p1 * p2)

    def rank_at(self, coords: tuple[int, int, int]) -> int:
        p1, p2, _ = self.pi
        return coords[0] + p1 * (coords[1] + p2 * coords[2])

    def neighbour(self, rank: int, axis: int, direction: int) -> int:
        c = list(self.coords(rank))
        c[axis] = (c[axis] + direction) % self.pi[axis]
        return self.rank_at(tuple(c))

    def local_points(self, rank: int, level: int) -> tuple[int, int, int]:
        """Points per axis on `level` (the source's mi - 2)."""
        ng = 1 << level
        return tuple(((i + 1) * ng) // p - (i * ng) // p for i, p in zip(self.coords(rank), self.pi, strict=True))

    def live(self, level: int) -> bool:
        """Every process holds points on this level."""
        return all((1 << level) >= p for p in self.pi)

    def work(self, r: Rank, routine: str, level: int) -> None:
        m1, m2, m3 = self.local_points(r.rank, level)
        r.compute(NS_PER_UNIT * WEIGHTS[routine] * m1 * m2 * m3)

    def comm3(self, r: Rank, level: int) -> None:
        """Ghost exchange with the six neighbours, one axis after the other."""
        if not self.live(level):
            return
        m1, m2, m3 = self.local_points(r.rank, level)
        faces = (m2 * m3, (m1 + 2) * m3, (m1 + 2) * (m2 + 2))  # give3's buffer lengths per axis
        for axis in range(3):
            if self.pi[axis] == 1:
                continue  # the neighbour is the process itself: a local copy
            up, down = self.neighbour(r.rank, axis, +1), self.neighbour(r.rank, axis, -1)
            nbytes = DOUBLE * faces[axis]
            from_up = r.irecv(up, nbytes, tag(axis + 1, -1))
            from_down = r.irecv(down, nbytes, tag(axis + 1, +1))
            r.send(up, nbytes, tag(axis + 1, +1))
            r.send(down, nbytes, tag(axis + 1, -1))
            r.wait(from_up, from_down)

    def step(self, r: Rank, routine: str, level: int) -> None:
        """One routine on a level followed by its ghost exchange."""
        self.work(r, routine, level)
        self.comm3(r, level)

    def norm(self, r: Rank) -> None:
        self.work(r, "norm2u3", self.top)
        r.allreduce(DOUBLE)  # max norm
        r.allreduce(DOUBLE)  # L2 norm

    def v_cycle(self, r: Rank) -> None:
        for level in range(self.top, 1, -1):
            self.step(r, "rprj3", level - 1)  # restrict to the coarser level
        self.work(r, "zero3", 1)
        self.step(r, "psinv", 1)
        for level in range(2, self.top + 1):
            if level < self.top:
                self.work(r, "zero3", level)
            self.work(r, "interp", level)  # comm3_ex moves data only onto dead processes
            self.step(r, "resid", level)
            self.step(r, "psinv", level)

    def program(self, r: Rank) -> Iterator[None]:
        r.barrier()
        self.step(r, "resid", self.top)
        self.norm(r)
        for _ in range(self.iterations):
            self.v_cycle(r)
            self.step(r, "resid", self.top)
            yield
        self.norm(r)
        r.reduce(0, DOUBLE)


def build(params: Params) -> Workload:
    mg = MG(params)
    notes = [
        f"MG class {params.cls}: {mg.n}^3 grid, {mg.top} levels, {mg.iterations} of {mg.full_iterations} "
        f"iterations (scale {params.scale:g})",
        f"follows the NPB MPI MG structure: {'x'.join(map(str, mg.pi))} periodic process grid, V-cycle with "
        "6-neighbour ghost exchanges (comm3) on every level, norms by allreduce",
    ]
    return Workload(params, mg.iterations, mg.full_iterations, notes, programs(params, mg.program))
