"""The comparison helpers of the OTF2 conformance test (trace_conformance.py): each comparison passes on two
traces that agree and fails when one trace is perturbed in the one respect it checks."""

import copy

import pytest
from trace_conformance import (
    compare_collectives,
    compare_point_to_point,
    compare_replays,
    even_spread,
    read_calls,
    spread_alltoallv,
)

from ibsec.traces.reader import TraceError

pytestmark = pytest.mark.unit

# A captured trace: a pair exchange, a rooted collective on a sub-communicator, an alltoallv.
CAPTURED = """ibsec-trace 2
processes 3
time_unit ns
origin captured hand-written
comm 1 1 2
events
0 0 10 send 1 100 5 0
1 0 20 recv 0 100 5 0 exact
1 20 30 bcast 1 2 8
2 20 30 bcast 1 2 8
0 30 40 alltoallv 0 1,2,3
1 30 40 alltoallv 0 7,0,0
2 30 40 alltoallv 0 0,0,0
end 7
"""
# The same run as imported from OTF2: the alltoallv counts spread evenly over the members.
IMPORTED = (CAPTURED.replace("origin captured hand-written", "origin captured imported")
            .replace("alltoallv 0 1,2,3", "alltoallv 0 2,2,2").replace("alltoallv 0 7,0,0", "alltoallv 0 3,2,2"))


def calls(tmp_path, text, name="t.trace"):
    """read_calls of TEXT, whose `end` line is made to count its events again after a perturbation."""
    header, events = text.split("events\n")
    lines = [line for line in events.splitlines() if not line.startswith("end ")]
    path = tmp_path / name
    path.write_text(f"{header}events\n" + "".join(f"{line}\n" for line in lines) + f"end {len(lines)}\n")
    return read_calls(path)


def test_traces_that_agree_up_to_the_documented_approximation_pass(tmp_path, engine):
    captured, imported = calls(tmp_path, CAPTURED, "a"), calls(tmp_path, IMPORTED, "b")
    compare_point_to_point(captured, imported)
    compare_collectives(captured, imported)


@pytest.mark.parametrize("perturbed, found", [
    ("0 0 10 send 1 101 5 0\n1 0 20 recv 0 101 5 0 exact", "bytes sent 0->1"),
    ("0 0 10 send 1 100 5 0\n0 10 11 send 0 4 6 0\n0 11 12 recv 0 4 6 0 exact\n1 0 20 recv 0 100 5 0 exact",
     "messages sent 0->0"),
])
def test_point_to_point_differences_are_found(tmp_path, engine, perturbed, found):
    changed = CAPTURED.replace("0 0 10 send 1 100 5 0\n1 0 20 recv 0 100 5 0 exact", perturbed)
    with pytest.raises(AssertionError, match=found):
        compare_point_to_point(calls(tmp_path, CAPTURED, "a"), calls(tmp_path, changed, "b"))


@pytest.mark.parametrize("old, new, found", [
    ("1 20 30 bcast 1 2 8\n2 20 30 bcast 1 2 8", "1 20 30 bcast 1 1 8\n2 20 30 bcast 1 1 8", "call #1"),
    ("1 20 30 bcast 1 2 8\n2 20 30 bcast 1 2 8", "1 20 30 bcast 1 2 9\n2 20 30 bcast 1 2 9", "call #1"),
    ("1 20 30 bcast 1 2 8\n2 20 30 bcast 1 2 8", "1 20 30 reduce 1 2 8\n2 20 30 reduce 1 2 8", "call #1"),
    ("1 20 30 bcast 1 2 8\n2 20 30 bcast 1 2 8\n", "", "captured 1 collective calls, imported 0"),
    ("alltoallv 0 3,2,2", "alltoallv 0 2,3,2", "rank 1 on communicator 0,1,2, call #1"),  # not the documented spread
])
def test_collective_differences_are_found(tmp_path, engine, old, new, found):
    changed = IMPORTED.replace(old, new)
    assert changed != IMPORTED
    with pytest.raises(AssertionError, match=found):
        compare_collectives(calls(tmp_path, CAPTURED, "a"), calls(tmp_path, changed, "b"))


def test_an_unknown_op_is_an_error_naming_line_and_field(tmp_path, engine):
    with pytest.raises(TraceError, match=r"t.trace:7: field 'op': 'sned'"):
        calls(tmp_path, CAPTURED.replace("0 0 10 send", "0 0 10 sned"))


def test_even_spread_gives_the_remainder_to_the_first_members():
    assert even_spread(7, 3) == (3, 2, 2)
    assert even_spread(65536, 4) == (16384,) * 4
    assert sum(even_spread(65537, 4)) == 65537


def test_spread_alltoallv_rewrites_only_alltoallv_counts(tmp_path, engine):
    (tmp_path / "c.trace").write_text(CAPTURED)
    assert spread_alltoallv(tmp_path / "c.trace", tmp_path / "s.trace") == 3
    assert (tmp_path / "s.trace").read_text() == IMPORTED.replace("origin captured imported",
                                                                 "origin captured hand-written")


RESULT = {"statistics": {"packets_delivered": 1000, "skc_hit_rate": 0.999, "latency_mean_ns": 2000.0}}


@pytest.mark.parametrize("field, value, found", [
    ("packets_delivered", 1001, "packets"),
    ("skc_hit_rate", 0.996, "hit rate"),
    ("latency_mean_ns", 2501.0, "mean latency"),
])
def test_replay_differences_beyond_the_tolerances_are_found(field, value, found):
    compare_replays(RESULT, RESULT)
    near = copy.deepcopy(RESULT)
    near["statistics"].update(skc_hit_rate=0.9975, latency_mean_ns=2490.0)
    compare_replays(RESULT, near)  # within the tolerances
    other = copy.deepcopy(RESULT)
    other["statistics"][field] = value
    with pytest.raises(AssertionError, match=found):
        compare_replays(RESULT, other)
