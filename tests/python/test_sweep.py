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


@pytest.mark.model
def test_cli_sweep_writes_csv_and_resumes(tmp_path, engine):
    out = tmp_path / "sweep.csv"
    args = ["cachesim", "--entries", "64", "--preset", "FT", "--accesses", "20000", "--sweep", "keys=100:400:100",
            "--out", str(out), "--quiet"]
    first = run_ibsec(*args)
    assert first.returncode == 0, first.stderr
    table = pd.read_csv(out)
    assert table["keys"].tolist() == [100, 200, 300, 400]
    assert (table["hit_rate"].diff().dropna() < 0).all()  # more sessions, fewer hits
    store = tmp_path / ".sweep.csv.points.jsonl"
    lines = store.read_text().splitlines()
    assert len(lines) == 4 and all("result" in json.loads(line) for line in lines)
    second = run_ibsec(*args)
    assert second.returncode == 0
    assert len(store.read_text().splitlines()) == 4  # nothing recomputed
    assert pd.read_csv(out).equals(table)


@pytest.mark.unit
def test_cli_sweep_without_out_is_an_error(engine):
    done = run_ibsec("cachesim", "--sweep", "keys=1,2")
    assert done.returncode == 2 and "invalid '--out'" in done.stderr
