"""No silent no-ops (docs/running.md, warnings): a parameter that the kind of run never reads, or an algorithm for a
collective the traces never call, is named in a warning, in the result and on standard error; a short replay asks
for a longer trace, not for traffic.messages, which a replay ignores. A run that uses what it was given says
nothing of the kind."""

import json
from pathlib import Path

import pytest

from conftest import run_ibsec

pytestmark = pytest.mark.model
PAPER_16 = Path(__file__).resolve().parents[2] / "configs" / "paper-16.json"
# Two processes: one message, then a barrier; no allreduce.
TRACE = """\
ibsec-trace 2
processes 2
time_unit ns
origin synthetic ignored-parameters
events
0 0 10 send 1 64 1 0
1 0 10 recv 0 64 1 0 exact
0 10 20 barrier 0
1 10 20 barrier 0
end 4
"""


def run(tmp_path: Path, *arguments: str) -> tuple[list[dict], str]:
    out = tmp_path / "r.json"
    done = run_ibsec("run", str(PAPER_16), *arguments, "--out", str(out))
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())["warnings"], done.stderr


def replay(tmp_path: Path, *settings: str) -> tuple[list[dict], str]:
    trace = tmp_path / "t.trace"
    trace.write_text(TRACE)
    return run(tmp_path, "--trace", str(trace), *[a for s in settings for a in ("--set", s)])


def of_kind(warnings: list[dict], kind: str) -> list[str]:
    return [w["message"] for w in warnings if w["kind"] == kind]


def test_a_short_replay_asks_for_a_longer_trace_not_for_traffic_messages(engine, tmp_path):
    warnings, stderr = replay(tmp_path)
    [few] = of_kind(warnings, "few_packets")
    assert "traffic.messages" not in few and "replay a longer trace" in few
    assert "traffic.messages" not in stderr


def test_traffic_parameters_given_to_a_replay_are_named(engine, tmp_path):
    warnings, stderr = replay(tmp_path, "traffic.load=0.3", "traffic.messages=5000")
    [ignored] = of_kind(warnings, "parameters_ignored")
    assert ignored.startswith("parameters ignored: traffic.load, traffic.messages had no effect: a trace replay")
    assert ignored in stderr
    assert not of_kind(replay(tmp_path)[0], "parameters_ignored")


def test_an_algorithm_for_a_collective_the_traces_never_call_is_named(engine, tmp_path):
    warnings, stderr = replay(tmp_path, "replay.collective.allreduce=ring", "replay.collective.barrier=linear")
    [unused] = of_kind(warnings, "collective_unused")  # the barrier's algorithm ran: only allreduce's is named
    assert unused.startswith("replay.collective.allreduce = ring had no effect: the replayed traces call no "
                             "allreduce") and unused in stderr


def test_replay_and_scheduler_parameters_given_to_synthetic_traffic_are_named(engine, tmp_path):
    warnings, stderr = run(tmp_path, "--set", "traffic.messages=2000", "--set", "scheduler.policy=gang",
                           "--set", "replay.compute_scale=2")
    ignored = of_kind(warnings, "parameters_ignored")
    assert len(ignored) == 2 and all(message in stderr for message in ignored)
    assert ignored[0].startswith("parameters ignored: replay.compute_scale had no effect: synthetic traffic")
    assert ignored[1].startswith("parameters ignored: scheduler.policy had no effect: synthetic traffic")
