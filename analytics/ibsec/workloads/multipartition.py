"""The multi-partition scheme shared by NAS SP and BT (NPB 2.x/3.x MPI).

P = c^2 processes; the grid is cut into c x c x c cells and each process
owns c of them, one in every plane of every axis (the source's make_set:
cell k of process (i, j) is at (i + k, j - k, k) modulo c). A line solve in
one direction is a chain over the c cells of a line, each on a different
process: a forward elimination passes from every cell to the next one's
owner (the process's "successor" in that direction), then back substitution
passes back to the "predecessor". Before the solves, copy_faces swaps
two-deep cell faces with the six neighbouring processes (12 non-blocking
calls and a waitall). SP and BT differ only in message sizes, tags, where
they overlap computation with a pending receive, their input bcasts and
compute weights, given by a `Solver`.

The whole run, as a capture records it: the input bcasts on comm_setup (a
split of the world with every process; the solves and copy_faces use dups
of it, whose point-to-point messages a trace puts on the world), the set-up
(initialize, lhsinit, exact_rhs), one untimed time step, initialize again,
the barrier on comm_setup that starts the timer, `niter` time steps, verify
(error_norm, copy_faces, rhs_norm: two allreduces), the timer's reduce, and
the barrier on the world before MPI_Finalize.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property

from .common import Params, Workload, exact_sqrt, programs, scaled, split
from .machine import COSTS, Costs, machine_for
from .program import Rank

DOUBLE = 8
INTEGER = 4
# The sources' communicators, in the order they make them (the capture numbers
# them so): comm_setup, then its duplicates comm_solve (the line solves) and
# comm_rhs (copy_faces).
COMM_SETUP, COMM_SOLVE, COMM_RHS = 1, 2, 3
# Tags of copy_faces (the sources' header constants).
EAST, WEST, NORTH, SOUTH, BOTTOM, TOP = 2000, 3000, 4000, 5000, 6000, 7000
# Tag of a message sent towards the successor / predecessor in each direction.
TOWARDS_SUCCESSOR = (EAST, NORTH, TOP)
TOWARDS_PREDECESSOR = (WEST, SOUTH, BOTTOM)


def procs_problem(name: str, procs: int) -> str | None:
    root = exact_sqrt(procs)
    return None if root and root >= 2 else f"{name} needs a square number of at least 4 processes"


def class_problem(name: str, size: int, procs: int, cls: str) -> str | None:
    cells = exact_sqrt(procs) or 1
    if size // cells < 3:
        return f"{name} class {cls} ({size}^3) leaves cells thinner than 3 points"
    return None


@dataclass(frozen=True)
class Cells:
    """The cells of one process and its neighbours (make_set)."""

    node: int
    ncells: int
    size: int  # grid points per axis

    @property
    def ij(self) -> tuple[int, int]:
        return self.node % self.ncells, self.node // self.ncells

    def coord(self, cell: int) -> tuple[int, int, int]:
        i, j = self.ij
        p = self.ncells
        return (i + cell) % p, (j - cell) % p, cell

    @cached_property
    def by_plane(self) -> tuple[dict[int, int], ...]:
        """slice: the process's cell in each plane of each direction."""
        return tuple({self.coord(c)[d]: c for c in range(self.ncells)} for d in range(3))

    def successor(self, direction: int) -> int:
        i, j = self.ij
        p = self.ncells
        di, dj = ((1, 0), (0, 1), (-1, 1))[direction]
        return (i + di) % p + p * ((j + dj) % p)

    def predecessor(self, direction: int) -> int:
        i, j = self.ij
        p = self.ncells
        di, dj = ((-1, 0), (0, -1), (1, -1))[direction]
        return (i + di) % p + p * ((j + dj) % p)

    def extent(self, cell: int, axis: int) -> tuple[int, int]:
        """(points, points off the physical boundary) of a cell along an axis."""
        points, low = split(self.size, self.ncells, self.coord(cell)[axis])
        interior = points - (low == 0) - (low + points == self.size)
        return points, interior

    def points(self, cell: int) -> int:
        return self.extent(cell, 0)[0] * self.extent(cell, 1)[0] * self.extent(cell, 2)[0]

    def face(self, cell: int, axis: int, interior: bool = False) -> int:
        """Points of the cell's face normal to `axis`."""
        a, b = (d for d in range(3) if d != axis)
        k = 1 if interior else 0
        return self.extent(cell, a)[k] * self.extent(cell, b)[k]

    def face_bytes(self, axis: int, towards_successor: bool) -> int:
        """One copy_faces message: two layers of 5 variables of every inner cell face."""
        edge = self.ncells - 1 if towards_successor else 0
        return sum(2 * 5 * DOUBLE * self.face(c, axis) for c in range(self.ncells) if self.coord(c)[axis] != edge)


@dataclass(frozen=True)
class Solver:
    """What SP and BT do differently in the same multi-partition skeleton."""

    forward_bytes: Callable[[Cells, int, int], int]  # (cells, cell, direction) -> bytes
    backward_bytes: Callable[[Cells, int, int], int]
    forward_tag: Callable[[Cells, int, int], int]
    backward_tag: Callable[[Cells, int, int], int]
    waits_send_first: bool  # BT waits for its previous send, then the receive; SP the other way
    input_bcasts: tuple[int, ...]  # bytes of each bcast of the main program's input
    # cost per cell point of: pack (copy_faces buffers), rhs, pre (before the solves), overlap (while a
    # forward receive is pending), forward, backward, add (iteration units: a point of rhs); and of
    # the set-up's initialize, exact_rhs and the norms of verify (set-up units: a point of
    # exact_rhs); a missing routine costs nothing
    weights: dict[str, float]
    setup_weights: dict[str, float]


class MultiPartition:
    def __init__(self, params: Params, size: int, iterations: int, solver: Solver, costs: Costs):
        self.params = params
        self.size = size
        self.iterations = iterations
        self.solver = solver
        self.costs = costs
        self.ncells = exact_sqrt(params.procs)
        self.cells = [Cells(node, self.ncells, size) for node in range(params.procs)]

    def work(self, r: Rank, routine: str, points: int) -> None:
        if routine in self.solver.setup_weights:
            r.compute(self.costs.setup_ns * self.solver.setup_weights[routine] * points)
        else:
            r.compute(self.costs.iteration_ns * self.solver.weights.get(routine, 0.0) * points)

    def all_points(self, cells: Cells) -> int:
        return sum(cells.points(c) for c in range(self.ncells))

    def copy_faces(self, r: Rank, me: Cells) -> None:
        """Swap cell faces with the six neighbours, then compute the right-hand side."""
        self.work(r, "pack", self.all_points(me))
        received = []
        for axis in range(3):
            successor, predecessor = self.cells[me.successor(axis)], self.cells[me.predecessor(axis)]
            received.append(r.irecv(successor.node, successor.face_bytes(axis, False), TOWARDS_PREDECESSOR[axis],
                                    COMM_RHS))
            received.append(r.irecv(predecessor.node, predecessor.face_bytes(axis, True), TOWARDS_SUCCESSOR[axis],
                                    COMM_RHS))
        sent = []
        for axis in range(3):
            sent.append(r.isend(me.successor(axis), me.face_bytes(axis, True), TOWARDS_SUCCESSOR[axis], COMM_RHS))
            sent.append(r.isend(me.predecessor(axis), me.face_bytes(axis, False), TOWARDS_PREDECESSOR[axis], COMM_RHS))
        r.wait(*received, *sent)
        self.work(r, "rhs", self.all_points(me))

    def _waits(self, r: Rank, receive: int, send: int | None) -> None:
        """BT: mpi_wait for the send, then for the receive; SP: one waitall of both."""
        if self.solver.waits_send_first:
            for req in (send, receive):
                if req is not None:
                    r.wait(req)
        else:
            r.wait(*(req for req in (receive, send) if req is not None))

    def line_solve(self, r: Rank, me: Cells, direction: int) -> None:
        """Forward elimination along the direction, then back substitution."""
        s = self.solver
        successor, predecessor = me.successor(direction), me.predecessor(direction)
        stages = me.by_plane[direction]
        send = None
        for stage in range(self.ncells):
            cell = stages[stage]
            if stage > 0:
                receive = r.irecv(predecessor, s.forward_bytes(me, cell, direction), s.forward_tag(me, cell, direction),
                                  COMM_SOLVE)
                self.work(r, "overlap", me.points(cell))  # SP builds the cell's lhs meanwhile
                self._waits(r, receive, send)
            self.work(r, "forward", me.points(cell))
            if stage < self.ncells - 1:
                send = r.isend(successor, s.forward_bytes(me, cell, direction), s.forward_tag(me, cell, direction),
                               COMM_SOLVE)
        for stage in range(self.ncells - 1, -1, -1):
            cell = stages[stage]
            if stage < self.ncells - 1:
                receive = r.irecv(successor, s.backward_bytes(me, cell, direction),
                                  s.backward_tag(me, cell, direction), COMM_SOLVE)
                self._waits(r, receive, send)
            self.work(r, "backward", me.points(cell))
            send = None
            if stage > 0:
                send = r.isend(predecessor, s.backward_bytes(me, cell, direction),
                               s.backward_tag(me, cell, direction), COMM_SOLVE)

    def adi(self, r: Rank, me: Cells) -> None:
        """One time step."""
        self.copy_faces(r, me)
        self.work(r, "pre", self.all_points(me))
        for direction in range(3):
            self.line_solve(r, me, direction)
        self.work(r, "add", self.all_points(me))

    def program(self, r: Rank) -> Iterator[None]:
        me = self.cells[r.rank]
        for nbytes in self.solver.input_bcasts:
            r.bcast(0, nbytes, comm=COMM_SETUP)
        points = self.all_points(me)
        self.work(r, "initialize", points)
        self.work(r, "exact_rhs", points)
        self.adi(r, me)  # untimed
        self.work(r, "initialize", points)
        r.barrier(comm=COMM_SETUP)
        for _ in range(self.iterations):
            self.adi(r, me)
            yield
        self.verify(r, me)
        r.reduce(0, DOUBLE, comm=COMM_SETUP)  # the timer's maximum
        r.barrier()

    def verify(self, r: Rank, me: Cells) -> None:
        """The source's verify: error norm, a last rhs, its norm."""
        self.work(r, "error_norm", self.all_points(me))
        r.allreduce(5 * DOUBLE, comm=COMM_SETUP)
        self.copy_faces(r, me)
        self.work(r, "rhs_norm", self.all_points(me))
        r.allreduce(5 * DOUBLE, comm=COMM_SETUP)


def build_workload(name: str, params: Params, classes: dict[str, tuple[int, int]], solver: Solver,
                   costs: Costs | None, jitter: float | None, block: str = "") -> Workload:
    """SP and BT share everything but their solver: grid, steps and the structure note."""
    costs = costs or COSTS[(name, params.cls)]
    size, full = classes[params.cls]
    iterations = scaled(full, params.scale)
    mp = MultiPartition(params, size, iterations, solver, costs)
    notes = [
        f"{name} class {params.cls}: {size}^3 grid, {iterations} of {full} time steps (scale {params.scale:g})",
        f"follows the NPB MPI {name} structure: multi-partition with {mp.ncells}x{mp.ncells} cells per plane, "
        f"copy_faces with 6 neighbours, x/y/z {block}line solves sending to successor cells forward and to "
        "predecessors backward; input bcasts, set-up, the untimed time step and verify included",
    ]
    comms = {comm: list(range(params.procs)) for comm in (COMM_SETUP, COMM_SOLVE, COMM_RHS)}
    return Workload(params, iterations, full, notes, programs(params, mp.program, costs.call_gap_ns, jitter),
                    comms=comms, machine=machine_for(name, params.cls))
