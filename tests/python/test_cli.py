"""The ibsec and ibsec-engine commands as a user runs them: output, determinism, bad input."""

import json
import os
import subprocess

import pytest

from conftest import run_engine, run_ibsec

pytestmark = pytest.mark.unit


def test_analytic_capacity_json_matches_paper_example():
    done = run_ibsec("analytic", "capacity", "--entries", "3", "--on-mean", "1", "--off-mean", "1", "--target", "0.9",
                     "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["capacity"] == 4
    assert result["hit_rate_at_capacity"] == pytest.approx(15 / 16)
    assert result["hit_rate_above_capacity"] == pytest.approx(13 / 16)


def test_analytic_hitrate_json_with_size_and_preset():
    done = run_ibsec("analytic", "hitrate", "--size", "2KB", "--processes", "1213", "--preset", "BT", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["entries"] == 128
    assert 0.9 <= result["hit_rate"] < 0.91


@pytest.mark.parametrize(
    "args,needle",
    [
        (["analytic", "capacity", "--entries", "8", "--on-mean", "1", "--off-mean", "1", "--target", "1.5"],
         "argument --target: must be less than 1"),
        (["analytic", "capacity", "--entries", "0", "--on-mean", "1", "--off-mean", "1"],
         "argument --entries: must be at least 1"),
        (["analytic", "capacity", "--entries", "8", "--on-mean", "-1", "--off-mean", "1"],
         "argument --on-mean: must be greater than 0"),
        (["analytic", "capacity", "--entries", "8", "--on-mean", "1", "--off-mean", "0"],
         "argument --off-mean: must be greater than 0"),
        (["analytic", "capacity", "--size", "12 parsecs", "--on-mean", "1", "--off-mean", "1"], "invalid 'size'"),
        (["analytic", "capacity", "--size", "100B", "--on-mean", "1", "--off-mean", "1"], "invalid 'size'"),
        (["analytic", "hitrate", "--entries", "8", "--processes", "0", "--preset", "BT"],
         "argument --processes: must be at least 1"),
        (["analytic", "hitrate", "--entries", "8", "--processes", "9", "--preset", "QQ"], "invalid 'preset'"),
        (["analytic", "hitrate", "--entries", "8", "--processes", "9"], "invalid 'on_mean'"),
    ],
)
def test_bad_analytic_input_is_a_clear_error(args, needle):
    done = run_ibsec(*args)
    assert done.returncode == 2
    assert needle in done.stderr
    assert "Traceback" not in done.stderr


def test_cachesim_json_has_required_fields(engine):
    done = run_ibsec("cachesim", "--keys", "2000", "--entries", "128", "--preset", "BT", "--accesses", "50000",
                     "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    for field in ["hit_rate", "accesses", "hits", "misses"]:
        assert field in result
    assert result["hits"] + result["misses"] == result["accesses"] == 50000
    assert result["hit_rate"] == pytest.approx(result["hits"] / result["accesses"])


def test_engine_output_is_byte_identical_for_a_seed(engine):
    args = ["cachesim", "--keys", "3000", "--entries", "256", "--ways", "4", "--accesses", "200000", "--json",
            "--quiet"]
    first, second = run_engine(engine, *args, "--seed", "5"), run_engine(engine, *args, "--seed", "5")
    other = run_engine(engine, *args, "--seed", "6")
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert first.stdout != other.stdout


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--ways", "3"], "invalid 'ways'"),
        (["--ways", "2048"], "invalid 'ways'"),
        (["--entries", "24", "--ways", "16"], "invalid 'entries'"),
        (["--entries", "0"], "invalid 'entries'"),
        (["--size", "0KB"], "invalid 'size'"),
        (["--size", "100B"], "invalid 'size'"),
        (["--size", "16 furlongs"], "invalid 'size'"),
        (["--keys", "0"], "invalid 'keys'"),
        (["--on-mean", "0"], "invalid 'on_mean'"),
        (["--off-mean", "-3"], "invalid 'off_mean'"),
        (["--access-rate", "0"], "invalid 'access_rate'"),
        (["--accesses", "0"], "invalid 'accesses'"),
        (["--policy", "mru"], "unknown replacement policy 'mru'"),
        (["--keys", "banana"], "--keys"),
    ],
)
def test_engine_rejects_bad_cachesim_input(engine, args, needle):
    defaults = [] if "--accesses" in args else ["--accesses", "1000"]
    done = run_engine(engine, "cachesim", *defaults, *args)
    assert done.returncode != 0
    assert needle in done.stderr + done.stdout


def test_every_command_has_help():
    for args in [[], ["analytic"], ["analytic", "hitrate"], ["analytic", "capacity"], ["analytic", "states"],
                 ["cachesim"], ["presets"], ["figures"], ["study"]]:
        done = run_ibsec(*args, "--help")
        assert done.returncode == 0 and "usage: ibsec" in done.stdout, args


def test_cachesim_policies_are_the_engines(engine):
    from ibsec.engine.registries import names

    policies = names("replacement_policies")
    assert "lru" in policies
    bad = run_ibsec("cachesim", "--policy", "mru", "--accesses", "1000", "--json")
    assert bad.returncode == 2
    assert f"invalid '--policy': unknown 'mru'; did you mean 'lru'? (known: {', '.join(policies)})" in bad.stderr
    swept = run_ibsec("cachesim", "--sweep", "policy=lru,mru", "--out", "never.csv")
    assert swept.returncode == 2 and "invalid '--sweep': unknown 'mru'" in swept.stderr
    assert ", ".join(policies) in " ".join(run_ibsec("cachesim", "--help").stdout.split())


def test_a_misspelt_parameter_hint_names_the_command_the_user_typed(engine, tmp_path):
    from conftest import REPO
    from ibsec.cli.main import COMMAND_ENV

    typo = ["--set", "nic.securty=SKC-6", "--out", str(tmp_path / "r.json")]
    through_ibsec = run_ibsec("run", "paper-16", *typo)
    assert through_ibsec.returncode == 2
    assert "did you mean 'nic.security'? `ibsec params` lists them" in through_ibsec.stderr
    # The engine run by hand: no IBSEC_COMMAND (which an in-process `ibsec` main() of another test may have set).
    environment = {name: value for name, value in os.environ.items() if name != COMMAND_ENV}
    direct = subprocess.run([engine, "run", str(REPO / "configs" / "paper-16.json"), *typo], capture_output=True,
                            text=True, check=False, env=environment)
    assert direct.returncode == 2
    assert "did you mean 'nic.security'? `ibsec-engine params` lists them" in direct.stderr
