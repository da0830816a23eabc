"""Long runs (minutes), left out of the default test run: `python -m pytest tests/python -m soak`."""

import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.soak


def test_quick_reproduction_from_nothing(tmp_path, engine):
    """`ibsec reproduce --quick` from no traces at all: every figure, the report, then a rerun from the stores."""
    out = tmp_path / "results"
    command = [sys.executable, "-m", "ibsec.cli", "reproduce", "--quick", "--out", str(out),
               "--traces", str(tmp_path / "workloads"), "--mix-traces", str(tmp_path / "mixes"), "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = (out / "REPORT.md").read_text()
    assert "not run" not in report
    assert re.search(r"\d+ statements: \d+ agree", report)
    for name in ("fig3_capacity", "fig5_workloads", "fig5d_packet_size", "fig8_hit_rate_vs_keys", "fig9_associativity",
                 "table1_execution_time", "schedulers/fig6_nas15", "schedulers/fig6_ft-jbb6", "schedulers/fig7_nas15"):
        assert (out / f"{name}.csv").is_file() and (out / f"{name}.png").is_file(), name
    again = subprocess.run(command, capture_output=True, text=True, check=False, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
