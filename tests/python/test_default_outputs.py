"""Commands write by default into a folder git ignores; `ibsec reproduce` writes the committed results/ only when
given --out results --update-results (tests/python/test_reproduce_tracked.py)."""

import subprocess

import pytest

from conftest import REPO
from ibsec.cli.main import build_parser

pytestmark = pytest.mark.unit


def default_out(*command: str) -> str:
    parser = build_parser()
    return parser.parse_args([*command]).out


def ignored(path: str) -> bool:
    probe = f"{path}/probe.csv"
    return subprocess.run(["git", "-C", str(REPO), "check-ignore", "-q", probe], check=False).returncode == 0


@pytest.mark.parametrize("command", [("study",), ("figures", "fig3"), ("compare-schedulers",), ("prefetch-sweep",),
                                     ("reproduce",)])
def test_everyday_commands_default_to_an_ignored_folder(command):
    out = default_out(*command)
    assert ignored(out), f"ibsec {' '.join(command)} writes into {out}/ by default, which git tracks"


def test_the_committed_results_are_not_ignored():
    assert not ignored("results")
