import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def pytest_configure(config):
    config.addinivalue_line("markers", "e2e: runs the real ibsec-engine end to end (skipped if it lacks the feature)")


@pytest.fixture(scope="session")
def engine() -> str:
    path = os.environ.get("IBSEC_ENGINE") or shutil.which("ibsec-engine") or str(REPO / "build" / "ibsec-engine")
    if not Path(path).is_file():
        pytest.fail(f"ibsec-engine not built (looked for {path}); run scripts/test.sh")
    os.environ["IBSEC_ENGINE"] = path
    return path


def run_ibsec(*args: str) -> subprocess.CompletedProcess:
    """The ibsec command as a user runs it, in a fresh interpreter."""
    return subprocess.run([sys.executable, "-m", "ibsec.cli", *args], capture_output=True, text=True, check=False)


def run_engine(engine: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([engine, *args], capture_output=True, text=True, check=False)


@pytest.fixture(scope="session")
def capture_lib() -> str:
    """libibsec_capture.so, the PMPI capture library: IBSEC_CAPTURE_LIB, else the default build directory."""
    path = os.environ.get("IBSEC_CAPTURE_LIB") or str(REPO / "build" / "traces" / "capture" / "libibsec_capture.so")
    if not Path(path).is_file():
        pytest.fail(f"libibsec_capture.so not built (looked for {path}); run scripts/test.sh "
                    "(CMake builds it when MPI is installed)")
    os.environ["IBSEC_CAPTURE_LIB"] = path
    return path
