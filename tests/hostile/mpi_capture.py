"""Helpers of the capture library's reproducers (issue 27, items 12-14): building a program of tests/capture
with mpicc and running it under libibsec_capture, as tests/python/test_capture.py does."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .helpers import REPO

PROGRAMS = REPO / "tests" / "capture"
MPICC = shutil.which("mpicc")
MPIRUN = shutil.which("mpirun")

needs_mpi = pytest.mark.skipif(
    not (MPICC and MPIRUN),
    reason="MPI is not installed: mpicc and mpirun are needed (Debian: apt-get install libopenmpi-dev openmpi-bin)")


def capture_library() -> str:
    """libibsec_capture.so: $IBSEC_CAPTURE_LIB, else the default build directory."""
    path = os.environ.get("IBSEC_CAPTURE_LIB") or str(REPO / "build" / "traces" / "capture" / "libibsec_capture.so")
    if not Path(path).is_file():
        pytest.fail(f"libibsec_capture.so not built (looked for {path}); run scripts/test.sh")
    return path


def build(program: str, folder: Path) -> Path:
    """tests/capture/PROGRAM.c built with mpicc into FOLDER."""
    exe = folder / program
    command = [MPICC, "-O1", "-o", str(exe), str(PROGRAMS / f"{program}.c")]
    built = subprocess.run(command, capture_output=True, text=True, check=False)
    assert built.returncode == 0, f"{' '.join(command)} failed:\n{built.stderr}"
    return exe


def run_captured(exe: Path, trace: str | Path, processes: int = 2) -> subprocess.CompletedProcess:
    """EXE on PROCESSES processes with the capture library preloaded and IBSEC_TRACE=TRACE; a hang fails."""
    command = [MPIRUN, "-np", str(processes), "--oversubscribe"]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    command += ["-x", f"LD_PRELOAD={capture_library()}", "-x", f"IBSEC_TRACE={trace}", str(exe)]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)


def started(run: subprocess.CompletedProcess) -> bool:
    """Whether a process of tests/capture/unwaited.c got past MPI_Init."""
    return "past MPI_Init" in run.stdout
