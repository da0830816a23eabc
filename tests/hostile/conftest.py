"""Reproducers of issue 16, "Hostile inputs: no crash, no hang, no silently wrong number, no destroyed file".

One file per item or small group (test_itemNN_*.py for the Python package, test_engine_*.py for
ibsec-engine); each test's docstring cites its item. Helpers the tests share are in helpers.py; the folder
is a package, so that this conftest is not taken for tests/python's (both are `conftest`). Every test is in
exactly one tier, unit or model, as in tests/python (markers registered in pytest.ini at the repository
root).
"""

import os
import shutil
from pathlib import Path

import pytest

from .helpers import REPO

HERE = Path(__file__).resolve().parent
TIERS = ("unit", "model", "soak")


def pytest_collection_modifyitems(config, items):
    """Exactly one tier per test of this folder (tests/python's conftest checks its own)."""
    mine = [item for item in items if HERE in Path(item.fspath).resolve().parents]
    wrong = [f"{item.nodeid}: {', '.join(t for t in TIERS if item.get_closest_marker(t)) or 'no tier'}"
             for item in mine if sum(item.get_closest_marker(tier) is not None for tier in TIERS) != 1]
    if wrong:
        raise pytest.UsageError("every test needs exactly one tier marker (unit, model or soak):\n  "
                                + "\n  ".join(wrong))


@pytest.fixture(scope="session")
def engine() -> str:
    """The engine under test ($IBSEC_ENGINE, else build/, else ibsec-engine on PATH: ibsec's own order), exported
    for ibsec."""
    built = REPO / "build" / "ibsec-engine"
    path = os.environ.get("IBSEC_ENGINE") or (str(built) if built.is_file() else shutil.which("ibsec-engine")) \
        or str(built)
    if not Path(path).is_file():
        pytest.fail(f"ibsec-engine not built (looked for {path}); run scripts/test.sh")
    os.environ["IBSEC_ENGINE"] = path
    return path
