"""`ibsec sweep` ends with a summary: points run now, skipped (already in the store) and failed, then each point's
varying parameters, status and key statistic, and where the whole table is."""

import pandas as pd
import pytest

from conftest import run_ibsec
from ibsec.runs.spec import load_spec
from ibsec.runs.spec_sweep import SUMMARY_ROWS, summary

SPEC = """kind = "cachesim"
seeds = [1, 2]
[set]
accesses = 20000
entries = 64
on_mean = 1.0
off_mean = 3.0
[grid]
keys = [100, 200, 300]
"""


def run_spec(tmp_path, rows: list[dict]):
    """A `run` spec over two security modes and two traces in tmp_path/traces/, and a table of its rows."""
    (tmp_path / "traces").mkdir()
    for name in ("cg", "ft"):
        (tmp_path / "traces" / f"{name}.trace.gz").touch()
    path = tmp_path / "s.toml"
    path.write_text('kind = "run"\n[grid]\n"nic.security" = ["SKC-2", "SKC-4"]\n'
                    '"trace.file" = ["traces/cg.trace.gz", "traces/ft.trace.gz"]\n')
    return load_spec(path), pd.DataFrame(rows)


@pytest.mark.unit
def test_summary_counts_shows_key_statistics_and_short_trace_names(tmp_path):
    rows = [{"nic.security": s, "trace.file": str(tmp_path / "traces" / f"{t}.trace.gz"), "seed": 1,
             "status": "ok", "error": "", "latency_mean_ns": 1500.0, "skc_hit_rate": 0.5, "packets_delivered": 10}
            for s in ("SKC-2", "SKC-4") for t in ("cg", "ft")]
    rows[3].update(status="failed", latency_mean_ns=None, skc_hit_rate=None)
    spec, table = run_spec(tmp_path, rows)
    text = summary(spec, table, computed=3, failed=1, out=tmp_path / "out")
    lines = text.splitlines()
    assert lines[0] == f"4 points: 2 run now, 1 skipped (already in {tmp_path / 'out' / 'points.jsonl'}), 1 failed"
    assert lines[1].split() == ["nic.security", "trace.file", "status", "latency_mean", "skc_hit_rate"]
    assert "cg.trace.gz" in lines[2] and "traces/" not in text  # a trace path's folders take the width
    assert "1.5 µs" in lines[2] and "failed" in lines[5]
    assert "seed" not in lines[1] and "packets_delivered" not in text  # constant columns and the rest: in the table
    assert lines[-1] == f"(the whole table: {tmp_path / 'out' / 'sweep.csv'} and {tmp_path / 'out' / 'sweep.parquet'})"


@pytest.mark.unit
def test_summary_shows_the_first_rows_of_a_long_sweep(tmp_path):
    rows = [{"nic.security": f"SKC-{n}", "status": "ok", "skc_hit_rate": 0.1} for n in range(1, 31)]
    spec, table = run_spec(tmp_path, rows)
    text = summary(spec, table, computed=30, failed=0, out=tmp_path)
    assert len(text.splitlines()) == 1 + 1 + SUMMARY_ROWS + 1
    assert f"(first {SUMMARY_ROWS} of 30 rows; the whole table:" in text


@pytest.mark.model
def test_sweep_prints_its_summary_and_the_rerun_skips_every_point(tmp_path, engine):
    (tmp_path / "s.toml").write_text(SPEC)
    args = ("sweep", str(tmp_path / "s.toml"), "--out", str(tmp_path / "out"), "--jobs", "2")
    first, again = run_ibsec(*args), run_ibsec(*args)
    assert first.returncode == 0 and again.returncode == 0, first.stderr + again.stderr
    store = tmp_path / "out" / "points.jsonl"
    assert first.stdout.startswith(f"6 points: 6 run now, 0 skipped (already in {store}), 0 failed\n")
    assert again.stdout.startswith(f"6 points: 0 run now, 6 skipped (already in {store}), 0 failed\n")
    assert first.stdout.splitlines()[1].split() == ["keys", "seed", "status", "hit_rate"]
    assert len(first.stdout.splitlines()) == 1 + 1 + 6 + 1
