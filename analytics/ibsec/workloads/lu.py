"""NAS LU: SSOR with a pipelined 2-D wavefront, NPB 3.4 MPI structure.

The processes form an xdim x ydim grid over the i and j axes (proc_grid;
4 x 4 for 16); k is not split. Each SSOR iteration sweeps the k-planes twice:
  - lower triangle, k = 2 .. nz-1: receive from north and west, compute the
    plane, send to south and east (exchange_1, 5 doubles per boundary point);
  - upper triangle, k = nz-1 .. 2: receive from south and east, compute, send
    to north and west;
then the right-hand side (rhs) with two-deep ghost exchanges north/south and
east/west (exchange_3, 10 doubles per boundary point of the k column).
Neighbours are not periodic: boundary processes have fewer of them. Tags
from_s/n/e/w = 1..4.

The whole run: 10 bcasts of the input (bcast_inputs), setbv, setiv, erhs
(two exchange_3), ssor(1) (the untimed start-up: rhs, l2norm, barrier, one
iteration, the timer's allreduce), setbv, setiv, ssor(itmax), error
(allreduce) and pintgr (exchange_4, 5 and 6 around three allreduces). The
residual norm (l2norm: one 40-byte allreduce) is taken before each ssor loop
and every `inorm` iterations; inorm = itmax in every class, so a run scaled
to fewer iterations takes it at its last iteration.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from math import isqrt

from .common import Params, Workload, programs, scaled, split
from .machine import COSTS, Costs, machine_for
from .program import Rank

NAME = "LU"
PROCS_RULE = "a count NPB's proc_grid accepts (xdim x ydim with xdim / 2 <= ydim <= xdim)"
CLASSES = {"S": (12, 50), "W": (33, 300), "A": (64, 250)}  # grid points per axis, itmax (= inorm)
FROM_S, FROM_N, FROM_E, FROM_W = 1, 2, 3, 4
DOUBLE = 8
INTEGER = 4
MIN_LOCAL = 3  # subdomain refuses blocks smaller than 3 points on an axis
# bcast_inputs: ipr, inorm, itmax, dt, omega, tolrsd(5), nx0, ny0, nz0, timeron
INPUT_BCASTS = (INTEGER, INTEGER, INTEGER, DOUBLE, DOUBLE, 5 * DOUBLE, INTEGER, INTEGER, INTEGER, INTEGER)

# Relative cost per point of the routines of an SSOR iteration (units: a point of jacld + blts) ...
WEIGHTS = {"jac_solve": 1.0, "rhs": 1.4, "scale": 0.05, "add": 0.05, "norm": 0.05}
# ... and of the set-up, which evaluates the exact solution at every point (units: a point of setiv).
SETUP_WEIGHTS = {"setbv": 0.3, "setiv": 1.0, "erhs": 1.5, "error": 1.0, "pintgr": 0.1}


def isqrt2(n: int) -> int:
    """The source's isqrt2: the xdim of a nearly square xdim x ydim = n, or -1."""
    xdim = isqrt(n)
    if xdim * xdim == n:
        return xdim
    xdim += 1  # the source's search stops one past the root
    ydim = n // xdim
    while xdim * ydim != n and 2 * ydim >= xdim:
        xdim += 1
        ydim = n // xdim
    return xdim if xdim * ydim == n and 2 * ydim >= xdim else -1


def process_grid(procs: int) -> tuple[int, int] | None:
    """proc_grid's xdim x ydim, or None where the source aborts."""
    xdim0 = isqrt2(procs)
    if xdim0 <= 0:
        return None
    ydim0 = procs // xdim0
    ydim = isqrt(procs)
    xdim = procs // ydim
    while ydim >= ydim0 and xdim * ydim != procs:
        ydim -= 1
        xdim = procs // ydim
    if xdim < xdim0 or ydim < ydim0 or xdim * ydim != procs:
        return None
    return xdim, ydim


def procs_problem(procs: int) -> str | None:
    return None if process_grid(procs) else f"{NAME} needs {PROCS_RULE}"


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
    ipt: int  # global offset of the block on i
    jpt: int

    @property
    def i_points(self) -> int:  # iend - ist + 1: the physical boundary is not solved
        return self.nx - (self.north < 0) - (self.south < 0)

    @property
    def j_points(self) -> int:
        return self.ny - (self.west < 0) - (self.east < 0)

    @property
    def volume(self) -> int:
        return self.nx * self.ny * self.nz

    @property
    def interior(self) -> int:
        return self.i_points * self.j_points * (self.nz - 2)


def subdomain(rank: int, procs: int, n: int) -> Subdomain:
    xdim, ydim = process_grid(procs)
    row, col = rank % xdim, rank // xdim
    nx, ipt = split(n, xdim, row)
    ny, jpt = split(n, ydim, col)
    return Subdomain(
        north=rank - 1 if row > 0 else -1,
        south=rank + 1 if row < xdim - 1 else -1,
        west=rank - xdim if col > 0 else -1,
        east=rank + xdim if col < ydim - 1 else -1,
        nx=nx, ny=ny, nz=n, ipt=ipt, jpt=jpt,
    )


@dataclass(frozen=True)
class Integral:
    """pintgr's index ranges on one process (1-based, as the source's ibeg ... jfin1)."""

    ibeg: int
    ifin: int
    ifin1: int
    jbeg: int
    jfin: int
    jfin1: int


def integral_ranges(d: Subdomain) -> Integral:
    """The source's pintgr set-up: the part of the integration surface this block holds."""
    n = d.nz
    ii1, ii2, ji1, ji2 = 2, n - 1, 2, n - 2

    def axis(pt: int, size: int, low: int, high: int) -> tuple[int, int, int]:
        beg, fin = size + 1, 0
        glob1, glob2 = pt + 1, pt + size
        if glob1 >= low and glob2 < high + size:
            beg = 1
        if glob1 > low - size and glob2 <= high:
            fin = size
        if glob1 <= low <= glob2:
            beg = low - pt
        if glob1 <= high <= glob2:
            fin = high - pt
        return beg, fin, fin - 1 if pt + fin == high else fin

    ibeg, ifin, ifin1 = axis(d.ipt, d.nx, ii1, ii2)
    jbeg, jfin, jfin1 = axis(d.jpt, d.ny, ji1, ji2)
    return Integral(ibeg, ifin, ifin1, jbeg, jfin, jfin1)


class LU:
    def __init__(self, params: Params, costs: Costs):
        self.params = params
        self.costs = costs
        self.n, self.full_iterations = CLASSES[params.cls]
        self.iterations = scaled(self.full_iterations, params.scale)

    def work(self, r: Rank, routine: str, points: float) -> None:
        if routine in SETUP_WEIGHTS:
            r.compute(self.costs.setup_ns * SETUP_WEIGHTS[routine] * points)
        else:
            r.compute(self.costs.iteration_ns * WEIGHTS[routine] * points)

    # ---- the SSOR iteration ---------------------------------------------------------------

    def lower_sweep(self, r: Rank, d: Subdomain) -> None:
        """jacld + blts for every k-plane: the wavefront from north-west to south-east."""
        plane = d.i_points * d.j_points
        line_i, line_j = 5 * DOUBLE * d.j_points, 5 * DOUBLE * d.i_points
        for _ in range(2, d.nz):
            if d.north >= 0:
                r.recv(d.north, line_i, FROM_N)
            if d.west >= 0:
                r.recv(d.west, line_j, FROM_W)
            self.work(r, "jac_solve", plane)
            if d.south >= 0:
                r.send(d.south, line_i, FROM_N)
            if d.east >= 0:
                r.send(d.east, line_j, FROM_W)

    def upper_sweep(self, r: Rank, d: Subdomain) -> None:
        """jacu + buts for every k-plane, from south-east back to north-west."""
        plane = d.i_points * d.j_points
        line_i, line_j = 5 * DOUBLE * d.j_points, 5 * DOUBLE * d.i_points
        for _ in range(2, d.nz):
            if d.south >= 0:
                r.recv(d.south, line_i, FROM_S)
            if d.east >= 0:
                r.recv(d.east, line_j, FROM_E)
            self.work(r, "jac_solve", plane)
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

    def exchange_3(self, r: Rank, d: Subdomain, iex: int) -> None:
        if iex == 0:
            self.ghost_exchange(r, d.north, d.south, 10 * DOUBLE * d.ny * d.nz, FROM_N, FROM_S)
        else:
            self.ghost_exchange(r, d.west, d.east, 10 * DOUBLE * d.nx * d.nz, FROM_W, FROM_E)

    def rhs(self, r: Rank, d: Subdomain, routine: str = "rhs") -> None:
        """rhs (or erhs): set-up of the whole block, xi fluxes, eta and zeta fluxes."""
        self.work(r, routine, 0.1 * d.volume)
        self.exchange_3(r, d, 0)
        self.work(r, routine, 0.3 * d.interior)
        self.exchange_3(r, d, 1)
        self.work(r, routine, 0.6 * d.interior)

    def l2norm(self, r: Rank, d: Subdomain) -> None:
        self.work(r, "norm", d.interior)
        r.allreduce(5 * DOUBLE)

    def ssor(self, r: Rank, d: Subdomain, niter: int, itmax: int, inorm: int) -> Iterator[None]:
        self.rhs(r, d)
        self.l2norm(r, d)
        r.barrier()
        for step in range(1, niter + 1):
            self.work(r, "scale", d.interior)
            self.lower_sweep(r, d)
            self.upper_sweep(r, d)
            self.work(r, "add", d.interior)
            if step % inorm == 0:
                self.l2norm(r, d)  # norm of the correction
            self.rhs(r, d)
            if step % inorm == 0 or step == itmax:
                self.l2norm(r, d)  # norm of the residual
            yield
        r.allreduce(DOUBLE)  # the timer's maximum

    # ---- set-up and verification ----------------------------------------------------------

    def initial_values(self, r: Rank, d: Subdomain) -> None:
        self.work(r, "setbv", d.volume)
        self.work(r, "setiv", d.volume)

    def error(self, r: Rank, d: Subdomain) -> None:
        self.work(r, "error", d.interior)
        r.allreduce(5 * DOUBLE)

    @staticmethod
    def surface_exchange(r: Rank, recv_from: int | None, send_to: int | None, nbytes: int, tag: int) -> None:
        """exchange_4/5/6: receive (and wait) from one side, then send to the other."""
        if recv_from is not None:
            r.wait(r.irecv(recv_from, nbytes, tag))
        if send_to is not None:
            r.send(send_to, nbytes, tag)

    def pintgr(self, r: Rank, d: Subdomain) -> None:
        """The surface integral: three parts, each with its exchanges and an allreduce."""
        g = integral_ranges(d)
        n = d.nz
        from_east = d.east if g.jfin1 == d.ny else None
        to_west = d.west if g.jbeg == 1 else None
        from_south = d.south if g.ifin1 == d.nx else None
        to_north = d.north if g.ibeg == 1 else None
        self.work(r, "pintgr", d.nx * d.ny)
        self.surface_exchange(r, from_east, to_west, 2 * d.nx * DOUBLE, FROM_E)  # exchange_4
        self.surface_exchange(r, from_south, to_north, 2 * (d.ny + 2) * DOUBLE, FROM_S)
        r.allreduce(DOUBLE)
        on_j_faces = (d.jpt + g.jbeg == 2, d.jpt + g.jfin == n - 2)
        for on_face in on_j_faces:
            self.work(r, "pintgr", d.nx * n if on_face else 0)
        for on_face in on_j_faces:
            if on_face:
                self.surface_exchange(r, from_south, to_north, n * DOUBLE, FROM_S)  # exchange_5
        r.allreduce(DOUBLE)
        on_i_faces = (d.ipt + g.ibeg == 2, d.ipt + g.ifin == n - 1)
        for on_face in on_i_faces:
            self.work(r, "pintgr", d.ny * n if on_face else 0)
        for on_face in on_i_faces:
            if on_face:
                self.surface_exchange(r, from_east, to_west, n * DOUBLE, FROM_E)  # exchange_6
        r.allreduce(DOUBLE)

    def program(self, r: Rank) -> Iterator[None]:
        d = subdomain(r.rank, self.params.procs, self.n)
        for nbytes in INPUT_BCASTS:
            r.bcast(0, nbytes)
        self.initial_values(r, d)
        self.rhs(r, d, "erhs")
        full = self.full_iterations
        yield from self.ssor(r, d, 1, full, full)  # untimed start-up
        self.initial_values(r, d)
        # inorm = itmax; a scaled run takes its norms at its own last iteration
        yield from self.ssor(r, d, self.iterations, self.iterations, self.iterations)
        self.error(r, d)
        self.pintgr(r, d)


def build(params: Params, costs: Costs | None = None, jitter: float | None = None) -> Workload:
    costs = costs or COSTS[(NAME, params.cls)]
    lu = LU(params, costs)
    xdim, ydim = process_grid(params.procs)
    notes = [
        f"LU class {params.cls}: {lu.n}^3 grid, {lu.iterations} of {lu.full_iterations} SSOR iterations "
        f"(scale {params.scale:g}), {lu.n - 2} k-planes per sweep",
        f"follows the NPB MPI LU structure: {xdim}x{ydim} process grid, pipelined wavefront with "
        "north/south/east/west messages per k-plane (exchange_1), ghost exchanges in rhs (exchange_3), "
        "residual norms by allreduce; input bcasts, erhs, the untimed ssor(1), error and pintgr included",
    ]
    return Workload(params, lu.iterations, lu.full_iterations, notes,
                    programs(params, lu.program, costs.call_gap_ns, jitter), machine=machine_for(NAME, params.cls))
