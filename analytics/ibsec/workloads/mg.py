"""NAS MG: a V-cycle multigrid Poisson solver, NPB 3.4 MPI structure.

P (a power of two) processes form a pi1 x pi2 x pi3 grid chosen as in the
source's setup (pi1 = 2^(log2 P / 3), pi2 = 2^((log2 P - log2 pi1) / 2), the
rest on the third axis), periodic in every axis, all on `comm_work` (a split
of the world with every process). `setup` is ported as it is: on coarse
levels where some processes hold no point ("dead"), the live ones exchange
with neighbours `next` processes away, and `comm3_ex` (called by interp)
sends the data of a level onto processes that were dead on the level below.
comm3: for each axis in turn, irecv from both neighbours, send to both, wait
for both; tags are the source's msg_type = 100 (dir + 2 + 10 axis).

The whole run: barrier, 7 bcasts of the input, zran3 (10 rounds of 4
allreduces between two barriers, then comm3), norm2u3 (2 allreduces), resid,
norm2u3, an untimed V-cycle and resid, zran3 again, the barrier that starts
the timer, resid, norm2u3, nit x (V-cycle, resid), norm2u3, and the timer's
reduce. A neighbour that is the process itself is a local copy, not a
network message, and is left out.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .common import Params, Workload, is_power_of_two, programs, scaled
from .machine import COSTS, Costs, machine_for
from .program import Rank

NAME = "MG"
PROCS_RULE = "a power of two"
CLASSES = {"S": (32, 4), "W": (128, 4), "A": (256, 4)}  # grid points per axis, nit
DOUBLE = 8
INTEGER = 4
COMM_WORK = 1
ZRAN3_ROUNDS = 10  # mm, the number of +1 and -1 charges zran3 places
# mpi_bcast in the main program: lt, nit, nx, ny, nz, debug_vec(0:7), timeron
INPUT_BCASTS = (INTEGER, INTEGER, INTEGER, INTEGER, INTEGER, 8 * INTEGER, INTEGER)

# Relative cost of each routine per local grid point of the level it works on (iteration units: a
# point of resid on its level); zran3's random numbers and search are set-up.
WEIGHTS = {"resid": 1.0, "psinv": 0.85, "rprj3": 1.4, "interp": 0.45, "zero3": 0.05, "norm2u3": 0.2}
SETUP_WEIGHTS = {"zran3": 1.0}


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


def fortran_mod(a: int, b: int) -> int:
    """Fortran's mod: the sign of the dividend (setup relies on it for far neighbours)."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


@dataclass
class Level:
    """One process on one level, as setup leaves it."""

    mi: tuple[int, int, int]  # points per axis plus the two ghosts (the source's m1, m2, m3)
    dead: bool
    give_ex: tuple[bool, bool, bool]
    take_ex: tuple[bool, bool, bool]
    nbr: dict[tuple[int, int], int]  # (axis 0..2, dir -1/+1) -> rank

    @property
    def points(self) -> int:
        return (self.mi[0] - 2) * (self.mi[1] - 2) * (self.mi[2] - 2)


def setup(rank: int, procs: int, lt: int, n: int) -> dict[int, Level]:
    """The source's setup for one process: every level's size, neighbours and flags."""
    pi = process_grid(procs)
    idi = (rank % pi[0], (rank // pi[0]) % pi[1], rank // (pi[0] * pi[1]))
    nxt = [1, 1, 1]
    give = {k: [False] * 3 for k in range(1, lt + 2)}
    take = {k: [False] * 3 for k in range(1, lt + 2)}
    sizes: dict[int, tuple[int, ...]] = {}
    neighbours: dict[int, dict] = {}
    for k in range(lt, 0, -1):
        ng = n >> (lt - k)
        mi = []
        for ax in range(3):
            m = 2 + ((idi[ax] + 1) * ng) // pi[ax] - (idi[ax] * ng) // pi[ax]
            mip = 2 + ((nxt[ax] + idi[ax] + 1) * ng) // pi[ax] - ((nxt[ax] + idi[ax]) * ng) // pi[ax]
            if mip == 2 or m == 2:
                nxt[ax] *= 2
            if k + 1 <= lt:
                give[k + 1][ax] |= mip == 2 and m == 3
                take[k + 1][ax] |= mip == 3 and m == 2
            mi.append(m)
        sizes[k] = tuple(mi)
        neighbours[k] = {}
        for ax in range(3):
            for d in (1, -1):
                coords = list(idi)
                coords[ax] = fortran_mod(idi[ax] + d * nxt[ax] + pi[ax], pi[ax])
                neighbours[k][(ax, d)] = coords[0] + pi[0] * (coords[1] + pi[1] * coords[2])
    return {k: Level(sizes[k], 2 in sizes[k], tuple(give[k]), tuple(take[k]), neighbours[k])
            for k in range(1, lt + 1)}


class MG:
    def __init__(self, params: Params, costs: Costs):
        self.params = params
        self.costs = costs
        self.n, self.full_iterations = CLASSES[params.cls]
        self.iterations = scaled(self.full_iterations, params.scale)
        self.pi = process_grid(params.procs)
        self.top = self.n.bit_length() - 1  # lt: the finest level, 2^lt points per axis
        self.levels = [setup(rank, params.procs, self.top, self.n) for rank in range(params.procs)]

    # ---- computing -------------------------------------------------------------------------

    def work(self, r: Rank, routine: str, level: int) -> None:
        points = self.levels[r.rank][level].points
        if routine in SETUP_WEIGHTS:
            r.compute(self.costs.setup_ns * SETUP_WEIGHTS[routine] * points)
        else:
            r.compute(self.costs.iteration_ns * WEIGHTS[routine] * points)

    # ---- communication ---------------------------------------------------------------------

    @staticmethod
    def face_bytes(mi: tuple[int, int, int], axis: int) -> int:
        """give3's message along an axis: the inner face, widened by the ghosts already filled."""
        n1, n2, n3 = mi
        return DOUBLE * ((n2 - 2) * (n3 - 2), n1 * (n3 - 2), n1 * n2)[axis]

    def comm3(self, r: Rank, level: int) -> None:
        """Ghost exchange with the six neighbours, one axis after the other (dead: nothing)."""
        me = self.levels[r.rank][level]
        if me.dead:
            return
        for axis in range(3):
            up, down = me.nbr[(axis, +1)], me.nbr[(axis, -1)]
            received = []
            for source, direction in ((up, -1), (down, +1)):  # ready(axis, -1), ready(axis, +1)
                if source != r.rank:
                    nbytes = self.face_bytes(self.levels[source][level].mi, axis)
                    received.append(r.irecv(source, nbytes, tag(axis + 1, direction), COMM_WORK))
            for target, direction in ((up, +1), (down, -1)):  # give3(axis, +1), give3(axis, -1)
                if target != r.rank:
                    r.send(target, self.face_bytes(me.mi, axis), tag(axis + 1, direction), COMM_WORK)
            for req in received:  # take3(axis, -1), take3(axis, +1): one mpi_wait each
                r.wait(req)

    @staticmethod
    def ex_bytes(mi: tuple[int, int, int], axis: int, direction: int) -> int:
        """give3_ex's message: one layer backwards, two forwards, over the whole face with ghosts."""
        n1, n2, n3 = mi
        face = (n2 * n3, n1 * n3, n1 * n2)[axis]
        return DOUBLE * face * (2 if direction > 0 else 1)

    def comm3_ex(self, r: Rank, level: int) -> None:
        """Hand a level's data to the processes that were dead on the level below."""
        me = self.levels[r.rank][level]
        for axis in range(3):
            if me.take_ex[axis]:
                requests = []
                for direction in (-1, +1):  # ready: from nbr(axis, -dir)
                    source = me.nbr[(axis, -direction)]
                    nbytes = self.ex_bytes(self.levels[source][level].mi, axis, direction)
                    requests.append(r.irecv(source, nbytes, tag(axis + 1, direction), COMM_WORK))
                for req in requests:  # take3_ex waits for each in turn
                    r.wait(req)
            if me.give_ex[axis]:
                for direction in (+1, -1):
                    r.send(me.nbr[(axis, direction)], self.ex_bytes(me.mi, axis, direction), tag(axis + 1, direction),
                           COMM_WORK)

    # ---- the routines ----------------------------------------------------------------------

    def step(self, r: Rank, routine: str, level: int) -> None:
        """A routine that ends with comm3 on its level (resid, psinv, rprj3)."""
        if not self.levels[r.rank][level].dead:
            self.work(r, routine, level)
        self.comm3(r, level)

    def norm2u3(self, r: Rank) -> None:
        self.work(r, "norm2u3", self.top)
        r.allreduce(DOUBLE, comm=COMM_WORK)  # max norm
        r.allreduce(DOUBLE, comm=COMM_WORK)  # L2 norm

    def zran3(self, r: Rank) -> None:
        """Random right-hand side; the 10 largest and smallest values found together."""
        self.work(r, "zero3", self.top)
        self.work(r, "zran3", self.top)
        r.barrier(comm=COMM_WORK)
        for _ in range(ZRAN3_ROUNDS):
            for _sign in (+1, -1):
                r.allreduce(DOUBLE, comm=COMM_WORK)  # the best value
                r.allreduce(4 * INTEGER, comm=COMM_WORK)  # who holds it, and where
        r.barrier(comm=COMM_WORK)
        self.work(r, "zero3", self.top)
        self.comm3(r, self.top)

    def interp(self, r: Rank, level: int) -> None:
        self.work(r, "interp", level)
        self.comm3_ex(r, level)

    def v_cycle(self, r: Rank) -> None:
        """mg3P: restrict down to level 1, solve there, prolongate and smooth back up."""
        for level in range(self.top, 1, -1):
            self.step(r, "rprj3", level - 1)
        self.work(r, "zero3", 1)
        self.step(r, "psinv", 1)
        for level in range(2, self.top):
            self.work(r, "zero3", level)
            self.interp(r, level)
            self.step(r, "resid", level)
            self.step(r, "psinv", level)
        self.interp(r, self.top)
        self.step(r, "resid", self.top)
        self.step(r, "psinv", self.top)

    def program(self, r: Rank) -> Iterator[None]:
        r.barrier(comm=COMM_WORK)
        for nbytes in INPUT_BCASTS:
            r.bcast(0, nbytes, comm=COMM_WORK)
        self.work(r, "zero3", self.top)
        self.zran3(r)
        self.norm2u3(r)
        self.step(r, "resid", self.top)
        self.norm2u3(r)
        self.v_cycle(r)  # one untimed iteration for start-up
        self.step(r, "resid", self.top)
        self.work(r, "zero3", self.top)
        self.zran3(r)
        r.barrier(comm=COMM_WORK)
        self.step(r, "resid", self.top)
        self.norm2u3(r)
        for _ in range(self.iterations):
            self.v_cycle(r)
            self.step(r, "resid", self.top)
            yield
        self.norm2u3(r)
        r.reduce(0, DOUBLE, comm=COMM_WORK)


def build(params: Params, costs: Costs | None = None, jitter: float | None = None) -> Workload:
    costs = costs or COSTS[(NAME, params.cls)]
    mg = MG(params, costs)
    notes = [
        f"MG class {params.cls}: {mg.n}^3 grid, {mg.top} levels, {mg.iterations} of {mg.full_iterations} "
        f"iterations (scale {params.scale:g})",
        f"follows the NPB MPI MG structure: {'x'.join(map(str, mg.pi))} periodic process grid on comm_work, "
        "V-cycle with 6-neighbour ghost exchanges (comm3) on every level and comm3_ex onto dead processes, "
        "zran3's allreduces, norms by allreduce; set-up and the untimed warm-up iteration included",
    ]
    comms = {COMM_WORK: list(range(params.procs))}
    return Workload(params, mg.iterations, mg.full_iterations, notes,
                    programs(params, mg.program, costs.call_gap_ns, jitter),
                    comms=comms, machine=machine_for(NAME, params.cls))
