"""`ibsec run` and `ibsec params`: one cycle-level simulation, its result file, bad input, load sweeps."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import REPO, run_ibsec

CONFIGS = REPO / "configs"
SMALL = ["--set", "traffic.messages=5000"]


def run_ibsec_with_engine(engine_binary: str, *args: str) -> subprocess.CompletedProcess:
    """ibsec with IBSEC_ENGINE pointing at `engine_binary` (e.g. a wrapper that logs its calls)."""
    env = {**os.environ, "IBSEC_ENGINE": str(engine_binary)}
    return subprocess.run([sys.executable, "-m", "ibsec.cli", *args], capture_output=True, text=True, check=False,
                          env=env)


def logging_engine(tmp_path: Path, real: str, fail_on: str | None = None) -> tuple[Path, Path]:
    """A wrapper around the engine that appends each call's arguments to a log (and fails when asked)."""
    log = tmp_path / "engine-calls.log"
    wrapper = tmp_path / "logging-engine"
    fail = ""
    if fail_on:
        fail = f'case "$*" in *"{fail_on}"*) echo "ibsec-engine: error: injected failure" >&2; exit 1;; esac\n'
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\n{fail}exec "{real}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return wrapper, log


def engine_runs(log: Path) -> list[str]:
    """The `run` calls in a wrapper's log."""
    return [line for line in log.read_text().splitlines() if line.startswith("run")] if log.exists() else []


def result_of(path: Path) -> dict:
    return json.loads(path.read_text())


# ---- one run ----------------------------------------------------------------

@pytest.mark.unit
def test_same_config_and_seed_give_byte_identical_result_files(tmp_path, engine):
    files = {}
    for name, seed in [("a", 7), ("b", 7), ("c", 8)]:
        files[name] = tmp_path / f"{name}.json"
        done = run_ibsec("run", str(CONFIGS / "paper-16.json"), *SMALL, "--set", f"seed={seed}",
                         "--out", str(files[name]), "--quiet")
        assert done.returncode == 0, done.stderr
    assert files["a"].read_bytes() == files["b"].read_bytes()
    assert files["a"].read_bytes() != files["c"].read_bytes()
    assert result_of(files["c"])["seed"] == 8


@pytest.mark.unit
def test_run_without_out_prints_the_result_and_streams_progress(engine):
    done = run_ibsec("run", *SMALL, "--set", "traffic.load=0.05")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["statistics"]["packets_measured"] == 5000
    assert "packets" in done.stderr  # the engine's summary line, passed through
    quiet = run_ibsec("run", *SMALL, "--set", "traffic.load=0.05", "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert quiet.stdout == done.stdout


@pytest.mark.unit
def test_out_creates_missing_folders(tmp_path, engine):
    out = tmp_path / "new" / "deeper" / "result.json"
    done = run_ibsec("run", *SMALL, "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    assert result_of(out)["statistics"]["packets_measured"] > 0


@pytest.mark.unit
def test_a_network_that_does_not_drain_exits_3_and_still_writes_the_result(tmp_path, engine):
    out = tmp_path / "stuck.json"
    done = run_ibsec("run", *SMALL, "--set", "traffic.load=0.9", "--set", "sim.drain_timeout_us=1",
                     "--out", str(out), "--quiet")
    assert done.returncode == 3
    assert "did not drain" in done.stderr and "Traceback" not in done.stderr
    assert result_of(out)["statistics"]["drained"] is False


@pytest.fixture
def malformed_config(tmp_path) -> Path:
    path = tmp_path / "broken-config.json"
    path.write_text('{\n  "network": {\n    "topology": "fat-tree"\n    "nodes": 16\n  }\n}\n')
    return path


@pytest.mark.unit
@pytest.mark.parametrize(
    "args,needle",
    [
        (["--set", "network.nonsense=1"], "invalid 'network.nonsense'"),
        (["--set", "network.topology=hypercube"], "invalid 'network.topology'"),
        (["--set", "network.topology=fat-tree", "--set", "network.switch_ports=6"], "invalid 'network.switch_ports'"),
        (["--set", "nic.clock_mhz=0"], "invalid 'nic.clock_mhz'"),
        (["--set", "network.link_delay_ns=-1"], "invalid 'network.link_delay_ns'"),
        (["--set", "nic.security=SKC-x"], "invalid 'nic.security'"),
        (["--set", "traffic.load=1.5"], "invalid 'traffic.load'"),
        (["--set", "nic.clock_mhz"], "--set"),
    ],
)
def test_bad_configuration_is_a_clear_error(tmp_path, engine, args, needle):
    out = tmp_path / "never.json"
    done = run_ibsec("run", *SMALL, *args, "--out", str(out), "--quiet")
    assert done.returncode == 2, done.stderr
    assert needle in done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists()


@pytest.mark.unit
def test_malformed_config_file_names_the_file_and_line(engine, malformed_config):
    done = run_ibsec("run", str(malformed_config), "--quiet")
    assert done.returncode == 2
    assert "broken-config.json" in done.stderr and "line 4" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.unit
def test_unknown_key_in_a_config_file_names_key_and_file(tmp_path, engine):
    path = tmp_path / "typo.json"
    path.write_text(json.dumps({"nic": {"securty": "SKC-6"}}))
    done = run_ibsec("run", str(path), "--quiet")
    assert done.returncode == 2
    assert "invalid 'nic.securty'" in done.stderr and "typo.json" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.unit
def test_missing_config_file_is_a_clear_error(tmp_path, engine):
    missing = tmp_path / "no-such-config.json"
    for extra in [[], ["--sweep-load", "0.1,0.2", "--out", str(tmp_path / "sweep")]]:
        done = run_ibsec("run", str(missing), *extra, "--quiet")
        assert done.returncode == 2
        assert "no-such-config.json" in done.stderr and "does not exist" in done.stderr
        assert "Traceback" not in done.stderr


# ---- the result file --------------------------------------------------------

REQUIRED_STATISTICS = [
    "packets_delivered", "packets_measured", "drained",
    "latency_mean_ns", "latency_p50_ns", "latency_p95_ns", "latency_p99_ns", "latency_max_ns",
    "skc_hit_rate", "prefetch_buffer_hit_rate", "key_memory_wait_mean_ns", "gcm_busy_fraction",
    "link_utilization_mean", "accepted_throughput", "offered_throughput",
]


def run_paper_16(tmp_path: Path, security: str, load: float = 0.05) -> dict:
    out = tmp_path / f"{security}.json"
    done = run_ibsec("run", str(CONFIGS / "paper-16.json"), *SMALL, "--set", f"nic.security={security}",
                     "--set", f"traffic.load={load}", "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    return result_of(out)


@pytest.mark.unit
def test_result_holds_the_required_statistics_config_and_versions(tmp_path, engine):
    result = run_paper_16(tmp_path, "SKC-16")
    assert result["ibsec_version"] and result["systemc_version"]
    assert result["seed"] == result["config"]["seed"] == 1
    stats = result["statistics"]
    for name in REQUIRED_STATISTICS:
        assert name in stats, name
        meta = stats["statistics_meta"][name]
        assert "unit" in meta and meta["description"], name
    assert stats["packets_measured"] == 5000 and stats["drained"] is True
    assert stats["packets_delivered"] >= stats["packets_measured"]
    # The resolved config holds every parameter `ibsec params` lists, nested by its dotted key.
    params = json.loads(run_ibsec("params", "--json").stdout)
    for parameter in params:
        node = result["config"]
        for part in parameter["key"].split("."):
            node = node[part]
    assert result["config"]["nic"]["security"] == "SKC-16"
    assert result["topology"]["nodes"] == 16
    histogram = result["latency_histogram_ns"]
    assert histogram["columns"] == ["low_ns", "high_ns", "packets"]
    assert sum(b[2] for b in histogram["buckets"]) == stats["packets_measured"]
    assert all(low < high for low, high, _ in histogram["buckets"])


@pytest.mark.unit
def test_latencies_are_ordered_and_security_costs_what_it_should(tmp_path, engine):
    means = {}
    for security in ["NoSecurity", "SKC-16", "NoSKC"]:
        stats = run_paper_16(tmp_path, security)["statistics"]
        assert stats["latency_min_ns"] <= stats["latency_p50_ns"] <= stats["latency_p95_ns"] \
            <= stats["latency_p99_ns"] <= stats["latency_max_ns"], security
        assert stats["latency_min_ns"] <= stats["latency_mean_ns"] <= stats["latency_max_ns"], security
        for name in ["skc_hit_rate", "prefetch_buffer_hit_rate", "gcm_busy_fraction", "link_utilization_mean"]:
            assert stats[name] is None and security == "NoSecurity" or 0.0 <= stats[name] <= 1.0, (security, name)
        means[security] = stats["latency_mean_ns"]
        if security == "NoSecurity":  # no look-ups: no hit rate (null, not a false 0)
            assert stats["gcm_busy_fraction"] == 0.0 and stats["key_memory_wait_mean_ns"] == 0.0
            assert stats["skc_hit_rate"] is None and stats["prefetch_buffer_hit_rate"] is None
        if security == "SKC-16":  # 16 entries hold every peer's key on 16 nodes: compulsory misses only
            assert stats["skc_hit_rate"] > 0.95
        if security == "NoSKC":
            assert stats["skc_hit_rate"] == 0.0
    assert means["NoSecurity"] < means["SKC-16"] < means["NoSKC"]


@pytest.mark.model
def test_every_shipped_config_runs(tmp_path, engine):
    expected = {"paper-16.json": (16, "SKC-6"), "nosecurity-16.json": (16, "NoSecurity"),
                "paper-card-16.json": (16, "SKC-6"),
                "fat-tree-1024-4ary5.json": (1024, "SKC-6"), "fat-tree-1024-32ary2.json": (1024, "SKC-6"),
                "fat-tree-built-432-2to1.json": (432, "SKC-6"), "torus-64.json": (64, "SKC-6"),
                "dragonfly-plus-1024.json": (1024, "SKC-6")}
    assert sorted(p.name for p in CONFIGS.glob("*.json")) == sorted(expected)
    for name, (nodes, security) in expected.items():
        out = tmp_path / name
        done = run_ibsec("run", str(CONFIGS / name), "--set", "traffic.messages=2000",
                         "--set", "traffic.warmup_messages=1000", "--out", str(out), "--quiet")
        assert done.returncode == 0, (name, done.stderr)
        result = result_of(out)
        assert result["topology"]["nodes"] == nodes, name
        assert result["config"]["nic"]["security"] == security, name
    big = json.loads((CONFIGS / "fat-tree-1024-4ary5.json").read_text())
    assert big["traffic"] == {"pattern": "uniform", "load": 0.1, "messages": 1_000_000}


@pytest.mark.unit
def test_params_forwards_to_the_engine(engine):
    text = run_ibsec("params")
    assert text.returncode == 0 and "traffic.load" in text.stdout
    listed = json.loads(run_ibsec("params", "--json").stdout)
    keys = {p["key"] for p in listed}
    assert {"seed", "network.topology", "nic.security", "traffic.load", "traffic.messages"} <= keys
    assert all({"key", "default", "unit", "description"} <= set(p) for p in listed)


@pytest.mark.unit
def test_run_and_params_have_help():
    for args in [["run"], ["params"]]:
        done = run_ibsec(*args, "--help")
        assert done.returncode == 0 and "usage: ibsec" in done.stdout, args


# ---- load sweeps ------------------------------------------------------------

SWEEP_COLUMNS = ["offered_load", "offered_throughput", "accepted_throughput", "latency_mean_ns", "latency_p50_ns",
                 "latency_p99_ns", "skc_hit_rate", "key_memory_wait_mean_ns", "gcm_busy_fraction",
                 "link_utilization_mean", "drained"]


def sweep_args(prefix: Path, loads: str, *extra: str) -> list[str]:
    return ["run", str(CONFIGS / "paper-16.json"), *SMALL, "--set", "nic.security=SKC-16", *extra,
            "--sweep-load", loads, "--out", str(prefix), "--jobs", "2", "--quiet"]


@pytest.mark.model
def test_load_sweep_writes_table_plot_and_meta_and_does_not_rerun(tmp_path, engine):
    wrapper, log = logging_engine(tmp_path, engine)
    prefix = tmp_path / "out" / "skc16"
    args = sweep_args(prefix, "0.02:0.06:0.02")
    done = run_ibsec_with_engine(wrapper, *args)
    assert done.returncode == 0, done.stderr
    assert len(engine_runs(log)) == 3
    table = pd.read_csv(f"{prefix}.csv")
    assert table.columns.tolist()[:len(SWEEP_COLUMNS)] == SWEEP_COLUMNS
    assert table["offered_load"].tolist() == [0.02, 0.04, 0.06]
    assert table["traffic.messages"].tolist() == [5000] * 3 and table["nic.security"].tolist() == ["SKC-16"] * 3
    assert table["drained"].all()
    # Far below saturation, everything offered is accepted.
    low = table.iloc[0]
    assert low["accepted_throughput"] == pytest.approx(low["offered_throughput"], rel=0.05)
    assert low["offered_throughput"] == pytest.approx(0.02, rel=0.1)
    assert (table["latency_p99_ns"] >= table["latency_p50_ns"]).all()
    for result_file in table["result_file"]:
        assert result_of(Path(result_file))["config"]["nic"]["security"] == "SKC-16"
    png = Path(f"{prefix}.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    meta = json.loads(Path(f"{prefix}.meta.json").read_text())
    assert "--sweep-load 0.02:0.06:0.02" in meta["command"]
    assert meta["parameters"]["base_config"] == json.loads((CONFIGS / "paper-16.json").read_text())
    assert meta["parameters"]["overrides"] == ["traffic.messages=5000", "nic.security=SKC-16"]
    assert meta["parameters"]["engine"]["systemc_version"]
    assert meta["ibsec_version"]
    csv_before = Path(f"{prefix}.csv").read_bytes()
    again = run_ibsec_with_engine(wrapper, *args)
    assert again.returncode == 0, again.stderr
    assert len(engine_runs(log)) == 3  # every point came from the store
    assert Path(f"{prefix}.csv").read_bytes() == csv_before


@pytest.mark.model
def test_load_sweep_resumes_a_partial_or_torn_store(tmp_path, engine):
    wrapper, log = logging_engine(tmp_path, engine)
    prefix = tmp_path / "resume"
    first = run_ibsec_with_engine(wrapper, *sweep_args(prefix, "0.02,0.04"))
    assert first.returncode == 0, first.stderr
    two = pd.read_csv(f"{prefix}.csv")
    store = tmp_path / "resume.runs" / "points.jsonl"
    assert len(store.read_text().splitlines()) == 2
    with open(store, "a") as handle:  # a kill in the middle of a line
        handle.write('{"point": {"config": {}, "overrides": [], "traffic.load": 0.06}, "resu')
    done = run_ibsec_with_engine(wrapper, *sweep_args(prefix, "0.02,0.04,0.06"))
    assert done.returncode == 0, done.stderr
    runs = engine_runs(log)
    assert len(runs) == 3 and "traffic.load=0.06" in runs[-1]
    three = pd.read_csv(f"{prefix}.csv")
    assert three["offered_load"].tolist() == [0.02, 0.04, 0.06]
    pd.testing.assert_frame_equal(three.iloc[:2], two)
    # Changing an override is a different sweep: nothing is reused.
    other = run_ibsec_with_engine(wrapper, *sweep_args(prefix, "0.02", "--set", "seed=2"))
    assert other.returncode == 0, other.stderr
    assert len(engine_runs(log)) == 4


@pytest.mark.model
def test_a_failed_load_point_does_not_stop_the_others_and_is_retried(tmp_path, engine):
    wrapper, log = logging_engine(tmp_path, engine, fail_on="traffic.load=0.04")
    prefix = tmp_path / "flaky"
    done = run_ibsec_with_engine(wrapper, *sweep_args(prefix, "0.02,0.04,0.06"))
    assert done.returncode == 1
    assert "1 of 3 load points failed" in done.stderr and "injected failure" in done.stderr
    assert "Traceback" not in done.stderr
    table = pd.read_csv(f"{prefix}.csv")
    assert table["offered_load"].tolist() == [0.02, 0.04, 0.06]
    assert table["latency_mean_ns"].notna().tolist() == [True, False, True]
    assert "injected failure" in table["error"][1]
    retry = run_ibsec_with_engine(engine, *sweep_args(prefix, "0.02,0.04,0.06"))  # the real engine
    assert retry.returncode == 0, retry.stderr
    assert len(engine_runs(log)) == 3  # the retry went to the real engine, not through the wrapper
    table = pd.read_csv(f"{prefix}.csv")
    assert table["latency_mean_ns"].notna().all() and "error" not in table


@pytest.mark.model
def test_saturated_points_are_rows_with_drained_false(tmp_path, engine):
    prefix = tmp_path / "saturated"
    done = run_ibsec(*sweep_args(prefix, "0.02,0.9", "--set", "sim.drain_timeout_us=1"))
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(f"{prefix}.csv")
    assert table["offered_load"].tolist() == [0.02, 0.9]
    assert not table["drained"].iloc[1]
    assert Path(table["result_file"].iloc[1]).is_file()
    assert table["accepted_throughput"].iloc[1] < table["offered_throughput"].iloc[1]


@pytest.mark.unit
@pytest.mark.parametrize(
    "extra,needle",
    [
        (["--sweep-load", "0,0.5"], "a load must be > 0"),
        (["--sweep-load=-0.1,0.5"], "a load must be > 0"),
        (["--sweep-load", "0.5:1.5:0.5"], "loads must be <= 1"),
        (["--sweep-load", "0.1:0.2"], "invalid '--sweep-load'"),
        (["--sweep-load", "fast"], "invalid '--sweep-load'"),
        (["--sweep-load", "0.1", "--set", "traffic.load=0.2"], "drop --set traffic.load=0.2"),
    ],
)
def test_bad_load_sweeps_are_clear_errors(tmp_path, extra, needle):
    done = run_ibsec("run", *extra, "--out", str(tmp_path / "x"), "--quiet")
    assert done.returncode == 2
    assert needle in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "x.csv").exists()


@pytest.mark.model
def test_poisson_load_sweep_may_exceed_one(tmp_path, engine):
    prefix = tmp_path / "poisson"
    done = run_ibsec("run", "--set", "traffic.injection=poisson", "--set", "traffic.messages=2000",
                     "--sweep-load", "1.5", "--out", str(prefix), "--quiet")
    assert done.returncode == 0, done.stderr
    assert pd.read_csv(f"{prefix}.csv")["offered_load"].tolist() == [1.5]


@pytest.mark.unit
def test_sweep_needs_out(engine):
    done = run_ibsec("run", "--sweep-load", "0.1,0.2")
    assert done.returncode == 2 and "invalid '--out'" in done.stderr


@pytest.mark.unit
def test_security_figure_orders_the_card_configurations(tmp_path):
    """The study's cycle-level table: security costs latency, a cache that holds every key costs least."""
    from ibsec.paper.figures import security

    table = security(tmp_path, messages=3000).set_index("configuration")
    mean = table["latency_mean_ns"]
    assert mean["NoSecurity"] < mean["SKC-16"] < mean["SKC-6"] < mean["NoSKC"]
    # SKC-16 holds all 15 peers' keys: only the cold misses remain.
    assert table.loc["SKC-16", "skc_hit_rate"] > 0.95
    assert table.loc["NoSKC", "skc_hit_rate"] == 0
    assert (tmp_path / "security_overhead.csv").exists() and (tmp_path / "security_overhead.png").exists()


# ---- attacks ----------------------------------------------------------------

@pytest.mark.unit
@pytest.mark.parametrize("attack_file", sorted((CONFIGS / "attacks").glob("*.json")), ids=lambda p: p.stem)
def test_every_shipped_attack_is_stopped_with_security_and_gets_through_without(tmp_path, engine, attack_file):
    outcomes = {}
    for security in ("SKC-6", "NoSecurity"):
        out = tmp_path / f"{security}.json"
        done = run_ibsec("run", str(CONFIGS / "paper-16.json"), "--attack", str(attack_file), *SMALL,
                         "--set", f"nic.security={security}", "--set", f"attack.capture_file={tmp_path / 'cap.csv'}",
                         "--out", str(out))
        assert done.returncode == 0, done.stderr
        assert f"under {security}" in done.stderr and "delivered despite attack" in done.stderr
        outcomes[security] = result_of(out)["attack"]
    secure, open_ = outcomes["SKC-6"], outcomes["NoSecurity"]
    assert secure["delivered_despite_attack"] == 0 and secure["false_drops"] == 0
    assert secure["detected"] == secure["attacked"]
    assert secure["snooped_plaintext"] == 0
    assert open_["delivered_despite_attack"] == open_["attacked"]
    assert open_["snooped_plaintext"] == open_["snooped"]
    assert secure["attacked"] + secure["snooped"] > 100, "the attack did something"


@pytest.mark.unit
@pytest.mark.parametrize("args, needle", [
    (["--attack", "missing-attack.json"], "missing-attack.json"),
    (["--attack", str(CONFIGS / "paper-16.json")], "must set attack.link"),
    (["--attack", str(CONFIGS / "attacks" / "all-kinds.json"), "--set", "nic.crypto.mode=timing"], "functional"),
    (["--attack", "missing-attack.json", "--sweep-load", "0.1", "--out", "x"], "missing-attack.json"),
])
def test_bad_attacks_are_clear_errors(tmp_path, engine, args, needle):
    done = run_ibsec("run", *args, "--quiet")
    assert done.returncode == 2, done.stderr
    assert needle in done.stderr and "Traceback" not in done.stderr


@pytest.mark.model
def test_load_sweep_under_attack_has_the_attack_columns_and_resumes(tmp_path, engine):
    prefix = tmp_path / "attacked"
    args = ["run", str(CONFIGS / "paper-16.json"), "--attack", str(CONFIGS / "attacks" / "all-kinds.json"), *SMALL,
            "--sweep-load", "0.02,0.04", "--out", str(prefix), "--quiet"]
    done = run_ibsec(*args)
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(f"{prefix}.csv")
    assert (table["attack_link"] == "node 0 out").all()
    assert (table["attack_attacked"] > 0).all()
    assert (table["attack_detected"] == table["attack_attacked"]).all()
    assert (table["attack_delivered_despite_attack"] == 0).all() and (table["attack_false_drops"] == 0).all()
    assert (table["attack_tamper_detected"] == table["attack_tamper_attacked"]).all()
    meta = json.loads(Path(f"{prefix}.meta.json").read_text())
    assert meta["parameters"]["attack"]["attack"]["link"] == "node 0 out"
    # The same sweep without the attack file is another sweep: its points are not reused.
    plain = run_ibsec("run", str(CONFIGS / "paper-16.json"), *SMALL, "--set", "nic.crypto.mode=functional",
                      "--sweep-load", "0.02,0.04", "--out", str(prefix), "--quiet")
    assert plain.returncode == 0, plain.stderr
    assert "attack_link" not in pd.read_csv(f"{prefix}.csv")
