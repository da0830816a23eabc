"""Issue 27 (second hostile pass), preamble: the reproducers run in the README's test command and in CI, and the
README's recipe that leaves the NPB tests out keeps pytest.ini's default marker filter."""

import configparser
import re

import pytest

from .helpers import REPO

pytestmark = pytest.mark.unit


def _default_filter() -> str:
    ini = configparser.ConfigParser()
    ini.read(REPO / "pytest.ini")
    return re.search(r'-m\s+"([^"]+)"', ini["pytest"]["addopts"]).group(1)


def test_pytest_ini_collects_the_hostile_folder():
    ini = configparser.ConfigParser()
    ini.read(REPO / "pytest.ini")
    assert "tests/hostile" in ini["pytest"]["testpaths"].split()


def test_test_script_runs_pytest_on_the_ini_testpaths():
    """scripts/test.sh (the README's test command, which .ci/run calls) must not name a folder: one would replace
    pytest.ini's testpaths and leave tests/hostile out."""
    calls = [line for line in (REPO / "scripts" / "test.sh").read_text().splitlines() if "-m pytest" in line]
    assert calls, "scripts/test.sh runs no pytest"
    for call in calls:
        assert "tests/" not in call, call
    assert "scripts/test.sh --soak" in (REPO / ".ci" / "run").read_text()


def test_readme_recipe_without_npb_keeps_the_default_filter():
    """A -m on the command line replaces pytest.ini's -m: the recipe must repeat `not soak and not hours`."""
    readme = (REPO / "README.md").read_text()
    recipes = re.findall(r'pytest[^`]*-m "([^"]*not npb[^"]*)"', readme)
    assert recipes, "README has no recipe that leaves the npb tests out"
    default = [term.strip() for term in _default_filter().split(" and ")]
    for expression in recipes:
        for term in default:
            assert term in expression, f"README recipe -m {expression!r} drops {term!r}"
