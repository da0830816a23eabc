"""`ibsec --help` and `--version` import none of the heavy libraries: they build every subcommand's parser, and a
model's SciPy or pandas imported there costs every command half a second (bench/bench_cli_startup.py times it)."""

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.unit

HEAVY = ("numpy", "scipy", "pandas", "matplotlib", "dask", "distributed", "dask_jobqueue", "pyarrow")

# Runs the command in this interpreter, then prints which heavy libraries it imported, as the last line.
PROBE = """
import json, sys
from ibsec.cli.main import main
main(sys.argv[1:])
heavy = sorted({name.split(".")[0] for name in sys.modules} & set(HEAVY_NAMES))
print("\\nHEAVY " + json.dumps(heavy))
"""


def heavy_imports(*words: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", PROBE.replace("HEAVY_NAMES", repr(HEAVY)), *words],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    last = done.stdout.splitlines()[-1]
    assert last.startswith("HEAVY "), done.stdout[-500:]
    return json.loads(last.removeprefix("HEAVY "))


@pytest.mark.parametrize("words", [("--help",), ("--version",), ("run", "--help"), ("analytic", "size", "--help")])
def test_help_and_version_import_no_heavy_library(words, engine):
    assert heavy_imports(*words) == []


def test_the_probe_sees_a_heavy_import(engine):
    """A command that does use SciPy is reported, so an empty list above means what it says."""
    assert "scipy" in heavy_imports("analytic", "hitrate", "--entries", "3", "--processes", "4", "--on-mean", "1",
                                    "--off-mean", "1")
