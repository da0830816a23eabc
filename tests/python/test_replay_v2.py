"""Replay of what version 2 of the trace format added: the `v` collectives, prefix reductions,
non-blocking collectives, point-to-point traffic on communicators, wildcard receives and
self-messages, through the engine, against the closed-form message counts of their algorithms
(hosts/collectives.h, hosts/vector_collectives.h)."""

import json
from pathlib import Path

import pytest

from conftest import run_engine

pytestmark = pytest.mark.unit

N = 4
HEADER = f"ibsec-trace 2\nprocesses {N}\ntime_unit ns\norigin synthetic test_replay_v2\ncomm 1 0 2\nevents\n"

# op -> (line arguments for rank r, messages the whole collective sends on N members)
COLLECTIVES = {
    "alltoallv": (lambda r: "0 " + ",".join(str(64 * (r + p)) for p in range(N)), N * (N - 1)),
    "allgatherv": (lambda r: "0 100,200,300,400", N * (N - 1)),
    "gatherv": (lambda r: "0 0 " + ("100,200,300,400" if r == 0 else ",".join(
        str(100 * (p + 1)) if p == r else "0" for p in range(N))), N - 1),
    "scatterv": (lambda r: "0 0 " + ("100,200,300,400" if r == 0 else ",".join(
        str(100 * (p + 1)) if p == r else "0" for p in range(N))), N - 1),
    "reduce_scatter": (lambda r: "0 512,512,512,512", N * (N - 1)),
    "scan": (lambda r: "0 64", 2 * N),  # recursive doubling: partners r^1 and r^2
    "exscan": (lambda r: "0 64", 2 * N),
}


def build_trace(path: Path) -> tuple[Path, int]:
    """Every new op once per rank, in a valid order; returns the trace and its collective messages."""
    lines, t, expected = [], 0, 0
    for op, (args, messages) in COLLECTIVES.items():
        lines += [f"{r} {t} {t + 100} {op} {args(r)}" for r in range(N)]
        t, expected = t + 1000, expected + messages
    # Non-blocking: an ialltoallv and an iallreduce in flight together, then waited for.
    for r in range(N):
        lines.append(f"{r} {t} {t + 10} ialltoallv 0 7 " + ",".join("256" for _ in range(N)))
    for r in range(N):
        lines.append(f"{r} {t + 10} {t + 20} iallreduce 0 8 9")
    for r in range(N):
        lines.append(f"{r} {t + 20} {t + 500} wait 9")
    for r in range(N):
        lines.append(f"{r} {t + 500} {t + 900} wait 7")
    expected += N * (N - 1) + 2 * N  # pairwise exchange; recursive doubling on 4
    t += 1000
    # Point to point on communicator 1 (world ranks 0 and 2), a wildcard receive, a self-message.
    lines += [f"0 {t} {t + 10} send 2 4096 5 1", f"2 {t} {t + 300} recv 0 4096 5 1 any",
              f"1 {t} {t + 50} isend 1 128 3 4 0", f"1 {t + 50} {t + 150} recv 1 128 3 0 exact",
              f"1 {t + 150} {t + 160} wait 4"]
    lines.sort(key=lambda line: int(line.split()[1]))
    path.write_text(HEADER + "".join(line + "\n" for line in lines) + f"end {len(lines)}\n")
    return path, expected


def test_every_new_op_replays_with_its_algorithms_message_counts(tmp_path, engine):
    trace, collective_messages = build_trace(tmp_path / "v2.trace")
    assert run_engine(engine, "trace", "validate", str(trace)).returncode == 0
    out = tmp_path / "r.json"
    # The simple scheme: one algorithm per op, whose closed forms the counts above are.
    done = run_engine(engine, "run", "--trace", str(trace), "--set", "replay.collectives=simple", "--out", str(out),
                      "--quiet")
    assert done.returncode == 0, done.stderr
    replay = json.loads(out.read_text())["replay"]
    assert replay["completed"]
    assert replay["collective_messages"] == collective_messages
    assert replay["self_messages"] == 1
    assert replay["network_messages"] == collective_messages + 1  # and the one message on communicator 1


def test_a_version_1_trace_replays_as_before(tmp_path, engine):
    """The same ring in version 1 and version 2 gives the same result."""
    v1, v2 = [], []
    for r in range(N):
        v1.append(f"{r} 0 100 isend {(r + 1) % N} 2048 0 1")
        v2.append(f"{r} 0 100 isend {(r + 1) % N} 2048 0 1 0")
    for r in range(N):
        v1.append(f"{r} 100 9000 recv {(r - 1) % N} 2048 0")
        v2.append(f"{r} 100 9000 recv {(r - 1) % N} 2048 0 0 exact")
    for r in range(N):
        v1.append(f"{r} 9000 9100 wait 1")
        v2.append(f"{r} 9000 9100 wait 1")
    results = []
    for version, lines in ((1, v1), (2, v2)):
        trace = tmp_path / f"ring{version}.trace"
        trace.write_text(f"ibsec-trace {version}\nprocesses {N}\ntime_unit ns\norigin synthetic t\nevents\n"
                         + "".join(line + "\n" for line in lines) + f"end {len(lines)}\n")
        out = tmp_path / f"ring{version}.json"
        assert run_engine(engine, "run", "--trace", str(trace), "--out", str(out), "--quiet").returncode == 0
        result = json.loads(out.read_text())
        results.append((result["statistics"], result["replay"]["simulated_execution_time_ns"]))
    assert results[0] == results[1]


def test_wildcard_receives_recorded_or_matched_again(tmp_path, engine):
    """Rank 2's two wildcard receives were matched with rank 0 then rank 1 in the original run; rank 1
    sends at once, rank 0 only after 100 us of compute. Recorded, rank 2 waits for rank 0 first and
    computes after; matched again, it takes rank 1's message first and computes while rank 0's comes."""
    lines = ["1 0 10 send 2 8 5 0", "2 0 100020 recv 0 8 5 0 any", "0 0 100000 compute",
             "2 100020 101020 compute", "2 101020 101030 recv 1 8 5 0 any", "0 100000 100010 send 2 8 5 0"]
    trace = tmp_path / "any.trace"
    trace.write_text("ibsec-trace 2\nprocesses 3\ntime_unit ns\norigin synthetic t\nevents\n"
                     + "".join(line + "\n" for line in sorted(lines, key=lambda x: int(x.split()[1])))
                     + f"end {len(lines)}\n")
    assert run_engine(engine, "trace", "validate", str(trace)).returncode == 0
    done = {}
    for mode in ("recorded", "rematch"):
        out = tmp_path / f"{mode}.json"
        ran = run_engine(engine, "run", "--trace", str(trace), "--set", f"replay.wildcards={mode}", "--out",
                         str(out), "--quiet")
        assert ran.returncode == 0, ran.stderr
        done[mode] = json.loads(out.read_text())["replay"]["per_process"][2]["completion_time_ns"]
    # The 1 us of compute overlaps the wait for rank 0 only when matched again.
    assert 900 < done["recorded"] - done["rematch"] < 1100, done
    bad = run_engine(engine, "run", "--trace", str(trace), "--set", "replay.wildcards=any", "--quiet")
    assert bad.returncode == 2 and "expected recorded or rematch" in bad.stderr
