"""`ibsec sweep SPEC --out DIR`: spec checks, runs on Dask, kill and resume, failed points, batch scripts."""

import json
import logging
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest

from conftest import REPO, run_engine, run_ibsec
from ibsec.errors import ConfigError
from ibsec.runs.spec import load_spec
from ibsec.runs.store import load_store, point_key, run_points

PAPER_16 = REPO / "configs" / "paper-16.json"
# About 0.4 s per engine run: long enough to kill a sweep between two points, short for a test.
KILL_MESSAGES = 300_000


def write_spec(folder: Path, spec: dict, name: str = "spec.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(spec))
    return path


def ibsec_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "ibsec.cli", *args]


def store_records(store: Path) -> list[dict]:
    """The store's complete records (a torn last line is left out, as load_store does)."""
    records = []
    for line in store.read_text().splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return records


# ---- spec checks -------------------------------------------------------------------

SPEC_ERRORS = [
    ({"kind": "fast"}, "invalid 'kind': unknown kind 'fast' (known: run, cachesim, analytic)"),
    ({"grid": {"keys": [1]}}, "invalid 'kind': missing: the kind of point (run, cachesim, analytic)"),
    ({"kind": "cachesim", "grid": {}},
     "invalid 'grid': empty: give at least one NAME = [VALUES] (or leave the grid out)"),
    ({"kind": "cachesim", "grid": {"keys": []}}, "invalid 'grid.keys': empty list: a grid of no values has no points"),
    ({"kind": "cachesim", "grid": {"keys": 100}}, "invalid 'grid.keys': expected a list of values, got 100"),
    ({"kind": "cachesim", "grid": {"keys": [1, 2, 1]}}, "invalid 'grid.keys': repeats the value 1"),
    ({"kind": "cachesim", "seeds": 3}, "invalid 'seeds': expected a list of whole numbers, got 3"),
    ({"kind": "cachesim", "seeds": [1, "2"]},
     "invalid 'seeds[1]': expected a whole number from 0 to 18446744073709551615, got '2'"),
    ({"kind": "cachesim", "seeds": []},
     "invalid 'seeds': empty list: give at least one seed (or leave seeds out for [1])"),
    ({"kind": "cachesim", "grid": {"bananas": [1]}},
     "invalid 'grid.bananas': not a cachesim parameter (known: keys, cards, card_sessions, entries, size, "
     "entry_bytes, ways, policy, on_mean, off_mean, on_period, off_period, access_rate, accesses, warmup, preset, "
     "machine)"),  # the engine's order (`ibsec-engine params --command cachesim`)
    ({"kind": "cachesim", "set": {"seed": 3}},
     "invalid 'set.seed': give seeds in the 'seeds' list: the seed is part of every point"),
    ({"kind": "cachesim", "set": {"keys": 10}, "grid": {"keys": [1, 2]}},
     "invalid 'grid.keys': also in 'set': a parameter is either fixed or varied"),
    ({"kind": "cachesim", "points": [{"keys": 2}, {"keys": 2}]},
     "invalid 'points[1]': repeats a point already in the sweep ({\"keys\": 2})"),
    ({"kind": "cachesim", "points": [{"ways": [2]}]}, "invalid 'points[0].ways': expected a number or text, got [2]"),
    ({"kind": "cachesim", "config": "paper-16.json"},
     "invalid 'config': only a 'run' sweep has a base config, not a 'cachesim' one"),
    ({"kind": "cachesim", "grids": {}},
     "invalid 'grids': not a field of a sweep spec (known: kind, description, config, set, grid, points, seeds)"),
    ({"kind": "analytic", "seeds": [1]}, "invalid 'seeds': the analytic model has no randomness: drop the seeds"),
    ({"kind": "analytic", "grid": {"entries": [4]}},
     "invalid 'model': missing: every analytic point needs a model (hitrate or capacity), in 'set', 'grid' or "
     "the point"),
    ({"kind": "analytic", "set": {"model": "guess"}},
     "invalid 'set.model': unknown model 'guess' (known: hitrate, capacity)"),
    ({"kind": "run", "config": "missing.json"}, "invalid 'config': file '{dir}/missing.json' does not exist"),
    ({"kind": "run", "grid": {"nic.bananas": [1]}},
     "invalid 'grid.nic.bananas': not an ibsec-engine run parameter (`ibsec params` lists them)"),
    ({"kind": "run", "grid": {"trace.file": ["cg.trace.gz"]}},
     "invalid 'grid.trace.file': trace '{dir}/cg.trace.gz' does not exist"),
    ({"kind": "run", "set": {"trace.placement": "nodes.txt"}},
     "invalid 'set.trace.placement': placement file '{dir}/nodes.txt' does not exist"),
]


@pytest.mark.unit
@pytest.mark.parametrize("spec, message", SPEC_ERRORS, ids=[m.split("'")[1] for _, m in SPEC_ERRORS])
def test_spec_errors_name_the_file_and_the_field(tmp_path, engine, spec, message):
    path = write_spec(tmp_path, spec)
    with pytest.raises(ConfigError) as caught:
        load_spec(path)
    assert str(caught.value) == f"{path}: " + message.replace("{dir}", str(tmp_path))


@pytest.mark.unit
def test_a_placement_file_is_found_beside_the_spec_and_a_rule_is_kept(tmp_path, engine):
    (tmp_path / "nodes.txt").write_text("0 1\n")
    spec = load_spec(write_spec(tmp_path, {"kind": "run", "grid": {"trace.placement": ["nodes.txt", "block"]}}))
    assert [p["trace.placement"] for p in spec.parameter_sets()] == [str(tmp_path / "nodes.txt"), "block"]


@pytest.mark.unit
def test_toml_dates_are_not_values(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text('kind = "cachesim"\n[grid]\nkeys = [1979-05-27]\n')
    with pytest.raises(ConfigError) as caught:
        load_spec(path)
    assert str(caught.value) == (f"{path}: invalid 'grid.keys': expected numbers, text, true/false or lists of them, "
                                 "got [datetime.date(1979, 5, 27)]")


@pytest.mark.unit
def test_toml_and_json_specs_give_the_same_points(tmp_path, engine):
    toml = tmp_path / "spec.toml"
    toml.write_text('kind = "run"\nconfig = "base.json"\nseeds = [1, 2]\n[set]\n"traffic.messages" = 1000\n'
                    '[grid]\n"nic.security" = ["SKC-2", "SKC-6"]\n"nic.skc.ways" = [0, 2]\n'
                    '[[points]]\n"nic.security" = "NoSKC"\n')
    (tmp_path / "base.json").write_text(PAPER_16.read_text())
    spec = {"kind": "run", "config": "base.json", "seeds": [1, 2], "set": {"traffic.messages": 1000},
            "grid": {"nic.security": ["SKC-2", "SKC-6"], "nic.skc.ways": [0, 2]}, "points": [{"nic.security": "NoSKC"}]}
    from_toml, from_json = load_spec(toml), load_spec(write_spec(tmp_path, spec))
    assert from_toml.parameter_sets() == from_json.parameter_sets()
    assert from_toml.config == tmp_path / "base.json"
    assert [p["nic.security"] + str(p.get("nic.skc.ways")) for p in from_toml.parameter_sets()] == \
        ["SKC-20", "SKC-22", "SKC-60", "SKC-62", "NoSKCNone"]


@pytest.mark.unit
def test_a_bad_spec_exits_2_naming_the_file(tmp_path, engine):
    path = write_spec(tmp_path, {"kind": "run", "grid": {"nic.security": "SKC-2"}})
    done = run_ibsec("sweep", str(path), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert done.stderr.strip() == (f"ibsec: error: {path}: invalid 'grid.nic.security': "
                                   "expected a list of values, got 'SKC-2'")
    assert not (tmp_path / "out").exists()


@pytest.mark.unit
def test_shipped_example_spec_reads(tmp_path, engine):
    """configs/sweeps/skc-ways.toml, with its traces made small, is a valid spec of 96 points."""
    (tmp_path / "configs" / "sweeps").mkdir(parents=True)
    (tmp_path / "configs" / "paper-16.json").write_text(PAPER_16.read_text())
    example = tmp_path / "configs" / "sweeps" / "skc-ways.toml"
    example.write_text((REPO / "configs" / "sweeps" / "skc-ways.toml").read_text())
    (tmp_path / "workloads").mkdir()
    for bench in ("CG", "FT", "LU", "MG"):
        (tmp_path / "workloads" / f"{bench.lower()}.trace.gz").write_text("")  # only their existence is read
    spec = load_spec(example)
    assert spec.kind == "run" and spec.config == tmp_path / "configs" / "paper-16.json"
    assert len(spec.parameter_sets()) * len(spec.seeds) == 96


# ---- the store ---------------------------------------------------------------------

@pytest.mark.unit
def test_run_points_uses_a_given_executor_and_leaves_it_open(tmp_path):
    store = tmp_path / "points.jsonl"
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = run_points([{"x": i} for i in range(4)], lambda p: {"y": p["x"] * 10}, store=store, quiet=True,
                             executor=pool)
        assert pool.submit(lambda: 7).result() == 7  # still usable: the caller owns it
    assert [r["y"] for r in results] == [0, 10, 20, 30]
    assert len(store_records(store)) == 4


@pytest.mark.unit
def test_a_record_after_a_torn_line_is_kept(tmp_path):
    store = tmp_path / "points.jsonl"
    store.write_text('{"point": {"x": 0}, "result": {"y": 0}}\n{"point": {"x": 1}, "res')  # killed mid-write
    run_points([{"x": 0}, {"x": 1}], lambda p: {"y": p["x"]}, store=store, quiet=True)
    assert set(load_store(store)) == {point_key({"x": 0}), point_key({"x": 1})}


# ---- run sweeps on a local Dask cluster ------------------------------------------------

def run_spec(tmp_path: Path, messages: int) -> Path:
    """8 engine runs: 2 SKC sizes x 2 associativities x 2 seeds."""
    return write_spec(tmp_path, {"kind": "run", "config": str(PAPER_16), "set": {"traffic.messages": messages},
                                 "grid": {"nic.security": ["SKC-2", "SKC-6"], "nic.skc.ways": [0, 2]},
                                 "seeds": [1, 2]})


def process_group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def processes() -> list[tuple[int, str]]:
    """(process group, command line) of every process on the machine."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            group = int(stat.read_text().rsplit(")", 1)[1].split()[2])
            found.append((group, (stat.parent / "cmdline").read_text().replace("\0", " ")))
        except (OSError, IndexError, ValueError):
            pass  # ended while we looked
    return found


def wait_for_partial_store(store: Path, total: int, sweep: subprocess.Popen) -> int:
    """Block until some but not all points are in the store; the number finished."""
    give_up = time.monotonic() + 600  # a hung sweep fails the test instead of hanging it
    while sweep.poll() is None and time.monotonic() < give_up:
        finished = sum("result" in r for r in store_records(store)) if store.exists() else 0
        if 0 < finished < total:
            return finished
        time.sleep(0.02)
    if sweep.poll() is None:
        os.killpg(sweep.pid, signal.SIGKILL)
        pytest.fail("the sweep stored no point in 10 minutes")
    pytest.fail(f"the sweep ended (exit {sweep.returncode}) before it could be killed: {sweep.stderr.read()}")


@pytest.mark.model
def test_killed_sweep_resumes_and_matches_a_direct_run(tmp_path, engine):
    spec, out = run_spec(tmp_path, KILL_MESSAGES), tmp_path / "out"
    command = ibsec_command("sweep", str(spec), "--out", str(out), "--jobs", "1", "--quiet")
    sweep = subprocess.Popen(command, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finished = wait_for_partial_store(out / "points.jsonl", 8, sweep)
    os.killpg(sweep.pid, signal.SIGKILL)  # the sweep, its Dask workers and their engines
    sweep.wait()
    reaped_by = time.monotonic() + 30  # killed processes linger until their new parent reaps them
    while process_group_alive(sweep.pid) and time.monotonic() < reaped_by:
        time.sleep(0.05)
    assert not process_group_alive(sweep.pid), f"left running: {[c for g, c in processes() if g == sweep.pid]}"
    assert not [c for _, c in processes() if str(out) in c]  # no engine escaped the group either
    assert 1 <= finished < 8

    again = subprocess.run(command, capture_output=True, text=True, check=False)
    assert again.returncode == 0, again.stderr
    table = pd.read_csv(out / "sweep.csv")
    assert len(table) == 8 and (table["status"] == "ok").all()
    assert not table.duplicated(["nic.security", "nic.skc.ways", "seed"]).any()
    records = [r for r in store_records(out / "points.jsonl") if "result" in r]
    keys = [point_key(r["point"]) for r in records]
    assert len(keys) == len(set(keys)) == 8  # no point computed twice

    row = table[(table["nic.security"] == "SKC-6") & (table["nic.skc.ways"] == 2) & (table["seed"] == 2)].iloc[0]
    swept = json.loads(Path(row["result_file"]).read_text())["statistics"]
    direct = run_engine(engine, "run", str(PAPER_16), "--set", f"traffic.messages={KILL_MESSAGES}",
                        "--set", "nic.security=SKC-6", "--set", "nic.skc.ways=2", "--set", "seed=2",
                        "--out", str(tmp_path / "direct.json"), "--quiet")
    assert direct.returncode == 0, direct.stderr
    expected = json.loads((tmp_path / "direct.json").read_text())["statistics"]
    assert json.dumps(swept) == json.dumps(expected)
    parquet = pd.read_parquet(out / "sweep.parquet")
    parquet_row = parquet.iloc[int(row.name)]
    for name, value in expected.items():
        if name != "statistics_meta":
            assert parquet_row[name] == value, name


@pytest.mark.model
def test_failed_point_is_recorded_and_retried_alone(tmp_path, engine):
    base = {"kind": "run", "config": str(PAPER_16), "set": {"traffic.messages": 1000}}
    spec = write_spec(tmp_path, {**base, "points": [{"nic.security": "SKC-2"}, {"nic.security": "SKC-many"},
                                                    {"nic.security": "NoSKC"}]})
    out, store = tmp_path / "out", tmp_path / "out" / "points.jsonl"
    first = run_ibsec("sweep", str(spec), "--out", str(out), "--jobs", "2", "--quiet")
    assert first.returncode == 1
    assert first.stderr.startswith('ibsec: error: 1 of 3 points failed; first (traffic.messages=1000, '
                                   'nic.security="SKC-many", seed=1): invalid \'nic.security\'')
    table = pd.read_csv(out / "sweep.csv", keep_default_na=False)
    assert table["status"].tolist() == ["ok", "failed", "ok"]
    assert "invalid 'nic.security'" in table["error"][1] and table["error"][0] == ""
    assert table["latency_mean_ns"][1] == "" and float(table["latency_mean_ns"][0]) > 0
    assert len(store_records(store)) == 3

    second = run_ibsec("sweep", str(spec), "--out", str(out), "--quiet")
    assert second.returncode == 1
    records = store_records(store)
    assert len(records) == 4 and 'nic.security="SKC-many"' in records[3]["point"]["overrides"]

    write_spec(tmp_path, {**base, "points": [{"nic.security": "SKC-2"}, {"nic.security": "SKC-4"},
                                             {"nic.security": "NoSKC"}]})
    fixed = run_ibsec("sweep", str(spec), "--out", str(out), "--quiet")
    assert fixed.returncode == 0, fixed.stderr
    records = store_records(store)
    assert len(records) == 5 and 'nic.security="SKC-4"' in records[4]["point"]["overrides"]
    assert pd.read_csv(out / "sweep.csv")["status"].tolist() == ["ok", "ok", "ok"]


@pytest.mark.model
def test_cachesim_and_analytic_sweeps_write_their_rows(tmp_path, engine):
    cachesim = write_spec(tmp_path, {"kind": "cachesim", "set": {"entries": 16, "preset": "FT", "accesses": 20000},
                                     "grid": {"keys": [20, 200]}, "seeds": [1, 2]}, "cachesim.json")
    done = run_ibsec("sweep", str(cachesim), "--out", str(tmp_path / "cs"), "--jobs", "2", "--quiet")
    assert done.returncode == 0, done.stderr
    table = pd.read_parquet(tmp_path / "cs" / "sweep.parquet")
    assert table[["keys", "seed"]].values.tolist() == [[20, 1], [20, 2], [200, 1], [200, 2]]
    assert table["hit_rate"].between(0, 1).all() and (table["entries"] == 16).all()
    analytic = tmp_path / "analytic.toml"
    hitrate = 'model = "hitrate"\nentries = 3\non_mean = 1\noff_mean = 1\n'
    analytic.write_text(f'kind = "analytic"\n[[points]]\n{hitrate}processes = 2\n[[points]]\n{hitrate}processes = 4\n'
                        '[[points]]\nmodel = "capacity"\nsize = "2KB"\npreset = "BT"\n')
    done = run_ibsec("sweep", str(analytic), "--out", str(tmp_path / "an"), "--quiet")
    assert done.returncode == 0, done.stderr
    rows = pd.read_csv(tmp_path / "an" / "sweep.csv")
    assert rows["hit_rate"][:2].tolist() == [1.0, pytest.approx(15 / 16)]  # F_4(3) = 1 - (1/2)^4
    assert rows["entries"][2] == 128 and rows["capacity"][2] >= 128 and "seed" not in rows


@pytest.mark.model
def test_a_sweep_over_attacks_has_one_column_per_attack_count(tmp_path, engine):
    spec = write_spec(tmp_path, {"kind": "run", "config": str(PAPER_16),
                                 "set": {"nic.crypto.mode": "functional", "attack.link": "node 3 in",
                                         "traffic.messages": 4000, "traffic.warmup_messages": 400},
                                 "grid": {"nic.security": ["SKC-6", "NoSecurity"], "attack.inject": [0.1, 0.5]}})
    done = run_ibsec("sweep", str(spec), "--out", str(tmp_path / "attacks"), "--jobs", "2", "--quiet")
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(tmp_path / "attacks" / "sweep.csv")
    assert (table["attack_link"] == "node 3 in").all()
    secure, open_ = table[table["nic.security"] == "SKC-6"], table[table["nic.security"] == "NoSecurity"]
    assert (secure["attack_inject_detected"] == secure["attack_inject_attacked"]).all()
    assert (secure["attack_delivered_despite_attack"] == 0).all()
    assert (open_["attack_inject_delivered"] == open_["attack_inject_attacked"]).all()
    by_rate = secure.set_index("attack.inject")["attack_inject_attacked"]
    assert by_rate[0.5] > 3 * by_rate[0.1], "the rate is the share of passing packets"


# ---- other clusters --------------------------------------------------------------

@pytest.mark.unit
@pytest.mark.parametrize("system, expected", [
    ("slurm", ["#SBATCH -p debug", "#SBATCH -t 02:30:00", "#SBATCH --mem=16G", "#SBATCH --cpus-per-task=4"]),
    ("pbs", ["#PBS -q debug", "#PBS -l walltime=02:30:00", "#PBS -l select=1:ncpus=4:mem=16GB"]),
])
def test_print_job_script_shows_the_batch_job_without_submitting(engine, system, expected):
    done = run_ibsec("sweep", "--cluster", system, "--queue", "debug", "--walltime", "02:30:00", "--memory", "16GiB",
                     "--cores", "4", "--print-job-script")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for line in expected:
        assert line in lines
    assert f"export IBSEC_ENGINE={engine}" in lines  # the workers run the engine the store is keyed on
    assert any("distributed.cli.dask_worker" in line and "--nthreads 4" in line for line in lines)


@pytest.mark.unit
def test_jobs_means_points_at_once_and_batch_jobs_has_its_own_name(capsys):
    from ibsec.cli.main import build_parser
    from ibsec.cli.options import cluster_options

    def options(*arguments):
        return cluster_options(build_parser().parse_args(["sweep", "s.toml", *arguments]))

    assert options("--jobs", "3").workers == 3
    batch = options("--cluster", "slurm", "--batch-jobs", "4", "--cores", "2", "--memory", "1GiB")
    assert (batch.batch_jobs, batch.workers) == (4, None)
    assert capsys.readouterr().err == ""
    old = options("--cluster", "pbs", "--jobs", "5")  # the old meaning under a batch cluster, with a warning
    assert (old.batch_jobs, old.workers) == (5, None)
    assert "--jobs with --cluster pbs (batch jobs) is deprecated: say --batch-jobs 5" in capsys.readouterr().err
    assert options("--workers", "2").workers == 2
    assert "--workers is deprecated: say --jobs" in capsys.readouterr().err
    with pytest.raises(ConfigError, match="--batch-jobs"):
        options("--batch-jobs", "2")  # a local cluster has no batch jobs


@pytest.mark.unit
def test_batch_options_need_a_batch_cluster(engine):
    done = run_ibsec("sweep", "--queue", "debug", "--print-job-script")
    assert done.returncode == 2 and "invalid '--queue': only with --cluster slurm or --cluster pbs" in done.stderr


@pytest.mark.model
def test_sweep_runs_on_a_given_scheduler(tmp_path, engine):
    from distributed import LocalCluster

    spec = write_spec(tmp_path, {"kind": "cachesim", "set": {"entries": 8, "accesses": 5000},
                                 "grid": {"keys": [10, 20, 40]}})
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp", host="127.0.0.1",
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster:
        done = run_ibsec("sweep", str(spec), "--out", str(tmp_path / "out"), "--scheduler", cluster.scheduler_address,
                         "--quiet")
        assert done.returncode == 0, done.stderr
        assert "run_sweep_point" in cluster.scheduler.task_prefixes  # the points ran on this cluster's workers
    assert pd.read_csv(tmp_path / "out" / "sweep.csv")["keys"].tolist() == [10, 20, 40]
