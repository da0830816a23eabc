"""Issue 27, items 4, 20, 21, 24 and 26 (must-show): the fuzz target of the config files (config_fuzz.py), in the
unit tier: the seed corpus and every saved finding replayed, the findings again as @example cases, and a short
derandomized run of each strategy. The long run is `.venv/bin/python tests/hostile/config_fuzz.py --seconds 600`.
"""

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from . import config_fuzz as fuzz

pytestmark = pytest.mark.unit

SHORT = settings(max_examples=150, derandomize=True, **fuzz.FUZZ_SETTINGS)


def saved(folder: Path) -> list[Path]:
    return sorted(path for path in folder.iterdir() if path.suffix in fuzz.SUFFIXES)


@pytest.mark.parametrize("path", saved(fuzz.CORPUS) + saved(fuzz.REGRESSIONS), ids=lambda path: path.name)
def test_seed_and_finding_files(tmp_path, path):
    fuzz.check_config_file(tmp_path, path.name, path.read_bytes())


def test_files(tmp_path):
    @SHORT
    @given(fuzz.FILES)
    def files(named):
        fuzz.check_config_file(tmp_path, *named)

    files()


def test_round_trips(tmp_path):
    @SHORT
    @given(fuzz.TABLES, st.sampled_from([".toml", ".yaml", ".json"]))
    def round_trips(table, suffix):
        fuzz.check_round_trip(tmp_path, table, suffix)

    round_trips()


# Findings of the long run, shrunk by Hypothesis (config_fuzz.py's report), replayed on every run.
@example(named=("alias.yaml", b"a: &x 1\nb: *x\n"))
@example(named=("digits.json", b'{"a": ' + b"1" * 5000 + b"}"))
@example(named=("timestamp.yaml", b"a: !!timestamp x\n"))
@example(named=("soup.yaml", b"\n\xef\xbb\xbf"))
@settings(max_examples=1, derandomize=True, **fuzz.FUZZ_SETTINGS)
@given(fuzz.FILES)
def test_findings(tmp_path_factory, named):
    fuzz.check_config_file(tmp_path_factory.mktemp("finding"), *named)
