"""Which engine ibsec runs: $IBSEC_ENGINE, else the checkout's build/, else PATH; `ibsec --version` says which."""

import os
import stat
from pathlib import Path

import pytest

from conftest import run_ibsec
from ibsec.engine import binary
from ibsec.engine.digests import file_digest

pytestmark = pytest.mark.unit


def executable(path: Path, text: str = "#!/bin/sh\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def installed_and_built(tmp_path, monkeypatch) -> tuple[Path, Path]:
    """An engine on PATH and a checkout whose build/ has one too; no $IBSEC_ENGINE."""
    installed = executable(tmp_path / "bin" / "ibsec-engine", "#!/bin/sh\n# installed\n")
    built = executable(tmp_path / "checkout" / "build" / "ibsec-engine", "#!/bin/sh\n# built\n")
    monkeypatch.delenv("IBSEC_ENGINE", raising=False)
    monkeypatch.setenv("PATH", str(installed.parent))
    monkeypatch.setattr(binary, "CHECKOUT", tmp_path / "checkout")
    return installed, built


def test_version_names_the_engine_and_its_digest(engine):
    done = run_ibsec("--version")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0].startswith("ibsec ")
    assert lines[1] == f"engine: {engine} (from $IBSEC_ENGINE; digest {file_digest(engine)})"


def test_ibsec_engine_overrides_path_and_build(installed_and_built, tmp_path, monkeypatch):
    chosen = executable(tmp_path / "elsewhere" / "my-engine")
    monkeypatch.setenv("IBSEC_ENGINE", str(chosen))
    assert binary.engine_path() == str(chosen)


@pytest.mark.parametrize("installed_is_newer", [True, False])
def test_the_checkout_build_wins_over_path_whatever_the_file_times(installed_and_built, capsys, installed_is_newer):
    installed, built = installed_and_built
    os.utime(built if installed_is_newer else installed, (1_000_000, 1_000_000))
    assert binary.engine_path() == str(built)
    assert "from build" in binary.describe_engine()
    assert capsys.readouterr().err == ""


def test_without_a_build_the_engine_on_path_is_used(installed_and_built, tmp_path, monkeypatch):
    installed, built = installed_and_built
    built.unlink()
    assert binary.engine_path() == str(installed)
    assert "from PATH" in binary.describe_engine()


def test_without_any_engine_the_error_says_how_to_get_one(installed_and_built, tmp_path, monkeypatch):
    installed, built = installed_and_built
    built.unlink()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(binary.IbsecError, match="run ./scripts/setup.sh"):
        binary.engine_path()


def test_batch_job_scripts_export_the_engine_ibsec_runs(installed_and_built, monkeypatch):
    """A batch worker runs the engine of the checkout (on the shared file system), never a node-local PATH one."""
    from ibsec.runs.cluster import worker_prologue

    _, built = installed_and_built
    assert worker_prologue() == [f"export IBSEC_ENGINE={built}"]
