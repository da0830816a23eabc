import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def pytest_configure(config):
    config.addinivalue_line("markers", "e2e: runs the real ibsec-engine end to end (skipped if it lacks the feature)")


def real_engine() -> str:
    path = os.environ.get("IBSEC_ENGINE") or shutil.which("ibsec-engine") or str(REPO / "build" / "ibsec-engine")
    if not Path(path).is_file():
        pytest.fail(f"ibsec-engine not built (looked for {path}); run scripts/test.sh")
    return path


@pytest.fixture(scope="session")
def engine(tmp_path_factory) -> str:
    """The engine the tests run (also in $IBSEC_ENGINE). An engine whose `registries --json` lacks a section
    gets a wrapper that fills it in from data/registries.json (fake_registries.py) and runs the engine for
    everything else."""
    import fake_registries

    path = real_engine()
    if not fake_registries.complete(path):
        wrapper = tmp_path_factory.mktemp("engine-with-registries") / "ibsec-engine"
        wrapper.write_text(f'#!/bin/sh\nif [ "$1" = registries ]; then\n'
                           f'  exec "{sys.executable}" "{Path(fake_registries.__file__)}" "{path}"\nfi\n'
                           f'exec "{path}" "$@"\n')
        wrapper.chmod(0o755)
        path = str(wrapper)
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
