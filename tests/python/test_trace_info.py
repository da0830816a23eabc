"""`ibsec trace info`: the sizes of a trace's point-to-point messages and collective calls (quartiles, log2
histogram) and its collective calls and bytes per op, in the table and in --json, on a hand-written trace."""

import json

import pytest

from conftest import run_ibsec

pytestmark = pytest.mark.unit

# Messages of 0, 8, 8, 100 and 4096 bytes; collective calls of 0, 0, 16, 16 and, on communicator 1, an alltoallv
# whose bytes are the sum of its counts (3 + 5 and 7 + 1).
TRACE = """\
ibsec-trace 2
processes 2
time_unit ns
origin synthetic trace-info
comm 1 1 0
events
0 0 10 send 1 0 1 0
1 0 10 recv 0 0 1 0 exact
0 10 20 send 1 4096 1 0
1 10 20 recv 0 4096 1 0 exact
0 20 30 isend 1 8 2 7 0
1 20 30 irecv 0 8 2 3 0 any
0 30 40 send 1 100 1 0
1 30 40 recv 0 100 1 0 exact
0 40 50 wait 7
1 40 50 wait 3
0 50 60 send 1 8 1 0
1 50 60 recv 0 8 1 0 exact
0 60 70 allreduce 0 16
1 60 70 allreduce 0 16
0 70 80 barrier 0
1 70 80 barrier 0
0 80 90 alltoallv 1 3,5
1 80 90 alltoallv 1 7,1
end 18
"""


@pytest.fixture
def trace(tmp_path, engine):
    path = tmp_path / "t.trace"
    path.write_text(TRACE)
    return path


def test_json_has_the_size_distributions_and_the_collectives_by_op(trace):
    done = run_ibsec("trace", "info", str(trace), "--json")
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    messages = info["message_sizes"]
    assert {k: messages[k] for k in ("messages", "bytes", "min", "q1", "median", "q3", "max", "quartiles_exact")} == \
        {"messages": 5, "bytes": 4212, "min": 0, "q1": 8, "median": 8, "q3": 100, "max": 4096, "quartiles_exact": True}
    histogram = {(b["from"], b["to"]): b["count"] for b in messages["log2_histogram"]}
    assert len(histogram) == 14 and histogram[(0, 0)] == 1 and histogram[(8, 15)] == 2 and histogram[(64, 127)] == 1
    assert histogram[(4096, 8191)] == 1 and sum(histogram.values()) == 5
    calls = info["collective_sizes"]  # 0 0 8 8 16 16
    assert (calls["calls"], calls["bytes"], calls["q1"], calls["median"], calls["q3"]) == (6, 48, 0, 8, 16)
    assert info["collectives_by_op"] == {"barrier": {"calls": 2, "bytes": 0}, "allreduce": {"calls": 2, "bytes": 32},
                                         "alltoallv": {"calls": 2, "bytes": 16}}


def test_the_table_shows_quartiles_histogram_and_collective_ops(trace):
    done = run_ibsec("trace", "info", str(trace))
    assert done.returncode == 0, done.stderr
    lines = [" ".join(line.split()) for line in done.stdout.splitlines()]
    assert "point-to-point message bytes: 5 messages, min 0, q1 8, median 8, q3 100, max 4096" in lines
    assert "collective bytes per call: 6 calls, min 0, q1 0, median 8, q3 16, max 16" in lines
    start = lines.index("bytes (log2 buckets) messages collective calls")
    assert lines[start + 1:start + 6] == ["0 1 2", "1 0 0", "2-3 0 0", "4-7 0 0", "8-15 2 2"]
    assert lines[start + 14] == "4096-8191 1 0"
    ops = lines.index("collective op calls bytes")
    assert lines[ops + 1:ops + 4] == ["barrier 2 0", "allreduce 2 32", "alltoallv 2 16"]
