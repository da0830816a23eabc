"""NAS CG: conjugate gradient on a random sparse matrix, NPB 3.4 MPI structure.

Processes form an nprows x npcols grid (npcols = nprows or 2 nprows, so P
must be a power of two). Each outer iteration runs conj_grad: 25 CG
iterations, each a local sparse matrix-vector product followed by
  - a row reduction of the product vector: log2(npcols) pairwise exchanges
    (irecv/send/wait) with the partners of recursive halving in the row,
  - an exchange with the "transpose" process (row and column swapped),
  - two scalar sums (p.q and r.r) over the same row partners, 8 bytes each;
then a residual product with the same pattern, and the outer iteration's
norm (16 bytes) over the row partners. Partners, lengths and tags are those
of setup_submatrix_info / conj_grad in the NPB MPI source. The whole run is
modelled, as a capture records it: the bcast of the timer flag, makea, the
untimed warm-up iteration, the barrier that starts the timer, `niter`
iterations and the timer's reduce.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from .common import Params, Workload, is_power_of_two, programs, scaled, split
from .machine import COSTS, Costs, machine_for
from .program import Rank

NAME = "CG"
PROCS_RULE = "a power of two"
# class: (na, nonzer, niter); cgitmax is 25 for every class
CLASSES = {"S": (1400, 7, 15), "W": (7000, 8, 15), "A": (14000, 11, 15)}
CG_ITERATIONS = 25
DOUBLE = 8
LOGICAL = 4


def procs_problem(procs: int) -> str | None:
    return None if is_power_of_two(procs) and procs >= 2 else f"{NAME} needs {PROCS_RULE} of at least 2 processes"


@dataclass(frozen=True)
class Layout:
    """One process's place in the CG grid (NPB setup_proc_info / setup_submatrix_info)."""

    me: int
    procs: int
    na: int

    @cached_property
    def npcols(self) -> int:
        return 1 << ((self.procs.bit_length()) // 2)  # 2^ceil(k/2) for P = 2^k

    @property
    def nprows(self) -> int:
        return self.procs // self.npcols

    @property
    def square(self) -> bool:
        return self.npcols == self.nprows

    @property
    def proc_row(self) -> int:
        return self.me // self.npcols

    @property
    def proc_col(self) -> int:
        return self.me % self.npcols

    @cached_property
    def rows(self) -> int:
        return split(self.na, self.nprows, self.proc_row)[0]

    @cached_property
    def cols(self) -> int:
        if self.square:
            return split(self.na, self.npcols, self.proc_col)[0]
        pair_cols = split(self.na, self.npcols // 2, self.proc_col // 2)[0]
        return (pair_cols - 1) // 2 + 1 if self.me % 2 == 0 else pair_cols // 2

    @property
    def send_len(self) -> int:
        if self.square:
            return self.rows
        return (1 + self.rows) // 2 if self.me % 2 == 0 else self.rows // 2

    @property
    def transpose_partner(self) -> int:
        if self.square:
            return (self.me % self.nprows) * self.nprows + self.me // self.nprows
        half = self.me // 2
        return 2 * ((half % self.nprows) * self.nprows + half // self.nprows) + self.me % 2

    @property
    def steps(self) -> int:
        """l2npcols: the number of row-reduction steps."""
        return self.npcols.bit_length() - 1

    def partner(self, step: int) -> int:
        """reduce_exch_proc(step), step = 1 .. steps."""
        div = self.npcols >> (step - 1)
        j = (self.proc_col + div // 2) % div + self.proc_col // div * div
        return self.proc_row * self.npcols + j

    def reduce_send_len(self, step: int) -> int:
        if not self.square and step == self.steps:
            return self.rows - self.send_len
        return self.send_len


class CG:
    """Units: a nonzero of the local matrix block or an element of a local
    vector in the iterations; an element of the outer products makea forms
    for every row of the matrix (each process forms them all) in the set-up."""

    def __init__(self, params: Params, costs: Costs):
        self.params = params
        self.costs = costs
        self.na, self.nonzer, self.full_iterations = CLASSES[params.cls]
        self.iterations = scaled(self.full_iterations, params.scale)
        self.layouts = [Layout(me, params.procs, self.na) for me in range(params.procs)]
        # NPB's bound on the matrix's nonzeros, na (nonzer + 1)^2, spread over the grid
        self.nnz_local = self.na * (self.nonzer + 1) ** 2 / params.procs

    def work(self, r: Rank, units: float) -> None:
        r.compute(self.costs.iteration_ns * units)

    def program(self, r: Rank) -> Iterator[None]:
        me = self.layouts[r.rank]
        r.bcast(0, LOGICAL)  # initialize_mpi: timeron
        r.compute(self.costs.setup_ns * self.na * (self.nonzer + 1) ** 2)  # makea
        self.iteration(r, me)  # untimed warm-up
        self.work(r, me.cols)  # x = 1
        r.barrier()
        for _ in range(self.iterations):
            self.iteration(r, me)
            yield
        r.reduce(0, DOUBLE)  # the timer's maximum
        r.compute(self.costs.setup_ns * me.cols)  # verification

    def iteration(self, r: Rank, me: Layout) -> None:
        self.conj_grad(r, me)
        self.work(r, 2 * me.cols)  # x.z and z.z
        self.scalar_sum(r, me, 2)
        self.work(r, me.cols)  # x = z / ||z||

    def conj_grad(self, r: Rank, me: Layout) -> None:
        self.work(r, 2 * me.cols)  # initialise q, z, r, p; r.r
        self.scalar_sum(r, me, 1)
        for _ in range(CG_ITERATIONS):
            self.matvec_and_sum(r, me)
            self.work(r, me.cols)  # p.q
            self.scalar_sum(r, me, 1)
            self.work(r, 3 * me.cols)  # z += alpha p, r -= alpha q, r.r
            self.scalar_sum(r, me, 1)
            self.work(r, me.cols)  # p = r + beta p
        self.matvec_and_sum(r, me)  # residual ||x - A z||
        self.work(r, me.cols)
        self.scalar_sum(r, me, 1)

    def matvec_and_sum(self, r: Rank, me: Layout) -> None:
        """q = A.p: local product, row reduction, transpose exchange."""
        self.work(r, self.nnz_local)
        for step in range(me.steps, 0, -1):
            peer = self.layouts[me.partner(step)]
            r.exchange(peer.me, DOUBLE * me.reduce_send_len(step), DOUBLE * peer.reduce_send_len(step), step)
            self.work(r, peer.reduce_send_len(step))  # w += q
        partner = self.layouts[me.transpose_partner]
        if me.steps:  # the diagonal processes swap with themselves, as the source does (no network message)
            r.exchange(partner.me, DOUBLE * me.send_len, DOUBLE * partner.send_len, 1)

    def scalar_sum(self, r: Rank, me: Layout, doubles: int) -> None:
        """A sum over the row by recursive doubling, as the source codes it by hand."""
        for step in range(1, me.steps + 1):
            r.exchange(me.partner(step), DOUBLE * doubles, DOUBLE * doubles, step)


def build(params: Params, costs: Costs | None = None, jitter: float | None = None) -> Workload:
    costs = costs or COSTS[(NAME, params.cls)]
    cg = CG(params, costs)
    first = cg.layouts[0]
    notes = [
        f"CG class {params.cls}: na={cg.na} nonzer={cg.nonzer}, {cg.iterations} of {cg.full_iterations} "
        f"iterations (scale {params.scale:g}) x {CG_ITERATIONS} CG steps",
        f"follows the NPB MPI CG structure: {first.nprows}x{first.npcols} process grid, row reduction by "
        f"recursive halving exchanges, transpose-partner exchange, scalar sums by recursive doubling; "
        "set-up and the untimed warm-up iteration included",
    ]
    return Workload(params, cg.iterations, cg.full_iterations, notes,
                    programs(params, cg.program, costs.call_gap_ns, jitter), machine=machine_for(NAME, params.cls))
