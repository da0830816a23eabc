"""One meaning per number (docs/running.md#counts): `ibsec trace gen`, `ibsec trace info` and the replay's result
and summary give the same number of application messages and collective calls for one trace, each under its name,
and the replay's network messages are its point-to-point sends to other processes, the messages its collectives
expand into and its rendezvous control messages. With synthetic traffic, `traffic.messages` is the number measured
and the warm-up comes on top."""

import json
import re
from pathlib import Path

import pytest

from conftest import run_ibsec

pytestmark = pytest.mark.model
PAPER_16 = Path(__file__).resolve().parents[2] / "configs" / "paper-16.json"
# CG's diagonal transpose partners send to themselves; its set-up calls barrier, bcast and reduce; its 2800-byte
# messages go by rendezvous above a 1 KiB eager limit. Every term of the sum is then non-zero.
GEN = ["trace", "gen", "CG", "--procs", "16", "--class", "S", "--scale", "0.1", "--seed", "1"]
GEN_COUNTS = re.compile(r"(\d+) application messages \((\d+) to the sender itself, no network\), "
                        r"(\d+) collective calls")


def generated_trace(tmp_path: Path) -> tuple[Path, dict]:
    trace = tmp_path / "cg.trace.gz"
    done = run_ibsec(*GEN, "--out", str(trace))
    assert done.returncode == 0, done.stderr
    found = GEN_COUNTS.search(done.stdout)
    assert found, done.stdout
    application, self_messages, calls = map(int, found.groups())
    return trace, {"application_messages": application, "self_messages": self_messages, "collective_calls": calls}


def test_gen_info_and_the_replay_agree_on_application_messages_and_collective_calls(engine, tmp_path):
    trace, generated = generated_trace(tmp_path)
    done = run_ibsec("trace", "info", str(trace), "--json")
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert {k: info[k] for k in generated} == generated
    assert generated["self_messages"] > 0 and generated["collective_calls"] > 0

    out = tmp_path / "r.json"
    done = run_ibsec("run", str(PAPER_16), "--trace", str(trace), "--set", "replay.eager_limit_bytes=1024",
                     "--out", str(out))
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    replay = result["replay"]
    assert {k: replay[k] for k in generated} == generated
    assert replay["collective_messages"] > 0 and replay["control_messages"] == 2 * replay["rendezvous_sends"] > 0
    point_to_point = replay["application_messages"] - replay["self_messages"]
    assert replay["network_messages"] == point_to_point + replay["collective_messages"] + replay["control_messages"]
    assert result["statistics"]["messages_delivered"] == replay["network_messages"]
    assert (f"traces: {generated['application_messages']} application messages ({generated['self_messages']} to "
            f"the sender itself, no network), {generated['collective_calls']} collective calls; network messages "
            f"{replay['network_messages']} = {point_to_point} point-to-point + {replay['collective_messages']} from "
            f"collectives + {replay['control_messages']} control (rendezvous)") in done.stderr
    assert f"delivered {replay['network_messages']} network messages in " in done.stderr


def test_synthetic_traffic_measures_the_messages_asked_and_delivers_the_warm_up_too(engine, tmp_path):
    out = tmp_path / "r.json"
    done = run_ibsec("run", str(PAPER_16), "--set", "traffic.messages=2000", "--set", "traffic.warmup_messages=500",
                     "--out", str(out))
    assert done.returncode == 0, done.stderr
    statistics = json.loads(out.read_text())["statistics"]
    assert statistics["offers_refused"] == 0
    assert (statistics["messages_measured"], statistics["messages_delivered"]) == (2000, 2500)
    assert "delivered 2500 network messages (2000 measured after 500 warm-up) in 2500 packets" in done.stderr
