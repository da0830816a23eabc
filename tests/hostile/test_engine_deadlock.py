"""Item 6: a replay in which no process can ever go on ends with exit 3 and the waiting list, under every policy."""

import json
import subprocess

import pytest

from .engine import PAPER16, engine, run

pytestmark = pytest.mark.unit
POLICIES = json.loads(subprocess.run([engine(), "registries", "--json"], capture_output=True, text=True,
                                     check=True).stdout)["schedulers"]

DEADLOCK = """ibsec-trace 1
processes 2
time_unit ns
origin synthetic hostile test: two ranks that each receive before they send
events
0 0 100 recv 1 64 0
1 0 100 recv 0 64 0
0 100 200 send 1 64 0
1 100 200 send 0 64 0
end 4
"""


@pytest.mark.parametrize("policy", [p["name"] for p in POLICIES])
def test_item06_a_deadlocked_replay_ends_with_the_waiting_list(tmp_path, policy):
    trace = tmp_path / "deadlock.trace"
    trace.write_text(DEADLOCK)
    result = run("run", PAPER16, "--set", f'trace.jobs=["{trace}"]', "--set", f"scheduler.policy={policy}",
                 "-q", "--out", str(tmp_path / "r.json"), timeout=60)
    assert result.returncode == 3, result.stderr
    assert "the replay could not finish" in result.stderr
    assert "rank 0: waits in '0 0 100 recv 1 64 0 0 exact'" in result.stderr
    assert not json.loads((tmp_path / "r.json").read_text())["replay"]["completed"]
