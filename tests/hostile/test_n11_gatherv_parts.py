"""Issue 27, item 11: `trace validate` accepted a gatherv whose member sends 17 bytes while the root's counts list
says 16, and the replay used 17. A gatherv or scatterv member's own part must be what the root lists for it,
whichever of the two calls comes first in the trace (traces/trace_checker.cpp, compare_parts).
"""

import pytest

from .engine import run

pytestmark = pytest.mark.unit


def vector_trace(path, op: str, root_counts: str, member_counts: str, root_first: bool):
    """Two ranks, one OP on the world with root 0: the root's line and rank 1's, in the order asked."""
    root = f"0 0 10 {op} 0 0 {root_counts}"
    member = f"1 0 10 {op} 0 0 {member_counts}"
    lines = [root, member] if root_first else [member, root]
    path.write_text("ibsec-trace 2\nprocesses 2\ntime_unit ns\norigin synthetic hostile test\nevents\n"
                    + "\n".join(lines) + "\nend 2\n")
    return path


@pytest.mark.parametrize("op", ["gatherv", "scatterv"])
@pytest.mark.parametrize("root_first", [True, False])
def test_n11_a_member_part_other_than_the_roots_count_is_refused(tmp_path, op, root_first):
    """Item 11: the issue's trace (16 listed by the root, 17 given by rank 1), in both orders."""
    trace = vector_trace(tmp_path / "v.trace", op, "8,16", "0,17", root_first)
    result = run("trace", "validate", str(trace))
    assert result.returncode == 2
    error = result.stderr.strip()
    assert error.startswith(f"ibsec-engine: error: {trace}:") and "counts" in error
    assert "17" in error and "16" in error


@pytest.mark.parametrize("op", ["gatherv", "scatterv"])
@pytest.mark.parametrize("root_first", [True, False])
def test_n11_matching_parts_are_valid(tmp_path, op, root_first):
    """Item 11: the counterpart: the same collective with the parts agreeing validates."""
    trace = vector_trace(tmp_path / "v.trace", op, "8,16", "0,16", root_first)
    result = run("trace", "validate", str(trace))
    assert result.returncode == 0, result.stderr


def test_n11_a_replay_of_the_mismatched_trace_is_refused(tmp_path):
    """Item 11: `run --trace` checks the trace the same way before replaying it."""
    from .engine import PAPER16

    trace = vector_trace(tmp_path / "v.trace", "gatherv", "8,16", "0,17", True)
    result = run("run", PAPER16, "-q", "--trace", str(trace))
    assert result.returncode == 2 and "counts" in result.stderr
