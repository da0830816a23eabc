"""Issue 27, item 1: `ibsec collect` tracebacked on a result whose `config` is a list, a `statistics_meta` entry
not an object, or `warnings` a string. Every result file's shape is now checked before a row is made of it
(runs/collect.py check_result): an error naming the file and the field, exit 2, IbsecError from ibsec.collect."""

import json

import pytest

import ibsec
from ibsec.errors import IbsecError

from .helpers import REPO, no_traceback
from .helpers import ibsec as run_ibsec

pytestmark = pytest.mark.unit

RESULT = json.loads((REPO / "tests" / "golden" / "expected" / "attack" / "result.json").read_text())
STATISTICS = RESULT["statistics"]

# (what, the result's top-level keys replaced, the field the error must name)
BAD_SHAPES = [
    ("config a list", {"config": ["nic", "SKC-6"]}, "config"),
    ("a statistics_meta entry not an object",
     {"statistics": {**STATISTICS, "statistics_meta": {**STATISTICS["statistics_meta"], "skc_hit_rate": 0.5}}},
     "statistics.statistics_meta.skc_hit_rate"),
    ("warnings a string", {"warnings": "saturated"}, "warnings"),
    ("a warning without a kind", {"warnings": [{"message": "x"}]}, "warnings[0].kind"),
    ("statistics_meta a list", {"statistics": {**STATISTICS, "statistics_meta": []}}, "statistics.statistics_meta"),
    ("a unit not a string", {"statistics": {**STATISTICS, "statistics_meta": {"x": {"unit": 3}}}},
     "statistics.statistics_meta.x.unit"),
    ("drained a string (would be read as true)", {"statistics": {**STATISTICS, "drained": "no"}},
     "statistics.drained"),
    ("the topology a list", {"topology": [1, 2]}, "topology"),
    ("attack kinds not objects", {"attack": {**RESULT["attack"], "kinds": {"spoof": 3}}}, "attack.kinds.spoof"),
    ("attack a list", {"attack": [1]}, "attack"),
    ("a config key dotted and nested", {"config": {"nic": {"security": "SKC-6"}, "nic.security": "SKC-8"}},
     "config.nic.security"),
    ("a lone surrogate", {"ibsec_version": "\ud800"}, "ibsec_version"),
]


def _write(path, replaced: dict) -> None:
    path.write_text(json.dumps({**RESULT, **replaced}), encoding="utf-8", errors="surrogatepass")


@pytest.mark.parametrize(("what", "replaced", "field"), BAD_SHAPES, ids=[case[0] for case in BAD_SHAPES])
def test_n01_the_api_names_the_file_and_the_field(tmp_path, what, replaced, field):
    result = tmp_path / "r.json"
    _write(result, replaced)
    with pytest.raises(IbsecError) as raised:
        ibsec.collect(result)
    assert f"{result}: {field}: " in str(raised.value)


@pytest.mark.parametrize(("what", "replaced", "field"), BAD_SHAPES[:3], ids=[case[0] for case in BAD_SHAPES[:3]])
def test_n01_the_command_exits_2_naming_the_file_and_the_field(tmp_path, what, replaced, field):
    """The issue's three cases through the command, and through a folder scan (a sweep's runs/)."""
    runs = tmp_path / "runs"
    runs.mkdir()
    _write(runs / "r.json", replaced)
    for given in (runs / "r.json", runs):
        done = run_ibsec("collect", str(given), "--out", str(tmp_path / "t.csv"))
        assert done.returncode == 2 and no_traceback(done), done.stderr
        assert f"{runs / 'r.json'}: {field}: " in done.stderr
        assert not (tmp_path / "t.csv").exists()


def test_n01_a_sound_result_is_still_collected(tmp_path, engine):
    result = tmp_path / "r.json"
    _write(result, {})
    table = ibsec.collect(result)
    assert len(table) == 1 and table["skc_hit_rate"][0] == STATISTICS["skc_hit_rate"]
    assert table["config.nic.security"][0] == RESULT["config"]["nic"]["security"]


def test_n01_numbers_no_one_column_type_holds_become_text(tmp_path, engine):
    """Found beside the fuzz target: 2^63 in one result and -1 in another made a column pandas kept as Python
    objects, which Parquet refused (OverflowError). Such a column is written as text, exactly."""
    for name, value in (("a.json", 2**63), ("b.json", -1), ("c.json", 2**70)):
        _write(tmp_path / name, {"statistics": {**STATISTICS, "key_lookups": value}})
    done = run_ibsec("collect", str(tmp_path), "--out", str(tmp_path / "t.parquet"))
    assert done.returncode == 0 and no_traceback(done), done.stderr
    import pandas as pd

    assert list(pd.read_parquet(tmp_path / "t.parquet")["key_lookups"]) == [str(2**63), "-1", str(2**70)]


def test_n01_a_row_of_millions_of_columns_is_refused(tmp_path):
    result = tmp_path / "wide.json"
    result.write_text(json.dumps({"statistics": {f"k{i}": i for i in range(20_000)}}))
    with pytest.raises(IbsecError, match=r"20005 columns .* at most 10000"):
        ibsec.collect(result)


@pytest.mark.parametrize("paths", [5, [], [None], {"a.json": 1}])
def test_n01_collect_names_a_bad_paths_argument(paths):
    """As the command's RESULT arguments: files or folders, at least one."""
    with pytest.raises(IbsecError, match="'paths'"):
        ibsec.collect(paths)
