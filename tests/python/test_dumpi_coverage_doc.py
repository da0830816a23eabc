"""docs/importing.md lists the DUMPI records `trace import` reads as the layout table itself says
(traces/import/dumpi_calls.def, through scripts/dumpi_coverage.py): the calls are written in one place."""

import subprocess
import sys

import pytest

from conftest import REPO

pytestmark = pytest.mark.unit


def test_the_documented_dumpi_calls_are_the_layout_table():
    checked = subprocess.run([sys.executable, str(REPO / "scripts" / "dumpi_coverage.py"), "--check",
                              str(REPO / "docs" / "importing.md")], capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stderr
