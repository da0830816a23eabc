"""`ibsec run CONFIG --attack ...` prints its summary and attack table, not thousands of lines of result JSON:
that goes to --out, or to standard output with --json (docs/attacks.md)."""

import json

import pytest

from conftest import run_ibsec

pytestmark = pytest.mark.model

# The README's command with fewer messages: the same attacker and checks, a shorter run.
ATTACK = ("run", "paper-16", "--attack", "all-kinds", "--set", "traffic.messages=3000")
TABLE_HEADER = "kind       attacked   detected  delivered"


def test_attack_run_prints_its_table_not_its_json(engine):
    done = run_ibsec(*ATTACK)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert TABLE_HEADER in done.stderr
    for kind in ("tamper", "inject", "replay", "spoof"):
        assert f"    {kind} " in done.stderr
    assert "dropped by the cards' checks: tag " in done.stderr
    assert "the result (JSON) was not printed: give --out FILE to keep it, or --json to print it" in done.stderr
    assert len(done.stderr.splitlines()) < 20


def test_json_prints_the_result(engine):
    done = run_ibsec(*ATTACK, "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["attack"]["detected"] == result["attack"]["attacked"] > 0
    dropped = sum(result["statistics"][f"packets_dropped_{check}"] for check in ("auth", "replay", "key"))
    assert dropped == result["attack"]["detected"]  # the table's last line accounts for every detection
    assert "was not printed" not in done.stderr


def test_out_keeps_the_result_and_prints_only_the_summary(engine, tmp_path):
    done = run_ibsec(*ATTACK, "--out", str(tmp_path / "attack.json"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and TABLE_HEADER in done.stderr and "was not printed" not in done.stderr
    assert "attack" in json.loads((tmp_path / "attack.json").read_text())


def test_a_run_without_attacker_still_prints_its_result(engine):
    done = run_ibsec("run", "paper-16", "--set", "traffic.messages=1000", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "statistics" in json.loads(done.stdout)


def test_quiet_prints_the_result_it_has_no_summary_beside(engine):
    done = run_ibsec(*ATTACK, "--quiet")
    assert done.returncode == 0 and done.stderr == ""
    assert "attack" in json.loads(done.stdout)


def test_json_and_out_together_are_refused(engine, tmp_path):
    done = run_ibsec(*ATTACK, "--json", "--out", str(tmp_path / "x.json"))
    assert done.returncode == 2 and "invalid '--json'" in done.stderr
