"""NAS BT: block tri-diagonal ADI solver, NPB 2.x/3.x MPI multi-partition structure.

Each time step (adi): copy_faces, then x, y and z line solves over the
c = sqrt(P) cells of every line (multipartition.py), then add. BT's buffers
have a fixed size, MAX_CELL_DIM^2 points with MAX_CELL_DIM = size / c + 1:
a forward stage sends a 5x5 block and a 5-vector per point (30 doubles),
back substitution a 5-vector (5 doubles). Tags encode the line:
WEST/EAST + jp + kp*c for x, SOUTH/NORTH + ip + kp*c for y, BOTTOM/TOP +
ip + jp*c for z. BT waits for its previous send, then the receive.
"""

from __future__ import annotations

from . import multipartition
from .common import Params, Workload
from .machine import Costs
from .multipartition import BOTTOM, DOUBLE, EAST, INTEGER, NORTH, SOUTH, TOP, WEST, Cells, Solver

NAME = "BT"
CLASSES = {"S": (12, 60), "W": (24, 200), "A": (64, 200)}  # grid points per axis, niter
BLOCK = 5
FORWARD_TAGS = (WEST, SOUTH, BOTTOM)
BACKWARD_TAGS = (EAST, NORTH, TOP)


def procs_problem(procs: int) -> str | None:
    return multipartition.procs_problem(NAME, procs)


def class_problem(procs: int, cls: str) -> str | None:
    return multipartition.class_problem(NAME, CLASSES[cls][0], procs, cls)


def _buffer_points(cells: Cells) -> int:
    max_cell_dim = cells.size // cells.ncells + 1
    return max_cell_dim * max_cell_dim


def _line_tag(base: tuple[int, int, int]):
    """The tag of a line: base + the cell's coordinates on the other two axes."""
    def tag(cells: Cells, cell: int, direction: int) -> int:
        a, b = (cells.coord(cell)[axis] for axis in range(3) if axis != direction)
        return base[direction] + a + b * cells.ncells
    return tag


SOLVER = Solver(
    forward_bytes=lambda cells, cell, d: (BLOCK * BLOCK + BLOCK) * DOUBLE * _buffer_points(cells),
    backward_bytes=lambda cells, cell, d: BLOCK * DOUBLE * _buffer_points(cells),
    forward_tag=_line_tag(FORWARD_TAGS),
    backward_tag=_line_tag(BACKWARD_TAGS),
    waits_send_first=True,
    # niter, dt, grid_points, wr_interval, rd_interval, timeron
    input_bcasts=(INTEGER, DOUBLE, 3 * INTEGER, INTEGER, INTEGER, INTEGER),
    weights={"pack": 0.1, "rhs": 1.0, "forward": 2.6, "backward": 0.4, "add": 0.05},
    setup_weights={"initialize": 0.3, "exact_rhs": 1.0, "error_norm": 0.1, "rhs_norm": 0.05},
)


def build(params: Params, costs: Costs | None = None, jitter: float | None = None) -> Workload:
    return multipartition.build_workload("BT", params, CLASSES, SOLVER, costs, jitter, block="block ")
