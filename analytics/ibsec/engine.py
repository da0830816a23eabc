"""Finding and calling ibsec-engine, the C++ simulator."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from .errors import IbsecError

ENGINE_ENV = "IBSEC_ENGINE"


def engine_path() -> str:
    """$IBSEC_ENGINE, else ibsec-engine on PATH, else the build tree of a source checkout."""
    explicit = os.environ.get(ENGINE_ENV)
    if explicit:
        if not (os.path.isfile(explicit) and os.access(explicit, os.X_OK)):
            raise IbsecError(f"{ENGINE_ENV}={explicit} is not an executable file")
        return explicit
    on_path = shutil.which("ibsec-engine")
    if on_path:
        return on_path
    checkout_build = Path(__file__).resolve().parents[2] / "build" / "ibsec-engine"
    if checkout_build.is_file():
        return str(checkout_build)
    raise IbsecError(
        "ibsec-engine not found: run ./setup.sh (or build with CMake) or point "
        f"{ENGINE_ENV} at the binary"
    )


def run_engine(arguments: list[str]) -> dict:
    """Run one engine command with --json and return its parsed result."""
    command = [engine_path(), *arguments, "--json", "--quiet"]
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        message = completed.stderr.strip() or f"exit code {completed.returncode}"
        raise IbsecError(message.removeprefix("ibsec-engine: error: "))
    try:
        return json.loads(completed.stdout)
    except json.JSONDecodeError as error:
        raise IbsecError(f"ibsec-engine printed unreadable JSON ({error})") from None
