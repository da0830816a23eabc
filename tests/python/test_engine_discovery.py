"""Which engine ibsec runs: $IBSEC_ENGINE, else PATH, else the checkout's build/; `ibsec --version` says which."""

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
    binary._warn_newer_build.cache_clear()
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


def test_a_newer_build_than_the_installed_engine_is_warned_about_once(installed_and_built, capsys):
    installed, built = installed_and_built
    os.utime(installed, (1_000_000, 1_000_000))
    assert binary.engine_path() == str(installed)
    assert binary.engine_path() == str(installed)
    warning = capsys.readouterr().err
    assert warning.count("warning") == 1
    assert f"{built} is newer than {installed}" in warning and f"IBSEC_ENGINE={built}" in warning
    assert "from PATH" in binary.describe_engine()


def test_an_older_build_is_not_mentioned(installed_and_built, capsys):
    installed, built = installed_and_built
    os.utime(built, (1_000_000, 1_000_000))
    assert binary.engine_path() == str(installed)
    assert capsys.readouterr().err == ""


def test_without_an_installed_engine_the_build_is_used(installed_and_built, tmp_path, monkeypatch, capsys):
    _, built = installed_and_built
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert binary.engine_path() == str(built)
    assert "from build" in binary.describe_engine()
    assert capsys.readouterr().err == ""
