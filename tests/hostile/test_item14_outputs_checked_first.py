"""Issue 16, item 14 (Python): an unwritable output was found only after the whole simulation, and the result
thrown away. Every output of a command is checked before it starts (output/files.py check_output_file and
check_output_folder: the nearest existing folder is a folder and writable, the target is not a folder)."""

import json
import os

import pytest

from ibsec.errors import ConfigError
from ibsec.output.files import check_output_file, check_output_folder

from .helpers import PAPER_16, ibsec, no_traceback, recording_engine


@pytest.mark.unit
def test_a_file_in_folders_still_to_make_is_fine(tmp_path):
    """Item 14: missing folders are made, as before; only what cannot be made is refused."""
    check_output_file(tmp_path / "a" / "b" / "r.json", "--out")
    check_output_folder(tmp_path / "a" / "b", "--out")
    check_output_file("-", "--out")


@pytest.mark.unit
@pytest.mark.parametrize("make,problem", [
    (lambda t: (t / "f").write_text("x") and t / "f" / "deeper" / "r.json", "is not a folder"),
    (lambda t: (t / "d").mkdir() or t / "d", "is a folder, not a file"),
    (lambda t: "", "an empty file name"),
])
def test_an_output_file_that_cannot_be_made(tmp_path, make, problem):
    """Item 14: under a regular file, a folder, an empty name."""
    with pytest.raises(ConfigError, match=problem):
        check_output_file(make(tmp_path), "--out")


@pytest.mark.unit
def test_an_output_folder_that_is_a_file(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(ConfigError, match="is a file, not a folder"):
        check_output_folder(tmp_path / "f", "--out")
    with pytest.raises(ConfigError, match="is not a folder"):
        check_output_folder(tmp_path / "f" / "sub", "--out")


@pytest.mark.unit
@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only folder")
def test_a_read_only_folder(tmp_path):
    """Item 14: not writable (only meaningful for a user other than root)."""
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(ConfigError, match="is not writable"):
            check_output_file(folder / "r.json", "--out")
        with pytest.raises(ConfigError, match="is not writable"):
            check_output_folder(folder / "sub", "--out")
    finally:
        folder.chmod(0o755)


@pytest.mark.unit
def test_a_load_sweep_whose_plot_cannot_be_written_runs_no_point(tmp_path, monkeypatch):
    """Item 14: PREFIX.png a folder: refused before the first load point, not after the last."""
    fake, calls = recording_engine(tmp_path)
    monkeypatch.setenv("IBSEC_ENGINE", str(fake))
    (tmp_path / "load.png").mkdir()
    done = ibsec("run", str(PAPER_16), "--sweep-load", "0.1,0.2", "--out", str(tmp_path / "load"), timeout=60)
    assert done.returncode == 2 and no_traceback(done)
    assert "load.png' is a folder, not a file" in done.stderr
    assert not calls.exists() and not (tmp_path / "load.runs").exists()


@pytest.mark.unit
def test_a_sweep_whose_table_cannot_be_written_runs_no_point(tmp_path):
    """Item 14: DIR/sweep.csv a folder: `ibsec sweep` refuses before any point (here analytic ones)."""
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"kind": "analytic", "set": {"model": "hitrate", "entries": 3, "on_mean": 1,
                                                          "off_mean": 1}, "grid": {"processes": [4, 5]}}))
    out = tmp_path / "out"
    (out / "sweep.csv").mkdir(parents=True)
    done = ibsec("sweep", str(spec), "--out", str(out), "--quiet", timeout=60)
    assert done.returncode == 2 and no_traceback(done)
    assert "sweep.csv' is a folder, not a file" in done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["sweep.csv"]


@pytest.mark.unit
def test_a_single_run_checks_its_result_file_before_the_engine_starts(tmp_path, monkeypatch):
    """Item 14: `ibsec run --out` and `--perf-json`, checked by ibsec before the engine is called."""
    fake, calls = recording_engine(tmp_path)
    monkeypatch.setenv("IBSEC_ENGINE", str(fake))
    (tmp_path / "f").write_text("x")
    for option in ("--out", "--perf-json"):
        done = ibsec("run", str(PAPER_16), option, str(tmp_path / "f" / "r.json"), timeout=60)
        assert done.returncode == 2 and f"{option}: " in done.stderr and "is not a folder" in done.stderr
    assert not calls.exists()
