"""CACTI figures by geometry: the shipped table, the user's cache of live runs, and look-up.

The shipped table (data/cacti7_summary.csv) holds CACTI 7 results for the
session key cache and prefetch-buffer geometries of this study. Geometries
it lacks are computed by running CACTI (live.py) when a binary is
given, and kept in the user's cache (same columns) so that each geometry
runs once. Figures are never interpolated between geometries: a geometry is
either in a table, computed, or an error that says how to compute it.
"""

from __future__ import annotations

import csv
import os
from dataclasses import replace
from importlib import resources
from pathlib import Path

from ...errors import IbsecError
from ...output.files import write_output
from .geometry import Geometry, TableRow, bytes_text, skc_structure
from .live import run_cacti
from .output import CactiResult

COLUMNS = ["tech_nm", "capacity_bytes", "block_bytes", "assoc", "access_ns", "cycle_ns", "area_mm2",
           "read_energy_nJ", "leakage_mW", "status", "structure", "search_energy_nJ", "write_energy_nJ",
           "cfg_file", "raw_file", "wall_s"]

CACHE_FILE_NAME = "cacti_runs.csv"
CACTI_BIN_ENV = "CACTI_BIN"
REJECTED = "rejected: "


class UnsupportedGeometry(IbsecError):
    """CACTI cannot model this geometry (the table records its reason)."""


class UnknownGeometry(IbsecError):
    """No table has this geometry and no CACTI binary was given to compute it."""


# ---- where the tables are -----------------------------------------------------------------

def shipped_table_path() -> Path:
    return Path(str(resources.files("ibsec.data") / "cacti7_summary.csv"))


def user_cache_path() -> Path:
    """${XDG_CACHE_HOME:-~/.cache}/ibsec/cacti/cacti_runs.csv: live CACTI runs, kept across sessions."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ibsec" / "cacti" / CACHE_FILE_NAME


# ---- reading and writing table files ---------------------------------------------------------

def read_table(path: Path) -> list[TableRow]:
    """Every row of a table file; a malformed row is an error naming the file and line."""
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise IbsecError(f"{path}: not a CACTI table, columns {', '.join(missing)} are missing")
        rows = []
        for row in reader:
            try:
                rows.append(_table_row(row, path))
            except ValueError as error:
                raise IbsecError(f"{path}:{reader.line_num}: {error}") from None
        return rows


def _table_row(row: dict[str, str], source: Path) -> TableRow:
    geometry = Geometry(int(row["tech_nm"]), int(row["capacity_bytes"]), int(row["block_bytes"]),
                        int(row["assoc"]), row["structure"])
    status = row["status"]
    wall = float(row["wall_s"]) if row["wall_s"] else None
    common = {"source": source, "cfg_file": row["cfg_file"], "raw_file": row["raw_file"], "wall_s": wall}
    if status.startswith(REJECTED):
        return TableRow(geometry, None, status[len(REJECTED):], **common)
    if status != "ok":
        raise ValueError(f"status must be 'ok' or 'rejected: <reason>', got {status!r}")
    result = CactiResult(
        tech_nm=geometry.tech_nm, capacity_bytes=geometry.capacity_bytes, block_bytes=geometry.block_bytes,
        assoc=geometry.assoc, access_ns=float(row["access_ns"]), cycle_ns=float(row["cycle_ns"]),
        area_mm2=float(row["area_mm2"]), read_energy_nj=float(row["read_energy_nJ"]),
        search_energy_nj=float(row["search_energy_nJ"] or 0.0), write_energy_nj=float(row["write_energy_nJ"]),
        leakage_mw=float(row["leakage_mW"]))
    return TableRow(geometry, result, None, **common)


def _csv_record(row: TableRow) -> dict[str, object]:
    g, r = row.geometry, row.result
    numbers = {} if r is None else {
        "access_ns": r.access_ns, "cycle_ns": r.cycle_ns, "area_mm2": r.area_mm2,
        "read_energy_nJ": r.read_energy_nj, "leakage_mW": r.leakage_mw,
        "search_energy_nJ": r.search_energy_nj if r.assoc == 0 else "", "write_energy_nJ": r.write_energy_nj}
    return {"tech_nm": g.tech_nm, "capacity_bytes": g.capacity_bytes, "block_bytes": g.block_bytes,
            "assoc": g.assoc, "status": "ok" if r is not None else REJECTED + str(row.rejection),
            "structure": g.structure, "cfg_file": row.cfg_file, "raw_file": row.raw_file,
            "wall_s": "" if row.wall_s is None else row.wall_s, **numbers}


def remember(row: TableRow, path: Path | None = None) -> Path:
    """Add (or replace) one geometry's row in the user's cache, rewriting the file atomically."""
    path = path or user_cache_path()
    kept = [r for r in (read_table(path) if path.is_file() else []) if r.geometry != row.geometry]

    def write(tmp: Path) -> None:
        with open(tmp, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS, restval="")
            writer.writeheader()
            for r in [*kept, row]:
                writer.writerow(_csv_record(r))

    return write_output(path, write)


# ---- look-up ------------------------------------------------------------------------------

class CactiTable:
    """The shipped table, then the user's cache; the first row of a geometry wins."""

    def __init__(self, paths: list[Path]):
        self.paths = [p for p in paths if p.is_file()]
        self.rows = [row for path in self.paths for row in read_table(path)]

    @classmethod
    def default(cls) -> CactiTable:
        return cls([shipped_table_path(), user_cache_path()])

    def find(self, geometry: Geometry) -> TableRow | None:
        return next((row for row in self.rows if row.geometry == geometry), None)

    def contents_near(self, geometry: Geometry) -> str:
        """What the tables hold for this structure, to show beside a missing geometry."""
        same = [r.geometry for r in self.rows if r.geometry.structure == geometry.structure and r.result]
        techs = sorted({g.tech_nm for g in same})
        if not same:
            structures = sorted({r.geometry.structure for r in self.rows})
            return f"it has no '{geometry.structure}' rows, only: {'; '.join(structures)}"
        at_tech = [g for g in same if g.tech_nm == geometry.tech_nm]
        blocks = sorted({g.block_bytes for g in at_tech})
        sizes = "; ".join(", ".join(bytes_text(c) for c in sorted({g.capacity_bytes for g in at_tech
                                                                      if g.block_bytes == b})) + f" of {b} B blocks"
                          for b in blocks) or "nothing"
        return (f"for '{geometry.structure}' it has {sizes} at {geometry.tech_nm} nm; "
                f"technologies {', '.join(f'{t} nm' for t in techs)}")


def lookup(tech_nm: int, capacity_bytes: int, block_bytes: int, assoc: int, structure: str | None = None,
           cacti_bin: str | None = None, table: CactiTable | None = None, timeout_s: float = 120.0) -> CactiResult:
    """CACTI's figures for one geometry (structure: the table's label; default the SKC of that associativity).

    From the shipped table or the user's cache; otherwise from a live run of the CACTI binary given
    (or $CACTI_BIN), whose outcome, a rejection included, is then cached. A geometry CACTI rejects
    raises UnsupportedGeometry with CACTI's reason; one that cannot be found or computed raises
    UnknownGeometry saying what the tables hold and how to run CACTI.
    """
    geometry = Geometry(tech_nm, capacity_bytes, block_bytes, assoc, structure or skc_structure(assoc))
    return find_row(geometry, cacti_bin, table, timeout_s).result


def find_row(geometry: Geometry, cacti_bin: str | None = None, table: CactiTable | None = None,
             timeout_s: float = 120.0) -> TableRow:
    """As lookup(), but the whole row: the result with the file it came from."""
    table = table or CactiTable.default()
    row = table.find(geometry)
    if row is None:
        binary = cacti_bin or os.environ.get(CACTI_BIN_ENV)
        if not binary:
            raise UnknownGeometry(_missing_message(geometry, table))
        row = run_cacti(binary, geometry, user_cache_path().parent, timeout_s)
        row = replace(row, source=remember(row))
    if row.result is None:
        raise UnsupportedGeometry(f"CACTI cannot model {geometry.describe()}: {row.rejection} "
                                  f"(recorded in {row.source}){_rejection_hint(geometry, row.rejection)}")
    return row


def _missing_message(geometry: Geometry, table: CactiTable) -> str:
    tables = " and ".join(str(p) for p in table.paths) or "no table file"
    return (f"no CACTI figures for {geometry.describe()}. Looked in {tables}: {table.contents_near(geometry)}. "
            "Figures are never interpolated. To compute this geometry, build CACTI 7 "
            "(github.com/HewlettPackard/cacti, `make`) and point $CACTI_BIN (or `ibsec hwcost --cacti PATH`) "
            "at the `cacti` binary, with its tech_params/ folder beside it; the result is cached in "
            f"{user_cache_path()}.")


def _rejection_hint(geometry: Geometry, reason: str | None) -> str:
    too_few_sets = "no valid data array organizations" in str(reason) or "Number of sets" in str(reason)
    if geometry.assoc > 1 and too_few_sets:
        return ("; CACTI needs at least 32 sets for an N-way array: use fewer ways, a larger capacity, "
                "or a fully associative array (ways 0)")
    return ""
