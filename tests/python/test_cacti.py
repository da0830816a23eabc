"""CACTI 7 output parsing, the shipped table, look-up, and live runs against a fake CACTI."""

import csv
import os
import stat
import sys
from pathlib import Path

import pytest

from ibsec.errors import ConfigError, IbsecError
from ibsec.models.cacti.geometry import PB_STRUCTURE, Geometry, skc_structure
from ibsec.models.cacti.live import cfg_text
from ibsec.models.cacti.output import CactiRejected, parse_csv_output, parse_output, rejection_reason
from ibsec.models.cacti.table import (
    CactiTable,
    UnknownGeometry,
    UnsupportedGeometry,
    lookup,
    read_table,
    shipped_table_path,
    user_cache_path,
)

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).parent / "data" / "cacti"
REPO = Path(__file__).resolve().parents[2]
# The full CACTI data set the shipped table summarises, when it is on this machine.
DATA_SET = Path(os.environ.get("IBSEC_CACTI_DATA", REPO.parent / "shared" / "cacti"))


def summary_rows(path: Path) -> dict[str, dict[str, str]]:
    """Rows of a summary CSV by the stem of their raw file."""
    with open(path, newline="") as handle:
        return {Path(row["raw_file"]).stem: row for row in csv.DictReader(handle)}


SHIPPED = summary_rows(shipped_table_path())
INVALID = summary_rows(FIXTURES / "cacti7_invalid.csv")


def expected(stem: str) -> dict[str, str]:
    return SHIPPED.get(stem) or INVALID[stem]


def assert_result_is_row(result, row: dict[str, str]) -> None:
    assert (result.tech_nm, result.capacity_bytes, result.block_bytes, result.assoc) == (
        int(row["tech_nm"]), int(row["capacity_bytes"]), int(row["block_bytes"]), int(row["assoc"]))
    assert result.access_ns == float(row["access_ns"])
    assert result.cycle_ns == float(row["cycle_ns"])
    assert result.area_mm2 == float(row["area_mm2"])
    assert result.read_energy_nj == float(row["read_energy_nJ"])
    assert result.search_energy_nj == float(row["search_energy_nJ"] or 0.0)
    assert result.write_energy_nj == float(row["write_energy_nJ"])
    assert result.leakage_mw == float(row["leakage_mW"])


def check_raw_file(path: Path, row: dict[str, str]) -> None:
    text = path.read_text()
    if row["status"] == "ok":
        assert_result_is_row(parse_output(text), row)
    else:
        with pytest.raises(CactiRejected) as caught:
            parse_output(text)
        assert "rejected: " + caught.value.reason == row["status"]


# ---- the parser ----------------------------------------------------------------------------------

RAW_FIXTURES = sorted(FIXTURES.glob("*.txt"))


def test_the_fixtures_cover_every_kind_of_output():
    stems = {p.stem for p in RAW_FIXTURES}
    assert {"skc_45nm_16KB_b32_fa", "skc_45nm_16KB_b32_a8", "pfb_45nm_16x32B_fa", "skc_45nm_2KB_b32_a8",
            "err_2KB_a64_nsets1", "err_16nm"} <= stems


@pytest.mark.parametrize("path", RAW_FIXTURES, ids=lambda p: p.stem)
def test_each_fixture_parses_to_its_summary_row(path):
    check_raw_file(path, expected(path.stem))


def test_a_fully_associative_skc_is_parsed_field_by_field():
    result = parse_output((FIXTURES / "skc_45nm_16KB_b32_fa.txt").read_text())
    assert (result.assoc, result.access_ns, result.cycle_ns) == (0, 1.03481, 1.3825)
    assert result.search_energy_nj == 0.0567974 and result.read_energy_nj == 0.0164086
    assert result.lookup_energy_nj == pytest.approx(0.0732060)
    assert result.leakage_mw == 33.20638  # 31.9556 + 1.25078 (subthreshold + gate)
    assert result.area_mm2 == round(0.433504 * 0.325907, 6)


def test_direct_mapped_and_n_way_have_no_search_energy():
    direct = parse_output((FIXTURES / "skc_45nm_16KB_b32_a1.txt").read_text())
    eight = parse_output((FIXTURES / "skc_45nm_16KB_b32_a8.txt").read_text())
    assert (direct.assoc, eight.assoc) == (1, 8)
    assert direct.search_energy_nj == eight.search_energy_nj == 0.0
    assert eight.lookup_energy_nj == eight.read_energy_nj


def test_rejections_carry_cactis_own_error_text():
    for stem, reason in [("skc_45nm_2KB_b32_a8", "ERROR: no valid data array organizations found"),
                         ("err_16nm", "Invalid technology nodes"),
                         ("err_assoc3", "Associativity must be a power of 2")]:
        with pytest.raises(CactiRejected) as caught:
            parse_output((FIXTURES / f"{stem}.txt").read_text())
        assert caught.value.reason == reason
    sets = rejection_reason((FIXTURES / "err_2KB_a64_nsets1.txt").read_text())
    assert sets.startswith("Number of sets is too small: / Need to either increase cache size")


def test_success_is_the_access_time_line_not_anything_else():
    text = (FIXTURES / "skc_45nm_16KB_b32_fa.txt").read_text()
    with pytest.raises(CactiRejected):
        parse_output(text.replace("Access time (ns):", "Access tiem (ns):"))
    with pytest.raises(CactiRejected, match="neither a result nor an error"):
        parse_output("")


def test_cactis_own_csv_is_read_with_fa_associativity_mapped_back():
    fa = parse_csv_output((FIXTURES / "skc_45nm_16KB_b32_fa.cacti_out.csv").read_text(), block_bytes=32)
    eight = parse_csv_output((FIXTURES / "skc_45nm_16KB_b32_a8.cacti_out.csv").read_text(), block_bytes=32)
    assert len(fa) == len(eight) == 1
    for result, stem in [(fa[0], "skc_45nm_16KB_b32_fa"), (eight[0], "skc_45nm_16KB_b32_a8")]:
        row = SHIPPED[stem]
        assert (result.capacity_bytes, result.assoc) == (int(row["capacity_bytes"]), int(row["assoc"]))
        assert (result.access_ns, result.cycle_ns) == (float(row["access_ns"]), float(row["cycle_ns"]))
        assert result.read_energy_nj == float(row["read_energy_nJ"])
        assert result.search_energy_nj == float(row["search_energy_nJ"] or 0.0)
        # CACTI's CSV prints its own totals to 6 significant digits; the table holds h x w and the leakage
        # sum from the text, so the two agree to that precision only.
        assert result.area_mm2 == pytest.approx(float(row["area_mm2"]), rel=1e-5)
        assert result.leakage_mw == pytest.approx(float(row["leakage_mW"]), rel=1e-5)


def test_cactis_csv_rejects_a_line_that_does_not_fit_its_header():
    text = (FIXTURES / "skc_45nm_16KB_b32_fa.cacti_out.csv").read_text()
    with pytest.raises(IbsecError, match="line 2"):
        parse_csv_output(text.replace("1.03481, ", ""), block_bytes=32)


@pytest.mark.skipif(not (DATA_SET / "raw").is_dir(), reason="the full CACTI data set is not on this machine")
def test_the_whole_data_set_parses_to_its_summary():
    checked = 0
    for summary, folder in [("cacti7_summary.csv", DATA_SET), ("invalid/cacti7_invalid.csv", DATA_SET / "invalid"),
                            ("sensitivity/cacti7_sensitivity.csv", DATA_SET / "sensitivity")]:
        for row in summary_rows(DATA_SET / summary).values():
            check_raw_file(folder / row["raw_file"], row)
            checked += 1
    assert checked >= 93 + 7


# ---- the shipped table and look-up ----------------------------------------------------------------

@pytest.fixture
def no_user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("CACTI_BIN", raising=False)
    return tmp_path / "xdg" / "ibsec" / "cacti" / "cacti_runs.csv"


def test_the_shipped_table_has_every_main_configuration():
    rows = read_table(shipped_table_path())
    assert len(rows) == 93
    assert sum(r.result is None for r in rows) == 33


def test_lookup_finds_a_geometry_in_the_table(no_user_cache):
    skc = lookup(45, 16384, 32, 0)
    assert (skc.access_ns, skc.area_mm2, skc.leakage_mw) == (1.03481, 0.141282, 33.20638)
    pb = lookup(45, 512, 32, 0, structure=PB_STRUCTURE)
    assert pb.access_ns == 0.391533
    cam = lookup(45, 512, 32, 0, structure="prefetch buffer as pure CAM")
    assert cam.access_ns == 0.191107  # same geometry, another CACTI model


def test_a_rejected_geometry_is_unsupported_with_cactis_reason(no_user_cache):
    with pytest.raises(UnsupportedGeometry, match="no valid data array organizations found") as caught:
        lookup(45, 2048, 32, 8)
    assert "at least 32 sets" in str(caught.value)


def test_a_missing_geometry_says_what_the_table_has_and_how_to_run_cacti(no_user_cache):
    with pytest.raises(UnknownGeometry) as caught:
        lookup(45, 12 * 1024, 32, 0)  # between 8 KB and 16 KB: never interpolated
    message = str(caught.value)
    assert "12 KB" in message and "2 KB, 4 KB, 8 KB, 16 KB of 32 B blocks at 45 nm" in message
    assert "CACTI_BIN" in message and "--cacti" in message
    with pytest.raises(UnknownGeometry, match="technologies 22 nm, 32 nm, 45 nm"):
        lookup(28, 16384, 32, 0)


def test_the_users_cache_is_consulted_after_the_shipped_table(no_user_cache):
    no_user_cache.parent.mkdir(parents=True)
    shipped = shipped_table_path().read_text().splitlines()
    row_16kb_fa = next(line for line in shipped if line.startswith("45,16384,32,0,"))
    no_user_cache.write_text(shipped[0] + "\n" + row_16kb_fa.replace("45,16384,", "45,12288,", 1) + "\n")
    assert lookup(45, 12288, 32, 0).access_ns == 1.03481


def test_a_malformed_table_names_its_file_and_line(tmp_path):
    path = tmp_path / "table.csv"
    header = shipped_table_path().read_text().splitlines()[0]
    path.write_text(header + "\n45,16384,32,0,1,1,1,1,1,maybe,SKC fully-assoc cache,,,,,\n")
    with pytest.raises(IbsecError, match=r"table.csv:2: status must be"):
        read_table(path)


# ---- live runs against a fake CACTI ----------------------------------------------------------------

FAKE_CACTI = """#!{python}
# A stand-in for CACTI 7: prints $FAKE_CACTI_OUTPUT and exits with $FAKE_CACTI_EXIT. Like the real
# program, it needs to be started in its own directory, where tech_params/ is.
import os, pathlib, shutil, sys
here = pathlib.Path(__file__).resolve().parent
if pathlib.Path.cwd().resolve() != here or not pathlib.Path("tech_params").is_dir():
    sys.exit(139)
counter = here / "invocations"
counter.write_text(str(int(counter.read_text()) + 1 if counter.exists() else 1))
shutil.copyfile(sys.argv[sys.argv.index("-infile") + 1], here / "last.cfg")
sys.stdout.write(pathlib.Path(os.environ["FAKE_CACTI_OUTPUT"]).read_text())
sys.exit(int(os.environ.get("FAKE_CACTI_EXIT", "0")))
"""


class FakeCacti:
    def __init__(self, folder: Path, monkeypatch):
        folder.mkdir()
        (folder / "tech_params").mkdir()
        self.path = folder / "cacti"
        self.path.write_text(FAKE_CACTI.format(python=sys.executable))
        self.path.chmod(self.path.stat().st_mode | stat.S_IXUSR)
        self.folder = folder
        self.monkeypatch = monkeypatch

    def answer(self, fixture: str, exit_code: int = 0) -> None:
        self.monkeypatch.setenv("FAKE_CACTI_OUTPUT", str(FIXTURES / fixture))
        self.monkeypatch.setenv("FAKE_CACTI_EXIT", str(exit_code))

    @property
    def invocations(self) -> int:
        counter = self.folder / "invocations"
        return int(counter.read_text()) if counter.exists() else 0

    @property
    def last_cfg(self) -> str:
        return (self.folder / "last.cfg").read_text()


@pytest.fixture
def fake_cacti(tmp_path, monkeypatch, no_user_cache):
    return FakeCacti(tmp_path / "cacti-build", monkeypatch)


def settings(cfg: str) -> list[str]:
    return [line for line in cfg.splitlines() if line and not line.startswith("#")]


@pytest.mark.parametrize("stem, geometry", [
    ("skc_45nm_16KB_b32_fa", Geometry(45, 16384, 32, 0, skc_structure(0))),
    ("skc_45nm_16KB_b32_a8", Geometry(45, 16384, 32, 8, skc_structure(8))),
    ("pfb_45nm_16x32B_cam", Geometry(45, 512, 32, 0, "prefetch buffer as pure CAM")),
    ("pfb_45nm_16x32B_ram", Geometry(45, 512, 32, 1, "prefetch buffer as tagless RAM")),
])
def test_the_input_file_has_the_tables_settings(stem, geometry):
    assert settings(cfg_text(geometry)) == settings((FIXTURES / f"{stem}.cfg").read_text())


def test_a_live_run_is_parsed_cached_and_not_repeated(fake_cacti, no_user_cache):
    fake_cacti.answer("skc_45nm_16KB_b32_fa.txt")
    empty = CactiTable([])  # as if the shipped table lacked the geometry
    result = lookup(45, 16384, 32, 0, cacti_bin=str(fake_cacti.path), table=empty)
    assert fake_cacti.invocations == 1
    assert result == parse_output((FIXTURES / "skc_45nm_16KB_b32_fa.txt").read_text())
    assert settings(fake_cacti.last_cfg) == settings((FIXTURES / "skc_45nm_16KB_b32_fa.cfg").read_text())
    assert no_user_cache == user_cache_path() and no_user_cache.is_file()

    assert lookup(45, 16384, 32, 0, cacti_bin=str(fake_cacti.path), table=CactiTable([no_user_cache])) == result
    assert fake_cacti.invocations == 1
    cached = summary_rows(no_user_cache)
    assert list(cached) == ["cache_45nm_16384B_b32_fa"]
    assert_result_is_row(result, cached["cache_45nm_16384B_b32_fa"])


@pytest.mark.parametrize("fixture, exit_code, reason", [
    ("skc_45nm_2KB_b32_a8.txt", 1, "ERROR: no valid data array organizations found"),
    ("err_2KB_a64_nsets1.txt", 0, "Number of sets is too small"),
])
def test_a_live_rejection_is_cached_too(fake_cacti, monkeypatch, fixture, exit_code, reason):
    fake_cacti.answer(fixture, exit_code)
    monkeypatch.setenv("CACTI_BIN", str(fake_cacti.path))
    for _ in range(2):
        with pytest.raises(UnsupportedGeometry, match=reason):
            lookup(45, 2048, 32, 8, table=CactiTable([user_cache_path()]))
    assert fake_cacti.invocations == 1


def test_a_crash_is_an_error_and_is_not_cached(fake_cacti, no_user_cache):
    fake_cacti.answer("skc_45nm_2KB_b32_a8.txt", exit_code=139)
    with pytest.raises(IbsecError, match="exit code 139"):
        lookup(45, 2048, 32, 8, cacti_bin=str(fake_cacti.path), table=CactiTable([]))
    assert not no_user_cache.exists()


def test_an_answer_for_another_geometry_is_an_error(fake_cacti, no_user_cache):
    fake_cacti.answer("skc_45nm_16KB_b32_fa.txt")
    with pytest.raises(IbsecError, match="when asked for a 8 KB"):
        lookup(45, 8192, 32, 0, cacti_bin=str(fake_cacti.path), table=CactiTable([]))
    assert not no_user_cache.exists()


def test_a_binary_without_tech_params_is_refused_before_running(fake_cacti):
    (fake_cacti.folder / "tech_params").rmdir()
    with pytest.raises(ConfigError, match="tech_params"):
        lookup(45, 16384, 32, 0, cacti_bin=str(fake_cacti.path), table=CactiTable([]))
    assert fake_cacti.invocations == 0
