"""NAS CG: conjugate gradient on a random sparse matrix, NPB 2.x/3.x MPI structure.

Processes form an nprows x npcols grid (npcols = nprows or 2 nprows, so P
must be a power of two). Each of `niter` outer iterations runs conj_grad:
25 CG iterations, each a local sparse matrix-vector product followed by
  - a row reduction of the product vector: log2(npcols) pairwise exchanges
    (irecv/send/wait) with the partners of recursive halving in the row,
  - an exchange with the "transpose" process (row and column swapped),
  - two scalar sums (p.q and r.r) over the same row partners, 8 bytes each;
then a residual product with the same pattern, and the outer iteration's
norm (16 bytes) over the row partners. Partners, lengths and tags are those
of setup_submatrix_info / conj_grad in the NPB MPI source. The untimed
warm-up iteration of the source is left out (the traces model the timed part).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from .common import Params, Workload, is_power_of_two, programs, scaled, split
from .program import Rank

NAME = "CG"
PROCS_RULE = "a power of two"
# class: (na, nonzer, niter); cgitmax is 25 for every class
CLASSES = {"S": (1400, 7, 15), "W": (7000, 8, 15), "A": (14000, 11, 15)}
CG_ITERATIONS = 25
DOUBLE = 8

# Calibrated so that class A on 16 processes takes Table 1's 3.72 s on the
# timeline's machine model (docs/workloads.md).
NS_PER_UNIT = 60.84


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
    def __init__(self, params: Params):
        self.params = params
        self.na, self.nonzer, self.full_iterations = CLASSES[params.cls]
        self.iterations = scaled(self.full_iterations, params.scale)
        self.layouts = [Layout(me, params.procs, self.na) for me in range(params.procs)]
        # NPB's bound on the matrix's nonzeros, na (nonzer + 1)^2, spread over the grid
        self.nnz_local = self.na * (self.nonzer + 1) ** 2 / params.procs

    def program(self, r: Rank) -> Iterator[None]:
        me = self.layouts[r.rank]
        for _ in range(self.iterations):
            self.conj_grad(r, me)
            r.compute(NS_PER_UNIT * 2 * me.cols)  # x.z and z.z
            self.scalar_sum(r, me, 2)
            r.compute(NS_PER_UNIT * me.cols)  # x = z / ||z||
            yield
        r.reduce(0, DOUBLE)  # the timer's maximum, as the source ends

    def conj_grad(self, r: Rank, me: Layout) -> None:
        r.compute(NS_PER_UNIT * 2 * me.cols)  # initialise q, z, r, p; r.r
        self.scalar_sum(r, me, 1)
        for _ in range(CG_ITERATIONS):
            self.matvec_and_sum(r, me)
            r.compute(NS_PER_UNIT * me.cols)  # p.q
            self.scalar_sum(r, me, 1)
            r.compute(NS_PER_UNIT * 3 * me.cols)  # z += alpha p, r -= alpha q, r.r
            self.scalar_sum(r, me, 1)
            r.compute(NS_PER_UNIT * me.cols)  # p = r + beta p
        self.matvec_and_sum(r, me)  # residual ||x - A z||
        r.compute(NS_PER_UNIT * me.cols)
        self.scalar_sum(r, me, 1)

    def matvec_and_sum(self, r: Rank, me: Layout) -> None:
        """q = A.p: local product, row reduction, transpose exchange."""
        r.compute(NS_PER_UNIT * self.nnz_local)
        for step in range(me.steps, 0, -1):
            peer = self.layouts[me.partner(step)]
            r.exchange(peer.me, DOUBLE * me.reduce_send_len(step), DOUBLE * peer.reduce_send_len(step), step)
            r.compute(NS_PER_UNIT * peer.reduce_send_len(step))  # w += q
        partner = self.layouts[me.transpose_partner]
        if me.steps and partner.me != me.me:  # diagonal processes swap with themselves: no message
            r.exchange(partner.me, DOUBLE * me.send_len, DOUBLE * partner.send_len, 1)

    def scalar_sum(self, r: Rank, me: Layout, doubles: int) -> None:
        """A sum over the row by recursive doubling, as the source codes it by hand."""
        for step in range(1, me.steps + 1):
            r.exchange(me.partner(step), DOUBLE * doubles, DOUBLE * doubles, step)


def build(params: Params) -> Workload:
    cg = CG(params)
    first = cg.layouts[0]
    notes = [
        f"CG class {params.cls}: na={cg.na} nonzer={cg.nonzer}, {cg.iterations} of {cg.full_iterations} "
        f"iterations (scale {params.scale:g}) x {CG_ITERATIONS} CG steps",
        f"follows the NPB MPI CG structure: {first.nprows}x{first.npcols} process grid, row reduction by "
        f"recursive halving exchanges, transpose-partner exchange, scalar sums by recursive doubling",
    ]
    return Workload(params, cg.iterations, cg.full_iterations, notes, programs(params, cg.program))
