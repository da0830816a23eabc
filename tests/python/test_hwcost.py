"""`ibsec hwcost`: the GCM closed form, SKC/PB power, look-up rates, the §3.1 table and its errors."""

import csv
import json
import stat
import sys

import pytest

from conftest import run_engine, run_ibsec
from ibsec.errors import ConfigError
from ibsec.models import hwcost
from ibsec.models.cacti.table import shipped_table_path

pytestmark = pytest.mark.unit


@pytest.fixture(autouse=True)
def no_user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("CACTI_BIN", raising=False)


def shipped_row(**geometry) -> dict[str, str]:
    """A row of the shipped table, read here directly rather than through the code under test."""
    with open(shipped_table_path(), newline="") as handle:
        for row in csv.DictReader(handle):
            if all(row[k] == str(v) for k, v in geometry.items()):
                return row
    raise KeyError(geometry)


SKC_16KB = dict(tech_nm=45, capacity_bytes=16384, block_bytes=32, assoc=0, structure="SKC fully-assoc cache")
PB_16 = dict(tech_nm=45, capacity_bytes=512, block_bytes=32, assoc=0, structure="prefetch buffer as fully-assoc cache")


def array_power_w(row: dict[str, str], lookups_per_s: float, searched: bool = True) -> float:
    energy_nj = float(row["read_energy_nJ"]) + (float(row["search_energy_nJ"]) if searched else 0.0)
    return float(row["leakage_mW"]) / 1e3 + energy_nj * 1e-9 * lookups_per_s


def test_gcm_cost_is_the_papers_closed_form():
    gcm = hwcost.GcmCost().for_tech(45)
    assert gcm.area_mm2 == pytest.approx(500e3 / 1480e3)
    assert gcm.power_w == pytest.approx(500e3 * 2.6e-9 * 271)
    assert (round(gcm.area_mm2, 2), round(gcm.power_w, 2)) == (0.34, 0.35)  # §3.1
    double = hwcost.GcmCost(kgates=1000, clock_mhz=135.5).for_tech(45)
    assert double.area_mm2 == pytest.approx(2 * gcm.area_mm2) and double.power_w == pytest.approx(gcm.power_w)


def test_gcm_library_figures_are_45nm_only():
    assert hwcost.GcmCost().for_tech(32) is None
    assert hwcost.GcmCost(kgates_per_mm2=2800, nw_per_mhz_gate=1.5).for_tech(32).area_mm2 == pytest.approx(500 / 2800)
    with pytest.raises(ConfigError, match="--gate-density"):
        hwcost.GcmCost(kgates_per_mm2=-1)


def test_another_node_costs_the_arrays_and_says_why_the_gcm_is_missing():
    done = run_ibsec("hwcost", "--tech", "32")
    assert done.returncode == 0, done.stderr
    assert "GCM unit not costed" in done.stdout and "--gate-density and --gate-power for 32 nm" in done.stdout
    rows = hwcost.cost_table(hwcost.CardSpec(tech_nm=32), hwcost.rate_from_clock(270))
    assert [r.part for r in rows] == ["SKC", "PB", "total"]
    assert rows[0].access_ns == float(shipped_row(tech_nm=32, capacity_bytes=16384, assoc=0)["access_ns"])
    assert rows[2].paper_area_mm2 is None


def test_array_power_is_leakage_plus_energy_per_lookup_times_rate():
    rows = hwcost.cost_table(hwcost.CardSpec(), hwcost.rate_from_clock(270))
    skc, pb = rows[1], rows[2]
    assert skc.power_w == pytest.approx(array_power_w(shipped_row(**SKC_16KB), 270e6))
    assert skc.power_w == pytest.approx(0.0530, abs=1e-4)  # 33.2 mW leakage + 0.0732 nJ x 270 M/s = 19.8 mW
    assert pb.power_w == pytest.approx(array_power_w(shipped_row(**PB_16), 270e6))
    assert skc.leakage_w + skc.dynamic_w == pytest.approx(skc.power_w)


def test_an_n_way_lookup_costs_a_read_only():
    rows = hwcost.cost_table(hwcost.CardSpec(ways=8, pb_entries=0), hwcost.rate_from_clock(100))
    row = shipped_row(tech_nm=45, capacity_bytes=16384, assoc=8)
    assert rows[1].power_w == pytest.approx(array_power_w(row, 100e6, searched=False))
    assert [r.part for r in rows] == ["GCM", "SKC", "total"]


def test_the_total_is_the_sum_and_the_papers_figures_only_beside_its_geometry():
    rows = hwcost.cost_table(hwcost.CardSpec(), hwcost.rate_from_clock(270))
    assert [r.part for r in rows] == ["GCM", "SKC", "PB", "total"]
    assert rows[3].area_mm2 == pytest.approx(sum(r.area_mm2 for r in rows[:3]))
    assert rows[3].power_w == pytest.approx(sum(r.power_w for r in rows[:3]))
    assert [(r.paper_area_mm2, r.paper_power_w) for r in rows] == [(0.34, 0.35), (2.3, 0.1), (0.19, 0.09),
                                                                   (2.83, 0.54)]
    assert rows[1].paper_access_ns == 3.0
    other = hwcost.cost_table(hwcost.CardSpec(skc_bytes=8192), hwcost.rate_from_clock(270))
    assert other[1].paper_area_mm2 is None and other[3].paper_area_mm2 is None and other[0].paper_area_mm2 == 0.34


def test_lookup_rate_from_a_result(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"statistics": {"key_lookups": 3200, "simulated_time_us": 1000.0},
                                "topology": {"nodes": 16}}))
    assert hwcost.rate_from_result(path).per_s == pytest.approx(3200 / 16 / 1e-3)
    path.write_text("{}")
    with pytest.raises(ConfigError, match="--from-result"):
        hwcost.rate_from_result(path)


def test_lookup_rate_from_a_real_engine_result(engine, tmp_path):
    out = tmp_path / "r.json"
    done = run_engine(engine, "run", "--set", "traffic.messages=2000", "--set", "traffic.warmup_messages=0",
                      "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    statistics = json.loads(out.read_text())["statistics"]
    rate = hwcost.rate_from_result(out)
    assert rate.per_s == pytest.approx(statistics["key_lookups"] / 16 / (statistics["simulated_time_us"] * 1e-6))
    cli = run_ibsec("hwcost", "--from-result", str(out), "--json")
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)["lookups_per_s"] == pytest.approx(rate.per_s)


# ---- the command ---------------------------------------------------------------------------------

def test_the_default_table_matches_the_shipped_cacti_figures():
    done = run_ibsec("hwcost", "--json")
    assert done.returncode == 0, done.stderr
    parts = {p["part"]: p for p in json.loads(done.stdout)["parts"]}
    for part, geometry in [("SKC", SKC_16KB), ("PB", PB_16)]:
        row = shipped_row(**geometry)
        assert parts[part]["area_mm2"] == float(row["area_mm2"])
        assert parts[part]["access_ns"] == float(row["access_ns"])
        assert parts[part]["power_w"] == pytest.approx(array_power_w(row, 270e6))
    text = run_ibsec("hwcost").stdout
    skc_line = next(line for line in text.splitlines() if line.startswith("SKC "))
    assert skc_line.split()[1:7] == ["0.141", "0.053", "1.03", "2.3", "0.1", "3"]
    assert next(line for line in text.splitlines() if line.startswith("total ")).split()[4:6] == ["2.83", "0.54"]


def test_out_writes_the_table_and_its_command(tmp_path):
    out = tmp_path / "hw.csv"
    done = run_ibsec("hwcost", "--pb", "0", "--out", str(out))
    assert done.returncode == 0, done.stderr
    with open(out, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["part"] for r in rows] == ["GCM", "SKC", "total"]
    assert json.loads((tmp_path / "hw.meta.json").read_text())["command"].startswith("ibsec hwcost --pb 0")


def test_the_paper_table_for_the_report(tmp_path):
    path = hwcost.write_paper_table(tmp_path)
    assert path.name == "table31_hardware_cost.csv"
    with open(path, newline="") as handle:
        rows = {r["part"]: r for r in csv.DictReader(handle)}
    assert set(rows) == {"GCM", "SKC", "PB", "total"}
    assert float(rows["SKC"]["area_mm2"]) == 0.141282 and float(rows["SKC"]["paper_area_mm2"]) == 2.3


@pytest.mark.parametrize("args, message", [
    (["--skc", "2KB", "--ways", "8"], "ERROR: no valid data array organizations found"),
    (["--skc", "3KB"], "no CACTI figures for a 3 KB fully associative array"),
    (["--tech", "28"], "technologies 22 nm, 32 nm, 45 nm"),
    (["--skc", "100B"], "not a whole number of 32-byte blocks"),
    (["--skc", "lots"], "is not a size"),
    (["--pb", "-1"], "argument --pb: must be at least 0"),
    (["--clock-mhz", "0"], "argument --clock-mhz: must be greater than 0"),
])
def test_bad_input_exits_2_with_the_reason(args, message):
    done = run_ibsec("hwcost", *args)
    assert done.returncode == 2
    assert message in done.stderr and done.stdout == ""


def test_the_help_gives_units():
    text = run_ibsec("hwcost", "--help").stdout
    for unit in ["MHz", "nm", "kgates/mm2", "nW/MHz/gate", "mm2, W, ns"]:
        assert unit in text


def test_a_geometry_outside_the_table_runs_cacti_once(tmp_path, monkeypatch):
    """A fake CACTI (it prints a real rejection) behind --cacti; the second command uses the cache."""
    build = tmp_path / "cacti-build"
    (build / "tech_params").mkdir(parents=True)
    fake = build / "cacti"
    fake.write_text(f"#!{sys.executable}\nimport pathlib, sys\n"
                    "assert pathlib.Path('tech_params').is_dir()\n"
                    "counter = pathlib.Path(__file__).with_name('runs')\n"
                    "counter.write_text(counter.read_text() + 'x' if counter.exists() else 'x')\n"
                    "print('Number of sets is too small: ')\nprint(' (or use fully associative cache)')\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    for _ in range(2):
        done = run_ibsec("hwcost", "--skc", "1KB", "--ways", "32", "--cacti", str(fake))
        assert done.returncode == 2
        assert "Number of sets is too small: / (or use fully associative cache)" in done.stderr
    assert (build / "runs").read_text() == "x"
