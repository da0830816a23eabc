"""Issue 16, item 19 (the Python parts): misleading or missing messages, conflicts resolved without a word."""

import json
import re

import pytest

from .helpers import PAPER_16, REPO, fake_engine, ibsec, no_traceback

CRASHING = 'echo "ibsec-engine: about to fall over" >&2\nkill -SEGV $$\n'


@pytest.mark.unit
def test_an_engine_killed_by_a_signal_is_named_as_a_bug_in_run(tmp_path, monkeypatch):
    """Item 19: `ibsec run` exited 139 with no message; now it names the signal, says it is a bug and where the
    engine's standard error went (the terminal: it is not captured)."""
    monkeypatch.setenv("IBSEC_ENGINE", str(fake_engine(tmp_path, CRASHING)))
    done = ibsec("run", str(PAPER_16), "--quiet")
    assert done.returncode == 139 and no_traceback(done)
    assert "ibsec-engine was killed by SIGSEGV (11)" in done.stderr
    assert "this is a bug in ibsec-engine" in done.stderr and "its standard error is above" in done.stderr
    assert "about to fall over" in done.stderr


@pytest.mark.unit
def test_an_engine_killed_by_a_signal_in_cachesim_shows_its_captured_stderr(tmp_path, monkeypatch):
    """Item 19: where the engine's standard error is captured, the message carries its last lines."""
    monkeypatch.setenv("IBSEC_ENGINE", str(fake_engine(tmp_path, CRASHING)))
    done = ibsec("cachesim", "--accesses", "1000")
    assert done.returncode == 139 and no_traceback(done)
    assert "killed by SIGSEGV (11)" in done.stderr
    assert "its standard error ended: ibsec-engine: about to fall over" in done.stderr


@pytest.mark.unit
def test_an_engine_killed_by_a_signal_in_a_trace_tool(tmp_path, monkeypatch):
    """Item 19: `ibsec trace info|validate|convert` pass the engine's exit on, now with the message."""
    monkeypatch.setenv("IBSEC_ENGINE", str(fake_engine(tmp_path, 'kill -ABRT $$\n')))
    done = ibsec("trace", "info", str(tmp_path / "any.trace"))
    assert done.returncode == 134 and "killed by SIGABRT (6)" in done.stderr


@pytest.mark.model
def test_a_cachesim_sweep_with_one_failed_point_writes_the_others(tmp_path, monkeypatch, engine):
    """Item 19: a cachesim --sweep with one failed point wrote no table at all; now the others are written, the
    failed point's row holds its error, and the command exits non-zero saying so."""
    failing = fake_engine(tmp_path, f'''case " $* " in
  *" --keys 13 "*) echo "ibsec-engine: error: invalid 'keys': thirteen refused by this test" >&2; exit 2;;
esac
exec "{engine}" "$@"
''')
    monkeypatch.setenv("IBSEC_ENGINE", str(failing))
    out = tmp_path / "keys.csv"
    done = ibsec("cachesim", "--sweep", "keys=12,13,14", "--accesses", "2000", "--out", str(out), "--quiet")
    assert done.returncode == 2 and no_traceback(done)
    assert "1 of 3 points failed (first, keys=13: invalid 'keys': thirteen refused by this test)" in done.stderr
    assert f"the others are in {out}" in done.stderr
    import pandas as pd

    table = pd.read_csv(out)
    assert table["keys"].tolist() == [12, 13, 14]
    assert table["hit_rate"].notna().tolist() == [True, False, True]
    assert "thirteen refused" in table["error"][1]
    # Run again with the engine fixed: only the failed point runs, and the table is whole.
    monkeypatch.setenv("IBSEC_ENGINE", engine)
    again = ibsec("cachesim", "--sweep", "keys=12,13,14", "--accesses", "2000", "--out", str(out), "--quiet")
    assert again.returncode == 0, again.stderr
    assert pd.read_csv(out)["hit_rate"].notna().all()


@pytest.mark.unit
def test_study_jobs_zero_is_refused(tmp_path):
    """Item 19: `study --jobs 0` was taken as "the default" (0 is falsy)."""
    done = ibsec("study", "--jobs", "0", "--out", str(tmp_path / "r"), "--traces", str(tmp_path / "w"))
    assert done.returncode == 2 and "argument --jobs: must be at least 1, got '0'" in done.stderr
    assert not (tmp_path / "r").exists()


@pytest.mark.unit
def test_cachesim_warmup_minus_five_is_refused():
    """Item 19 (and 7): `cachesim --warmup -5` was accepted."""
    done = ibsec("cachesim", "--warmup", "-5")
    assert done.returncode == 2 and "argument --warmup: must be at least 0" in done.stderr


@pytest.mark.unit
@pytest.mark.parametrize("means,source", [
    ([], "CG/origin2000"),
    (["--on-mean", "1", "--off-mean", "2"], "custom"),  # said CG/origin2000: neither mean is the preset's
    (["--on-mean", "1"], "CG/origin2000 with custom on_mean"),
    (["--off-mean", "2"], "CG/origin2000 with custom off_mean"),
])
def test_the_analytic_source_says_where_the_means_came_from(means, source):
    """Item 19: the analytic `source` said "CG/origin2000" when custom means were given."""
    done = ibsec("analytic", "hitrate", "--entries", "3", "--processes", "4", "--preset", "CG", *means, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["source"] == source


@pytest.mark.unit
def test_running_md_says_latencies_are_null_when_nothing_was_measured():
    """Item 19: docs/running.md said the latencies are 0 when no measured packet arrived; the engine writes null
    (sim/run_statistics.cpp latency_ns)."""
    text = (REPO / "docs" / "running.md").read_text()
    paragraph = text[text.index("If no measured packet was delivered"):]
    paragraph = paragraph[:paragraph.index("\n\n")]
    assert "`null`" in paragraph and not re.search(r"latencies as 0\b", paragraph)
