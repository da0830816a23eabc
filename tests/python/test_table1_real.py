"""The real-trace Table 1 (ibsec.paper.table1_real): what it replays with, how REPORT.md judges its table, and
that it says why when it cannot run. Its captures and replays themselves need NPB and a quiet machine: they run
in `ibsec reproduce` (docs/real-traces.md, "Execution time on real traces")."""

from __future__ import annotations

import pandas as pd
import pytest

from ibsec.paper import report, table1_real
from ibsec.paper.report_tables import Tables
from ibsec.paper.verdicts import AGREES, DIFFERS

pytestmark = pytest.mark.unit


def rows(errors: dict[str, list[float]]) -> pd.DataFrame:
    """A table1_real table whose 2-process rows have these errors (percent) per setting."""
    out = []
    for setting, values in errors.items():
        for i, error in enumerate(values):
            out.append({"bench": f"B{i}", "class": "S", "processes": 2, "setting": setting,
                        "oversubscribed": setting == "one-cpu", "measured_ms": 100.0, "replay_wall_ms": 100.0,
                        "replay_cpu_ms": 100.0, "auto_compute": "cpu" if setting == "one-cpu" else "wall",
                        "reference_ms": 100.0, "error_percent": error, "trace": f"b{i}.trace.zst"})
    out.append({"bench": "B0", "class": "S", "processes": 16, "setting": "shared", "oversubscribed": True,
                "measured_ms": 900.0, "replay_wall_ms": 300.0, "replay_cpu_ms": 120.0, "auto_compute": "cpu",
                "reference_ms": None, "error_percent": None, "trace": "b0.16.trace.zst"})
    return pd.DataFrame(out)


def judged(tmp_path, df: pd.DataFrame):
    df.to_csv(tmp_path / "table1_real.csv", index=False)
    return report.table1_real(Tables(tmp_path))


def test_the_report_judges_the_worst_row_by_the_rule_and_names_those_beyond_ten_percent(tmp_path):
    own, confined = judged(tmp_path, rows({"own-cpus": [-3.0, 6.5], "one-cpu": [-2.0, -12.0]}))
    assert own.verdict == AGREES  # 6.5 % against the paper's worst 7.9 %
    assert "Beyond" not in own.why
    assert "B1.S -12 %" in confined.why and "replay.compute=cpu" in confined.ours
    assert "16" not in own.ours  # the 16-process rows have no reference on this machine


def test_a_replay_far_from_the_measured_run_differs(tmp_path):
    own, _ = judged(tmp_path, rows({"own-cpus": [-3.0, -40.0], "one-cpu": [1.0]}))
    assert own.verdict == DIFFERS


def test_the_markdown_table_shows_every_capture(tmp_path):
    text = table1_real.markdown_table(rows({"own-cpus": [-3.0], "one-cpu": [4.0]}))
    assert text.count("\n") == 2 + 3
    assert "| B0 | S | 2 | 1 |" in text and "+4.0 % (cpu)" in text and "| — | — |" in text


def test_the_fitted_transport_replays_with_vaders_eager_limit_and_no_security():
    overrides = table1_real.Transport("QDR", "4x", 350.0, {}).overrides()
    assert "replay.eager_limit_bytes=4096" in overrides and "nic.security=NoSecurity" in overrides
    assert "network.switch_latency_ns=350.0" in overrides and "network.link_rate=QDR" in overrides


def test_without_npb_the_step_says_why_and_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("IBSEC_NPB_DIR", str(tmp_path / "nowhere"))
    assert table1_real.real_table1_where_possible(tmp_path, quiet=True) is None
    assert "not run: no NPB3.4-MPI.tar.gz" in capsys.readouterr().out
    assert not list(tmp_path.iterdir())
