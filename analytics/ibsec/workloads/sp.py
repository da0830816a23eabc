"""NAS SP: scalar penta-diagonal ADI solver, NPB 2.x/3.x MPI multi-partition structure.

Each time step (adi): copy_faces, txinvr, then x, y and z line solves over
the c = sqrt(P) cells of every line (multipartition.py), then add. A forward
stage sends the last two rows of the three scalar systems and the two
factored ones: 22 doubles per point of the cell's face off the physical
boundary; back substitution sends 10 doubles per such point. All solve
messages carry the source's DEFAULT_TAG (0). SP posts the receive, builds the
cell's left-hand side, then waits for receive and previous send (waitall).
"""

from __future__ import annotations

from . import multipartition
from .common import Params, Workload
from .machine import Costs
from .multipartition import DOUBLE, INTEGER, Cells, Solver

NAME = "SP"
CLASSES = {"S": (12, 100), "W": (36, 400), "A": (64, 400)}  # grid points per axis, niter
DEFAULT_TAG = 0


def procs_problem(procs: int) -> str | None:
    return multipartition.procs_problem(NAME, procs)


def class_problem(procs: int, cls: str) -> str | None:
    return multipartition.class_problem(NAME, CLASSES[cls][0], procs, cls)


def _face_off_boundary(cells: Cells, cell: int, direction: int) -> int:
    return cells.face(cell, direction, interior=True)


SOLVER = Solver(
    forward_bytes=lambda cells, cell, d: 22 * DOUBLE * _face_off_boundary(cells, cell, d),
    backward_bytes=lambda cells, cell, d: 10 * DOUBLE * _face_off_boundary(cells, cell, d),
    forward_tag=lambda cells, cell, d: DEFAULT_TAG,
    backward_tag=lambda cells, cell, d: DEFAULT_TAG,
    waits_send_first=False,
    input_bcasts=(INTEGER, DOUBLE, 3 * INTEGER, INTEGER),  # niter, dt, grid_points, timeron
    weights={"pack": 0.1, "rhs": 1.0, "pre": 0.2, "overlap": 0.35, "forward": 0.55, "backward": 0.35,
             "add": 0.05},
    setup_weights={"initialize": 0.3, "exact_rhs": 1.0, "error_norm": 0.1, "rhs_norm": 0.05},
)


def build(params: Params, costs: Costs | None = None, jitter: float | None = None) -> Workload:
    return multipartition.build_workload("SP", params, CLASSES, SOLVER, costs, jitter)
