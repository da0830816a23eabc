"""Resumable sweeps: finished points survive a kill and are not computed again."""

import json

import pandas as pd
import pytest

from conftest import run_ibsec
from ibsec.errors import ConfigError, IbsecError
from ibsec.runs.ranges import parse_sweep
from ibsec.runs.store import run_points


@pytest.mark.unit
def test_parse_sweep_forms():
    assert parse_sweep("keys=1000:3000:1000") == ("keys", [1000, 2000, 3000])
    assert parse_sweep("ways=1,2,0") == ("ways", [1, 2, 0])
    assert parse_sweep("policy=lru,fifo") == ("policy", ["lru", "fifo"])
    assert parse_sweep("on-mean=0.5:1.5:0.5") == ("on_mean", [0.5, 1.0, 1.5])
    for bad in ["keys", "keys=", "=1,2", "keys=1:2", "keys=5:1:0"]:
        with pytest.raises(ConfigError):
            parse_sweep(bad)


@pytest.mark.unit
def test_rerun_computes_only_missing_and_failed_points(tmp_path):
    store = tmp_path / "points.jsonl"
    calls = []
    failed_once = []

    def flaky(point):
        calls.append(point["x"])
        if point["x"] == 3 and not failed_once:
            failed_once.append(True)
            raise IbsecError("transient")
        return {"x": point["x"], "y": point["x"] ** 2}

    points = [{"x": i} for i in range(5)]
    with pytest.raises(IbsecError, match="1 of 5"):
        run_points(points, flaky, store=store, jobs=2, quiet=True)
    assert sorted(calls) == [0, 1, 2, 3, 4]
    # A kill mid-write leaves a torn last line; it must be ignored.
    with open(store, "a") as handle:
        handle.write('{"point": {"x": 9}, "res')
    calls.clear()
    results = run_points(points, flaky, store=store, jobs=2, quiet=True)
    assert calls == [3]
    assert [r["y"] for r in results] == [0, 1, 4, 9, 16]


SWEEP = ["cachesim", "--entries", "64", "--on-mean", "1", "--off-mean", "3", "--accesses", "20000", "--sweep",
         "keys=100:400:100", "--quiet"]


@pytest.mark.model
def test_cli_sweep_writes_csv_and_leaves_nothing_beside_it(tmp_path, engine):
    out = tmp_path / "sweep.csv"
    done = run_ibsec(*SWEEP, "--out", str(out))
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(out)
    assert table["keys"].tolist() == [100, 200, 300, 400]
    assert (table["hit_rate"].diff().dropna() < 0).all()  # more sessions, fewer hits
    # Every point is in the table: the hidden store and its lock, kept for resuming, are gone.
    assert [p.name for p in tmp_path.iterdir()] == ["sweep.csv"]


@pytest.mark.model
def test_cli_sweep_resumes_an_unfinished_store_then_removes_it(tmp_path, engine):
    """A store left by an interrupted sweep is reused: its point is not run again (its made-up hit rate is what
    the table shows), the others are; once the table is complete the store and its lock are removed."""
    from ibsec.models.cachesim import check_point, identity

    out, store = tmp_path / "sweep.csv", tmp_path / ".sweep.csv.points.jsonl"
    point = check_point({"entries": 64, "on_mean": 1.0, "off_mean": 3.0, "accesses": 20000, "keys": 200})
    store.write_text(json.dumps({"point": identity(point), "result": {"keys": 200, "hit_rate": 0.123456}}) + "\n")
    done = run_ibsec(*SWEEP, "--out", str(out))
    assert done.returncode == 0, done.stderr
    hit_rates = dict(zip(*pd.read_csv(out)[["keys", "hit_rate"]].T.values, strict=True))
    assert hit_rates[200] == 0.123456
    assert hit_rates[100] > hit_rates[300] > hit_rates[400] > 0  # computed now
    assert not store.exists() and not (tmp_path / ".sweep.csv.points.jsonl.lock").exists()


@pytest.mark.unit
def test_cli_sweep_without_out_is_an_error(engine):
    done = run_ibsec("cachesim", "--sweep", "keys=1,2")
    assert done.returncode == 2 and "invalid '--out'" in done.stderr
