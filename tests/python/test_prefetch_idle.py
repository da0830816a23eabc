"""A prefetch buffer that can take no effect says so (issue "A researcher's first hour", item 2): the result and
the summary carry a `prefetch_idle` warning that names why and how to get a prefetch, and a run whose cards do
prefetch carries none."""

import json
from pathlib import Path

import pytest

from conftest import run_ibsec

pytestmark = pytest.mark.model
PAPER_16 = Path(__file__).resolve().parents[2] / "configs" / "paper-16.json"


def run(tmp_path: Path, *settings: str) -> tuple[dict, str]:
    out = tmp_path / "r.json"
    args = [a for setting in settings for a in ("--set", setting)]
    done = run_ibsec("run", str(PAPER_16), "--set", 'nic.security="SKC-6+Prefetch-4"', "--set",
                     "traffic.messages=2000", *args, "--out", str(out))
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text()), done.stderr


def test_one_process_per_node_warns_that_prefetching_had_no_chance(engine, tmp_path):
    result, stderr = run(tmp_path)
    assert result["statistics"]["prefetches_issued"] == 0
    idle = [w for w in result["warnings"] if w["kind"] == "prefetch_idle"]
    assert len(idle) == 1 and "scheduler.policy = batch" in idle[0]["message"]
    assert "traffic.processes_per_node > 1" in idle[0]["message"] and "prefetch buffer idle" in stderr


def test_several_processes_per_node_prefetch_and_do_not_warn(engine, tmp_path):
    result, stderr = run(tmp_path, "traffic.processes_per_node=4")
    assert result["statistics"]["prefetches_issued"] > 0
    assert not [w for w in result["warnings"] if w["kind"] == "prefetch_idle"] and "prefetch buffer idle" not in stderr
