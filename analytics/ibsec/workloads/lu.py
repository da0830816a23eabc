"""NAS LU: SSOR with a pipelined 2-D wavefront, NPB 2.x/3.x MPI structure.

P (a power of two) processes form an xdim x ydim grid over the i and j axes
(xdim = 2^ceil(log2 P / 2)); k is not split. Each SSOR iteration sweeps the
k-planes twice:
  - lower triangle, k = 2 .. nz-1: receive from north and west, compute the
    plane, send to south and east (exchange_1, 5 doubles per boundary point);
  - upper triangle, k = nz-1 .. 2: receive from south and east, compute, send
    to north and west;
then the right-hand side (rhs) with two-deep ghost exchanges north/south and
east/west (exchange_3, 10 doubles per boundary point of the k column). The
residual norm (l2norm: one 40-byte allreduce) is taken before the loop and
every `inorm` iterations; inorm = itmax in every class, so with a scaled
iteration count it is taken at the last iteration. Neighbours are not
periodic: boundary processes have fewer of them. Tags from_s/n/e/w = 1..4.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .common import Params, Workload, is_power_of_two, programs, scaled, split
from .program import Rank

NAME = "LU"
PROCS_RULE = "a power of two"
CLASSES = {"S": (12, 50), "W": (33, 300), "A": (64, 250)}  # grid points per axis, itmax (= inorm)
FROM_S, FROM_N, FROM_E, FROM_W = 1, 2, 3, 4
DOUBLE = 8
MIN_LOCAL = 4  # the source refuses subdomains smaller than 4 points

WEIGHTS = {"jac": 1.0, "solve": 1.0, "rhs": 1.6, "scale": 0.05, "add": 0.1, "norm": 0.1}
# Calibrated so that class A on 16 processes takes Table 1's 268.61 s (docs/workloads.md).
NS_PER_UNIT = 11273.0


def procs_problem(procs: int) -> str | None:
    return None if is_power_of_two(procs) and procs >= 2 else f"{NAME} needs {PROCS_RULE} of at least 2 processes"


def process_grid(procs: int) -> tuple[int, int]:
    xdim = 1 << (procs.bit_length() // 2)
    return xdim, procs // xdim


def class_problem(procs: int, cls: str) -> str | None:
    n = CLASSES[cls][0]
    if min(n // d for d in process_grid(procs)) < MIN_LOCAL:
        return f"{NAME} class {cls} ({n}^3) leaves fewer than {MIN_LOCAL} points per process on an axis"
    return None


@dataclass(frozen=True)
class Subdomain:
    """One process's block and neighbours (the source's subdomain / neighbors); -1: none."""

    north: int
    south: int
    west: int
    east: int
    nx: int
    ny: int
    nz: int

    @property
    def i_points(self) -> int:  # iend - ist + 1: the physical boundary is not solved
        return self.nx - (self.north < 0) - (self.south < 0)

    @property
    def j_points(self) -> int:
        return self.ny - (self.west < 0) - (self.east < 0)


def subdomain(rank: int, procs: int, n: int) -> Subdomain:
    xdim, ydim = process_grid(procs)
    row, col = rank % xdim, rank // xdim
    return Subdomain(
        north=rank - 1 if row > 0 else -1,
        south=rank + 1 if row < xdim - 1 else -1,
        west=rank - xdim if col > 0 else -1,
        east=rank + xdim if col < ydim - 1 else -1,
        nx=split(n, xdim, row)[0],
        ny=split(n, ydim, col)[0],
        nz=n,
    )


class LU:
    def __init__(self, params: Params):
        self.params = params
        self.n, self.full_iterations = CLASSES[params.cls]
        self.iterations = scaled(self.full_iterations, params.scale)
        self.inorm = self.iterations  # inorm = itmax in every class

    def work(self, r: Rank, routine: str, points: int) -> None:
        r.compute(NS_PER_UNIT * WEIGHTS[routine] * points)

    def lower_sweep(self, r: Rank, d: Subdomain) -> None:
        """jacld + blts for every k-plane: the wavefront from north-west to south-east."""
        plane = d.i_points * d.j_points
        line_i, line_j = 5 * DOUBLE * d.j_points, 5 * DOUBLE * d.i_points
        for _ in range(2, d.nz):
            self.work(r, "jac", plane)
            if d.north >= 0:
                r.recv(d.north, line_i, FROM_N)
            if d.west >= 0:
                r.recv(d.west, line_j, FROM_W)
            self.work(r, "solve", plane)
            if d.south >= 0:
                r.send(d.south, line_i, FROM_N)
            if d.east >= 0:
                r.send(d.east, line_j, FROM_W)

    def upper_sweep(self, r: Rank, d: Subdomain) -> None:
        """jacu + buts for every k-plane, from south-east back to north-west."""
        plane = d.i_points * d.j_points
        line_i, line_j = 5 * DOUBLE * d.j_points, 5 * DOUBLE * d.i_points
        for _ in range(2, d.nz):
            self.work(r, "jac", plane)
            if d.south >= 0:
                r.recv(d.south, line_i, FROM_S)
            if d.east >= 0:
                r.recv(d.east, line_j, FROM_E)
            self.work(r, "solve", plane)
            if d.north >= 0:
                r.send(d.north, line_i, FROM_S)
            if d.west >= 0:
                r.send(d.west, line_j, FROM_E)

    @staticmethod
    def ghost_exchange(r: Rank, before: int, after: int, nbytes: int, tag_down: int, tag_up: int) -> None:
        """exchange_3 along one axis: shift down (to `after`), then up (to `before`)."""
        for source, target, tag in ((before, after, tag_down), (after, before, tag_up)):
            req = r.irecv(source, nbytes, tag) if source >= 0 else None
            if target >= 0:
                r.send(target, nbytes, tag)
            if req is not None:
                r.wait(req)

    def rhs(self, r: Rank, d: Subdomain) -> None:
        self.ghost_exchange(r, d.north, d.south, 10 * DOUBLE * d.ny * d.nz, FROM_N, FROM_S)
        self.work(r, "rhs", d.nx * d.ny * d.nz // 2)  # xi-direction fluxes
        self.ghost_exchange(r, d.west, d.east, 10 * DOUBLE * d.nx * d.nz, FROM_W, FROM_E)
        self.work(r, "rhs", d.nx * d.ny * d.nz - d.nx * d.ny * d.nz // 2)  # eta and zeta fluxes

    def l2norm(self, r: Rank, d: Subdomain) -> None:
        self.work(r, "norm", d.i_points * d.j_points * d.nz)
        r.allreduce(5 * DOUBLE)

    def program(self, r: Rank) -> Iterator[None]:
        d = subdomain(r.rank, self.params.procs, self.n)
        volume = d.i_points * d.j_points * (d.nz - 2)
        self.rhs(r, d)
        self.l2norm(r, d)
        for step in range(1, self.iterations + 1):
            self.work(r, "scale", volume)
            self.lower_sweep(r, d)
            self.upper_sweep(r, d)
            self.work(r, "add", volume)
            if step % self.inorm == 0:
                self.l2norm(r, d)  # norm of the correction
            self.rhs(r, d)
            if step % self.inorm == 0 or step == self.iterations:
                self.l2norm(r, d)  # norm of the residual
            yield


def build(params: Params) -> Workload:
    lu = LU(params)
    xdim, ydim = process_grid(params.procs)
    notes = [
        f"LU class {params.cls}: {lu.n}^3 grid, {lu.iterations} of {lu.full_iterations} SSOR iterations "
        f"(scale {params.scale:g}), {lu.n - 2} k-planes per sweep",
        f"follows the NPB MPI LU structure: {xdim}x{ydim} process grid, pipelined wavefront with "
        "north/south/east/west messages per k-plane (exchange_1), ghost exchanges in rhs (exchange_3), "
        "residual norms by allreduce",
    ]
    return Workload(params, lu.iterations, lu.full_iterations, notes, programs(params, lu.program))
