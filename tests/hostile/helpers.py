"""Helpers of the issue-16 reproducers: running ibsec as a user does, fake engines."""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAPER_16 = REPO / "configs" / "paper-16.json"


def ibsec(*args: str, timeout: float = 120, env: dict | None = None, stdout=subprocess.PIPE,
          cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The ibsec command as a user runs it, in a fresh interpreter; a hang fails the test at `timeout`."""
    return subprocess.run([sys.executable, "-m", "ibsec.cli", *args], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, check=False, timeout=timeout, env=None if env is None else {**os.environ, **env},
                          cwd=cwd)


def fake_engine(folder: Path, script: str, name: str = "ibsec-engine") -> Path:
    """An executable shell script standing in for the engine (sh syntax; "$@" are the engine's arguments)."""
    path = folder / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755)
    return path


def real_engine() -> str:
    """The engine under test, as the `engine` fixture finds it."""
    return os.environ.get("IBSEC_ENGINE") or str(REPO / "build" / "ibsec-engine")


def recording_engine(folder: Path) -> tuple[Path, Path]:
    """(a fake engine that records each call in a file and fails, that file): shows no engine ran. The engine's
    tables (`params`, `registries`: the names and defaults Python reads from it, simulating nothing) come from
    the real engine and are not recorded."""
    calls = folder / "engine-calls"
    script = (f'case "$1" in params|registries) exec "{real_engine()}" "$@";; esac\n'
              f'echo "$@" >> "{calls}"\nexit 1\n')
    return fake_engine(folder, script, "recording-engine"), calls


def no_traceback(done: subprocess.CompletedProcess) -> bool:
    return "Traceback" not in done.stderr
