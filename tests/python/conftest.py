import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


# Every test is in exactly one tier (markers registered in pytest.ini at the repository root). `hours` is for runs
# that neither the default run nor CI selects.
TIERS = ("unit", "model", "soak", "hours")


# Tests in files this suite may not edit (test_golden.py stays as the golden results' commit made it).
TIER_OF = {"test_golden.py::test_golden_outputs_are_unchanged": "model",
           "test_golden.py::test_canonical_form_is_strict_about_values": "unit"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        tier = TIER_OF.get(f"{Path(item.fspath).name}::{item.originalname}")
        if tier:
            item.add_marker(tier)
    wrong = [f"{item.nodeid}: {', '.join(t for t in TIERS if item.get_closest_marker(t)) or 'no tier'}"
             for item in items if sum(item.get_closest_marker(tier) is not None for tier in TIERS) != 1]
    if wrong:
        raise pytest.UsageError("every test needs exactly one tier marker (unit, model, soak or hours):\n  "
                                + "\n  ".join(wrong))


@pytest.fixture(scope="session")
def engine() -> str:
    """The engine the tests run: the one ibsec itself would run ($IBSEC_ENGINE, else build/, else PATH:
    engine/binary.py), also put in $IBSEC_ENGINE."""
    from ibsec.engine.binary import engine_path
    from ibsec.errors import IbsecError

    try:
        path = engine_path()
    except IbsecError:
        path = str(REPO / "build" / "ibsec-engine")
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


# Stage times that tests record with the `stage_times` fixture (test_npb.py), printed after the run so that CI
# logs show where the time of the long tests goes.
STAGE_TIMES: list[tuple[str, str, float]] = []  # (what, stage, seconds)


@pytest.fixture(scope="session")
def stage_times() -> list[tuple[str, str, float]]:
    return STAGE_TIMES


def pytest_terminal_summary(terminalreporter):
    if not STAGE_TIMES:
        return
    terminalreporter.section("stage times")
    for what, stage, seconds in STAGE_TIMES:
        terminalreporter.write_line(f"{what:<14} {stage:<40} {seconds:8.2f} s")
    terminalreporter.write_line(f"{'total':<55} {sum(s for _, _, s in STAGE_TIMES):8.2f} s")
