"""The estimated NAS presets keep the statements they were derived from (docs/nas-onoff-presets.md)."""

import pytest

from ibsec.errors import ConfigError, IbsecError
from ibsec.models import markov, presets

pytestmark = pytest.mark.unit

# Fig. 8 / 4.4: capacity at 16 KB below 10 000 keys for exactly these.
FIG8_EXCEPTIONS = {("FT", "origin2000"), ("FT", "sp2"), ("CG", "sp2"), ("MG", "sp2")}


def test_table_covers_six_benchmarks_on_two_machines_and_says_estimate():
    table = presets.load()
    assert {(p.benchmark, p.machine) for p in table} == {
        (b, m) for b in ["BT", "CG", "FT", "LU", "MG", "SP"] for m in ["origin2000", "sp2"]
    }
    assert all(p.status == "estimate" and p.basis for p in table)


def test_bt_origin_2kb_capacity_is_about_one_thousand():
    bt = presets.get("BT", "origin2000")
    assert 1000 <= markov.capacity(128, bt.on_mean_ms, bt.off_mean_ms, 0.9) <= 1300


def test_fig8_exceptions_are_exactly_those_below_ten_thousand_keys():
    for p in presets.load():
        below = markov.capacity(1024, p.on_mean_ms, p.off_mean_ms, 0.9) < 10_000
        assert below == ((p.benchmark, p.machine) in FIG8_EXCEPTIONS), p.name


def test_lu_periods_are_ten_to_hundred_times_shorter():
    for machine in presets.MACHINES:
        lu = presets.get("LU", machine)
        for p in presets.load():
            if p.machine == machine and p.benchmark != "LU":
                assert 10 <= p.on_mean_ms / lu.on_mean_ms <= 100, p.name
                assert p.off_mean_ms / lu.off_mean_ms >= 5, p.name


def test_aliases_and_unknown_names():
    assert presets.get("bt", "o2k").machine == "origin2000"
    with pytest.raises(ConfigError) as error:
        presets.get("XX")
    assert error.value.field == "preset"
    with pytest.raises(ConfigError) as error:
        presets.get("BT", "cray")
    assert error.value.field == "machine"


def test_bad_preset_file_names_file_and_row(tmp_path):
    bad = tmp_path / "p.csv"
    bad.write_text("benchmark,machine,on_mean_ms,off_mean_ms,status,basis\nBT,sp2,1,2,x,y\nCG,sp2,-1,2,x,y\n")
    with pytest.raises(IbsecError, match=r"p\.csv: row 3: invalid 'on_mean_ms'"):
        presets.load(bad)
    bad.write_text("benchmark,machine,on_mean_ms\nBT,sp2,1\n")
    with pytest.raises(IbsecError, match="missing column"):
        presets.load(bad)
    with pytest.raises(IbsecError, match="no such preset file"):
        presets.load(tmp_path / "none.csv")
