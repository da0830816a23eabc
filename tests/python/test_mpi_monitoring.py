"""Checking a captured trace against Open MPI's monitoring (mpi_monitoring.py, used by test_npb.py), without
MPI: reading the monitoring files, counting a trace's traffic the way Open MPI does, and the comparisons and the
failures they name."""

import textwrap
from collections import Counter

import pytest

from conftest import run_engine
from mpi_monitoring import (
    CollectiveCallsMissing,
    Monitoring,
    SelfMessagesMissing,
    TraceTraffic,
    compare_collectives,
    compare_point_to_point,
    compare_runs,
    monitored_as,
    read_monitoring,
    read_trace_traffic,
)

pytestmark = pytest.mark.unit

HISTOGRAM = ",".join(["0"] * 66)


@pytest.fixture
def monitoring_files(tmp_path):
    """Two processes as Open MPI 4.1 writes them: rank 0 sent 3 messages to 1 and 1 to itself; a split of the
    world into a communicator of both; rank 0 bcast 8 B twice on the world (O2A at the root only)."""
    (tmp_path / "prof.0.prof").write_text(textwrap.dedent(f"""\
        # POINT TO POINT
        E\t0\t0\t24 bytes\t1 msgs sent\t{HISTOGRAM}
        E\t0\t1\t96 bytes\t3 msgs sent\t{HISTOGRAM}
        I\t0\t1\t4 bytes\t1 msgs sent
        # OSC
        # COLLECTIVES
        C\t0\t1\t20 bytes\t2 msgs sent
        D\tMPI_COMM_WORLD\tprocs: 0,1
        O2A\t0\t16 bytes\t2 msgs sent
        A2O\t0\t0 bytes\t0 msgs sent
        A2A\t0\t0 bytes\t0 msgs sent
        D\tMPI COMMUNICATOR 3 SPLIT FROM 0\tprocs: 1,0
        O2A\t0\t0 bytes\t0 msgs sent
        A2O\t0\t0 bytes\t0 msgs sent
        A2A\t0\t8 bytes\t1 msgs sent
        """))
    (tmp_path / "prof.1.prof").write_text(textwrap.dedent("""\
        # POINT TO POINT
        # OSC
        # COLLECTIVES
        D\tMPI_COMM_WORLD\tprocs: 0,1
        O2A\t1\t0 bytes\t0 msgs sent
        A2O\t1\t0 bytes\t0 msgs sent
        A2A\t1\t0 bytes\t0 msgs sent
        """))
    return tmp_path / "prof"


def test_monitoring_files_are_read_point_to_point_external_tags_only(monitoring_files):
    seen = read_monitoring(monitoring_files, 2)
    assert seen.messages == Counter({(0, 0): 1, (0, 1): 3}) and seen.bytes == Counter({(0, 0): 24, (0, 1): 96})
    collectives = seen.collectives()
    assert collectives[(0, (0, 1))]["O2A"] == 2 and collectives[(0, (0, 1))]["O2A bytes"] == 16
    assert collectives[(0, (1, 0))]["A2A"] == 1
    assert seen.parents() == {(0, 1)}  # the world: communicator 3 was split from it


def test_a_missing_monitoring_file_is_named(monitoring_files):
    with pytest.raises(AssertionError, match=r"prof\.2\.prof: Open MPI's monitoring wrote no file for rank 2"):
        read_monitoring(monitoring_files, 3)


def test_a_malformed_monitoring_line_is_named(tmp_path):
    (tmp_path / "prof.0.prof").write_text("E\t0\t1\tmany bytes\t1 msgs sent\n")
    with pytest.raises(ValueError, match=r"prof\.0\.prof:1: expected '<number> bytes', found 'many bytes'"):
        read_monitoring(tmp_path / "prof", 1)


@pytest.mark.parametrize(("op", "me", "root", "nbytes", "counts", "expected"), [
    ("barrier", 2, None, 0, None, ("A2A", 0)),
    ("allreduce", 0, None, 8, None, ("A2A", 24)),
    ("bcast", 1, 1, 8, None, ("O2A", 24)),
    ("bcast", 0, 1, 8, None, None),
    ("reduce", 3, 3, 16, None, ("A2O", 48)),
    ("alltoallv", 1, None, 10, [1, 2, 3, 4], ("A2A", 8)),
    ("allgatherv", 2, None, 10, [1, 2, 3, 4], ("A2A", 9)),
    ("gatherv", 0, 0, 10, [1, 2, 3, 4], ("A2O", 9)),
    ("scatterv", 0, 0, 10, [1, 2, 3, 4], ("O2A", 10)),
    ("scan", 1, None, 8, None, ("A2A", 24)),
])
def test_collectives_are_counted_as_open_mpi_counts_them(op, me, root, nbytes, counts, expected):
    assert monitored_as(op, 4, me, root, nbytes, counts) == expected


TRACE = """\
ibsec-trace 2
processes 3
time_unit ns
origin synthetic npb-tools
comm 1 2 0
events
0 0 10 send 1 100 7 0
1 0 20 recv 0 100 7 0 exact
2 0 40 compute
0 10 20 isend 0 8 1 5 0
0 20 30 recv 0 8 1 0 exact
0 30 40 wait 5
0 40 50 alltoallv 0 1,2,3
1 40 50 alltoallv 0 4,5,6
2 40 50 alltoallv 0 7,8,9
0 50 60 bcast 1 2 16
2 50 60 bcast 1 2 16
0 60 70 gatherv 1 0 3,4
2 60 70 gatherv 1 0 3,0
end 13
"""


def test_a_trace_is_counted_pair_by_pair_and_as_open_mpi_counts_collectives(tmp_path, engine):
    path = tmp_path / "t.trace"
    path.write_text(TRACE)
    assert run_engine(engine, "trace", "validate", str(path)).returncode == 0
    traffic = read_trace_traffic(path)
    assert traffic.messages == Counter({(0, 1): 1, (0, 0): 1}) and traffic.bytes == Counter({(0, 1): 100, (0, 0): 8})
    world, pair = (0, 1, 2), (2, 0)
    assert traffic.collectives[(0, world)] == Counter({"A2A": 1, "A2A bytes": 5})
    assert traffic.collectives[(2, world)] == Counter({"A2A": 1, "A2A bytes": 15})
    assert traffic.collectives[(2, pair)] == Counter({"O2A": 1, "O2A bytes": 16})  # rank 2 is bcast's root
    assert traffic.collectives[(0, pair)] == Counter({"A2O": 1, "A2O bytes": 3})  # rank 0 gatherv's root


def traffic(pairs: dict, collectives: dict | None = None) -> TraceTraffic:
    found = TraceTraffic(Counter({p: m for p, (m, _) in pairs.items()}), Counter({p: b for p, (_, b) in pairs.items()}))
    found.collectives.update(collectives or {})
    return found


def monitoring(pairs: dict) -> Monitoring:
    return Monitoring(Counter({p: m for p, (m, _) in pairs.items()}), Counter({p: b for p, (_, b) in pairs.items()}))


def test_only_missing_self_messages_are_named_as_such():
    counted = monitoring({(0, 1): (3, 96), (1, 1): (2, 16)})
    compare_point_to_point(traffic({(0, 1): (3, 96), (1, 1): (2, 16)}), counted)
    with pytest.raises(SelfMessagesMissing, match=r"1->1: trace 0 msgs 0 B, Open MPI 2 msgs 16 B"):
        compare_point_to_point(traffic({(0, 1): (3, 96)}), counted)
    with pytest.raises(AssertionError) as other:
        compare_point_to_point(traffic({(0, 1): (2, 64)}), counted)
    assert type(other.value) is AssertionError and "0->1: trace 2 msgs 64 B, Open MPI 3 msgs 96 B" in str(other.value)


def test_collective_counts_are_exact_except_all_to_all_on_a_parent(monitoring_files):
    counted = read_monitoring(monitoring_files, 2)
    both_ways = {(0, (0, 1)): Counter({"O2A": 2, "O2A bytes": 16}), (0, (1, 0)): Counter({"A2A": 1, "A2A bytes": 8})}
    compare_collectives(traffic({}, both_ways), counted)
    # The world is the split's parent: Open MPI's all-to-all count there may be higher than the program's.
    compare_collectives(traffic({}, {**both_ways, (1, (0, 1)): Counter()}), counted)
    with pytest.raises(CollectiveCallsMissing, match=r"rank 0 on 2 members 1,0: A2A: trace 0, Open MPI 1"):
        compare_collectives(traffic({}, {(0, (0, 1)): both_ways[(0, (0, 1))]}), counted)
    with pytest.raises(AssertionError) as more:
        compare_collectives(traffic({}, {**both_ways, (0, (0, 1)): Counter({"O2A": 3, "O2A bytes": 24})}), counted)
    assert type(more.value) is AssertionError


def test_the_capture_library_may_add_only_messages_into_rank_0():
    reference = monitoring({(1, 2): (5, 50), (1, 0): (1, 8)})
    compare_runs(monitoring({(1, 2): (5, 50), (1, 0): (2, 1008), (2, 0): (1, 500)}), reference)
    with pytest.raises(AssertionError, match=r"1->2: trace 6 msgs 60 B, Open MPI 5 msgs 50 B"):
        compare_runs(monitoring({(1, 2): (6, 60), (1, 0): (1, 8)}), reference)
