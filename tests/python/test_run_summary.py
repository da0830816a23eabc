"""The summary and warnings of `ibsec run` (docs/running.md, "Warnings"): a saturated shipped config says so on
standard error and in its result, a sound one does not, --quiet silences both screens but not the result, and a
load sweep's table carries each point's warnings."""

import json

import pandas as pd
import pytest

from conftest import REPO, run_ibsec

CONFIGS = REPO / "configs"
# The shipped 1 024-node config at its own load (0.1), shortened: it is saturated from the start.
FAT_TREE_1024 = [str(CONFIGS / "fat-tree-1024-32ary2.json"), "--set", "traffic.messages=50000"]


def warning_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("ibsec-engine: warning: ")]


@pytest.mark.model
def test_the_shipped_1024_node_config_warns_that_it_saturated(tmp_path, engine):
    out = tmp_path / "ft.json"
    done = run_ibsec("run", *FAT_TREE_1024, "--out", str(out))
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    statistics = result["statistics"]
    assert statistics["accepted_throughput"] < 0.95 * statistics["offered_throughput"]
    assert [w["kind"] for w in result["warnings"]] == ["saturated"]
    assert "\r" not in done.stderr  # standard error is a pipe here: plain lines, no in-place updates
    lines = warning_lines(done.stderr)
    assert len(lines) == 1 and "saturated: accepted throughput" in lines[0], done.stderr
    # The summary: deliveries, throughput, latency in a readable unit, hit rate, drained.
    delivered, measured = statistics["messages_delivered"], statistics["messages_measured"]
    assert f"delivered {delivered} network messages ({measured} measured after {delivered - measured} warm-up) " \
           f"in {statistics['packets_delivered']} packets" in done.stderr
    assert f"accepted throughput {statistics['accepted_throughput']:.3g} of " \
           f"{statistics['offered_throughput']:.3g} offered" in done.stderr
    assert f"latency mean {statistics['latency_mean_ns'] / 1000:.3g} µs" in done.stderr
    assert f"SKC hit rate {statistics['skc_hit_rate']:.3f}; drained" in done.stderr


@pytest.mark.model
def test_a_shipped_paper16_run_has_no_warning(tmp_path, engine):
    out = tmp_path / "p16.json"
    done = run_ibsec("run", str(CONFIGS / "paper-16.json"), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["warnings"] == []
    assert warning_lines(done.stderr) == []
    assert "drained" in done.stderr and "latency mean" in done.stderr


@pytest.mark.unit
def test_few_measured_packets_warn_and_quiet_silences_the_screen_only(tmp_path, engine):
    out = tmp_path / "small.json"
    small = ["run", str(CONFIGS / "paper-16.json"), "--set", "traffic.messages=500", "--set",
             "traffic.warmup_messages=50", "--out", str(out)]
    loud = run_ibsec(*small)
    assert loud.returncode == 0, loud.stderr
    assert [line.split(":")[2].strip() for line in warning_lines(loud.stderr)] == ["few packets"]
    quiet = run_ibsec(*small, "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert [w["kind"] for w in json.loads(out.read_text())["warnings"]] == ["few_packets"]


@pytest.mark.model
def test_a_load_sweep_table_marks_the_saturated_points(tmp_path, engine):
    prefix = tmp_path / "load"
    done = run_ibsec("run", str(CONFIGS / "paper-16.json"), "--set", "traffic.messages=3000", "--sweep-load",
                     "0.03,0.12", "--out", str(prefix), "--jobs", "2")
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(f"{prefix}.csv", keep_default_na=False)
    by_load = dict(zip(table["offered_load"], table["warnings"], strict=True))
    assert by_load == {0.03: "", 0.12: "saturated"}
    assert "warnings" in done.stdout.splitlines()[0]  # the printed table shows the column
    assert "ibsec: warning: points with warnings (column `warnings`; docs/running.md) of 2: 1 saturated" in done.stderr


@pytest.mark.unit
@pytest.mark.parametrize("security", ["NoSKC", "NoSecurity"])
def test_a_card_without_a_key_cache_has_no_hit_rate_in_the_summary(tmp_path, engine, security):
    out = tmp_path / "no-skc.json"
    done = run_ibsec("run", str(CONFIGS / "paper-16.json"), "--set", f"nic.security={security}", "--set",
                     "traffic.messages=500", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert f"no SKC ({security}); drained" in done.stderr
    assert "hit rate" not in done.stderr  # NoSKC's 0 counts look-ups with no cache to hit: no rate to show
    assert json.loads(out.read_text())["config"]["nic"]["security"] == security
