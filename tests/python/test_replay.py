"""Trace replay through the engine and the workload comparison built on it."""

import json
from pathlib import Path

import pytest

from conftest import run_engine

pytestmark = pytest.mark.unit

HEADER = "ibsec-trace 1\nprocesses {n}\ntime_unit ns\norigin synthetic test_replay\nevents\n"


def write_trace(path: Path, events: list[str], processes: int = 2) -> Path:
    path.write_text(HEADER.format(n=processes) + "".join(e + "\n" for e in events) + f"end {len(events)}\n")
    return path


def ring(path: Path, processes: int = 4, rounds: int = 20, size: int = 2048) -> Path:
    """Each rank sends to its right and receives from its left, with compute between rounds."""
    events, t = [], 0
    for _ in range(rounds):
        for r in range(processes):
            events.append(f"{r} {t} {t + 100} isend {(r + 1) % processes} {size} 0 1")
        for r in range(processes):
            events.append(f"{r} {t + 100} {t + 9000} recv {(r - 1) % processes} {size} 0")
        for r in range(processes):
            events.append(f"{r} {t + 9000} {t + 9100} wait 1")
        t += 10000
    return write_trace(path, events, processes)


def test_replay_is_deterministic_and_reports_table1_figures(tmp_path, engine):
    trace = ring(tmp_path / "ring.trace")
    outs = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}.json"
        done = run_engine(engine, "run", "--trace", str(trace), "--out", str(out), "--quiet")
        assert done.returncode == 0, done.stderr
        outs.append(out)
    assert outs[0].read_bytes() == outs[1].read_bytes()
    result = json.loads(outs[0].read_text())
    replay = result["replay"]
    assert result["config"]["trace"]["file"] == str(trace)
    assert replay["completed"] and replay["network_messages"] == 80
    assert result["statistics"]["packets_delivered"] == 80 * 8  # 2048 B in 256 B packets
    assert replay["original_execution_time_ns"] == 199_100
    # The original waited ~8.9 us per receive; the simulated network delivers faster, but the 900 ns gaps
    # between a wait and the next round are kept, and the first round pays two key misses (2.5 us each).
    assert 20 * 900 + 2 * 2500 < replay["simulated_execution_time_ns"] < replay["original_execution_time_ns"]
    assert all(p["completed"] for p in replay["per_process"])


def test_bad_trace_exits_2_naming_file_line_and_field(tmp_path, engine):
    trace = write_trace(tmp_path / "bad.trace", ["0 0 10 send 1 8 0", "1 0 20 recv 0 8 1"])
    done = run_engine(engine, "run", "--trace", str(trace), "--quiet")
    assert done.returncode == 2
    assert f"{trace}: end of trace: send 0 -> 1 tag 0 (8 bytes, line 6) was never received" in done.stderr
    missing = run_engine(engine, "run", "--trace", str(tmp_path / "none.trace"), "--quiet")
    assert missing.returncode == 2 and "none.trace: no such file" in missing.stderr


def test_a_bad_placement_file_exits_2_naming_its_line_and_field(tmp_path, engine):
    trace = ring(tmp_path / "ring.trace")
    place = tmp_path / "nodes.txt"
    place.write_text("0 0\n1 99\n")
    done = run_engine(engine, "run", "--trace", str(trace), "--set", f"trace.placement={place}", "--quiet")
    assert done.returncode == 2
    assert f"invalid 'trace.placement': {place}:2: field 'node': 99 is not a node (the cluster has 16)" in done.stderr


def test_replay_that_cannot_finish_exits_3_and_says_why(tmp_path, engine):
    # Valid (every message matched, no receive ends before its send starts) but both ranks
    # block in their receive first: no one ever sends.
    trace = write_trace(tmp_path / "stuck.trace", ["0 0 10 recv 1 8 0", "1 0 10 recv 0 8 0",
                                                   "0 10 20 send 1 8 0", "1 10 20 send 0 8 0"])
    done = run_engine(engine, "run", "--trace", str(trace), "--quiet", "--out", str(tmp_path / "r.json"))
    assert done.returncode == 3
    assert "rank 0: waits in '0 0 10 recv 1 8 0 0 exact'" in done.stderr
    assert "rank 1: waits in '1 0 10 recv 0 8 0 0 exact'" in done.stderr


def test_rendezvous_sends_whose_receives_come_only_after_them_exit_3(tmp_path, engine):
    # Each rank sends 20 000 bytes (above the 12 KiB eager limit) before it receives: eager sends complete
    # without the receiver, rendezvous sends wait for a receive that is posted only after the other's send.
    trace = write_trace(tmp_path / "exchange.trace", ["0 0 10 send 1 20000 0", "1 0 10 send 0 20000 0",
                                                      "0 10 20 recv 1 20000 0", "1 10 20 recv 0 20000 0"])
    done = run_engine(engine, "run", "--trace", str(trace), "--quiet", "--out", str(tmp_path / "r.json"))
    assert done.returncode == 3
    assert "rank 0: waits in '0 0 10 send 1 20000 0 0'" in done.stderr
    assert "rank 1: waits in '1 0 10 send 0 20000 0 0'" in done.stderr
    eager = run_engine(engine, "run", "--trace", str(trace), "--quiet", "--set", "replay.eager_limit_bytes=20000",
                       "--out", str(tmp_path / "e.json"))
    assert eager.returncode == 0, eager.stderr


def test_workload_comparison_table_has_security_costs_in_the_expected_order(tmp_path, engine):
    from ibsec.paper.workload_study import replay_points, summary_tables, with_overheads

    traces = {"RING": ring(tmp_path / "ring.trace", processes=8, rounds=10)}
    points = [{"bench": b, "trace": str(p), "configuration": c, "overrides": [f"nic.security={c}"]}
              for b, p in traces.items() for c in ("NoSecurity", "NoSKC", "SKC-1", "SKC-4")]
    df = with_overheads(replay_points(points, tmp_path / "runs", jobs=2, quiet=True, label="t"), ["bench"])
    by = df.set_index("configuration")
    # Every packet of NoSKC fetches its key at both cards; SKC-4 holds each card's two keys.
    assert by.loc["NoSKC", "skc_hit_rate"] == 0.0
    assert by.loc["SKC-4", "skc_hit_rate"] > 0.95
    assert by.loc["NoSecurity", "latency_overhead_percent"] == 0.0
    latency = by["latency_mean_ns"]
    assert latency["NoSKC"] > latency["SKC-4"] > latency["NoSecurity"]
    assert by.loc["NoSKC", "completion_vs_nosecurity"] >= by.loc["SKC-4", "completion_vs_nosecurity"] >= 1.0
    tables = summary_tables(df)
    assert list(tables["SKC hit rate"].columns) == ["SKC-1", "SKC-4"]
    # Resumed: the store answers, nothing is run again.
    (tmp_path / "runs" / "points.jsonl").touch()
    again = replay_points(points, tmp_path / "runs", jobs=1, quiet=True, label="t")
    assert again["latency_mean_ns"].tolist() == df["latency_mean_ns"].tolist()
