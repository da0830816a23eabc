"""scripts/setup.sh without root: it never asks for root itself; when a Debian package the simulator needs is missing
it prints the exact apt-get command that installs them and stops before building anything; a package only the tests
or the capture library need is named, and setup goes on. (CI runs the whole setup as a
non-root user in a fresh clone: .ci/run.)"""

import re
import stat
import subprocess
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.unit

SETUP = REPO / "scripts" / "setup.sh"
MISSING = ("ccache", "libsystemc-dev")  # in setup.sh's order


def fake(folder: Path, name: str, script: str) -> None:
    path = folder / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def run_setup(tmp_path: Path, uid: int, *options: str, missing: tuple[str, ...] = MISSING
              ) -> tuple[subprocess.CompletedProcess, Path]:
    """setup.sh with `id -u` = uid, dpkg reporting MISSING as not installed, and apt-get, sudo and cmake that only
    log their calls; cmake then fails, so that setup stops before it touches the checkout's build/ or .venv/."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    fake(bin_dir, "id", f'[ "$1" = -u ] && echo {uid} && exit 0\nexec /usr/bin/id "$@"\n')
    cases = "|".join(missing)
    fake(bin_dir, "dpkg", f'case "$2" in {cases}) exit 1;; *) exit 0;; esac\n')
    for tool in ("apt-get", "sudo", "cmake"):
        fake(bin_dir, tool, f'echo "{tool} $*" >> "{log}"\nexit {1 if tool == "cmake" else 0}\n')
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(["bash", str(SETUP), *options], capture_output=True, text=True, env=env, check=False)
    return done, log


def test_without_root_missing_packages_give_the_apt_get_line_and_nothing_runs(tmp_path):
    done, log = run_setup(tmp_path, 1000, "--no-run")
    assert done.returncode == 1
    assert re.search(r"^  apt-get update && apt-get install -y ccache libsystemc-dev$", done.stderr, re.M), done.stderr
    assert "no root needed once they are there" in done.stderr
    assert not log.exists(), f"setup ran {log.read_text()} without root"  # no sudo, no apt-get, no build


def test_as_root_missing_packages_are_installed(tmp_path):
    done, log = run_setup(tmp_path, 0, "--no-run")
    calls = log.read_text().splitlines()
    assert calls[:2] == ["apt-get update -qq", "apt-get install -y -qq ccache libsystemc-dev"], calls
    assert calls[2].startswith("cmake -S . -B build") and len(calls) == 3, calls


def test_without_root_packages_the_simulator_does_not_need_are_named_and_setup_goes_on(tmp_path):
    done, log = run_setup(tmp_path, 1000, "--no-run", missing=("libgtest-dev", "gfortran"))
    assert "not installed: libgtest-dev gfortran; the simulator does not need them" in done.stderr, done.stderr
    assert "as root: apt-get install -y libgtest-dev gfortran" in done.stderr
    calls = log.read_text().splitlines()
    assert calls and calls[0].startswith("cmake -S . -B build"), calls  # the build started, no apt-get, no sudo


def test_options_are_checked(tmp_path):
    done, _ = run_setup(tmp_path, 1000, "--prefix")
    assert done.returncode == 2 and "--prefix needs a folder" in done.stderr

    (tmp_path / "again").mkdir()
    done, _ = run_setup(tmp_path / "again", 1000, "--bogus")
    assert done.returncode == 2 and "unknown option --bogus" in done.stderr
