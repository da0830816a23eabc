"""The hardware cost of the card's security parts (paper §3.1): GCM unit, SKC and prefetch buffer.

GCM unit: from its gate count and a standard-cell library's density and
switching power, as the paper does:
    area = gates / density,  power = gates x (nW/MHz/gate) x clock.
SKC and prefetch buffer: CACTI 7 figures for their geometry (cacti/table.py);
    power = leakage + energy per look-up x look-ups per second,
where a look-up of a fully associative array costs a tag search and a read,
and one of an N-way array a read. The prefetch buffer is searched together
with the SKC on every look-up (§3.3), so both see the same look-up rate:
by default one per card cycle (an upper bound), or the rate a simulation
measured (`--from-result`).
"""

from __future__ import annotations

import csv
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import ConfigError
from ..numeric import positive_real
from ..output.files import STDOUT, write_json_output, write_output
from ..output.provenance import provenance
from ..version import __version__
from .cacti.geometry import PB_STRUCTURE, Geometry, skc_structure
from .cacti.table import find_row

PAPER_TECH_NM = 45
CARD_CLOCK_MHZ = 270.0  # nic.clock_mhz: at most one key look-up per cycle
LIBRARY_45NM = (1480.0, 2.6)  # kgates/mm2 and nW/MHz/gate of the paper's 45 nm library (§3.1)
TABLE_NAME = "table31_hardware_cost"


@dataclass(frozen=True)
class GcmCost:
    """The GCM unit of [43]: gate count and clock, and a library's density and power.

    Library figures left as None are the paper's 45 nm ones, which other nodes cannot use.
    """

    kgates: float = 500.0
    clock_mhz: float = 271.0
    kgates_per_mm2: float | None = None
    nw_per_mhz_gate: float | None = None

    def __post_init__(self):
        for option, value in [("--gcm-kgates", self.kgates), ("--gcm-mhz", self.clock_mhz),
                              ("--gate-density", self.kgates_per_mm2), ("--gate-power", self.nw_per_mhz_gate)]:
            if value is not None:
                positive_real(value, option)

    def for_tech(self, tech_nm: int) -> GcmCost | None:
        """With the library figures filled in (the 45 nm ones when not given); None when the node
        is not 45 nm and its figures were not given, since nothing here scales them."""
        if tech_nm != PAPER_TECH_NM and (self.kgates_per_mm2 is None or self.nw_per_mhz_gate is None):
            return None
        return GcmCost(self.kgates, self.clock_mhz, self.kgates_per_mm2 or LIBRARY_45NM[0],
                       self.nw_per_mhz_gate or LIBRARY_45NM[1])

    @property
    def area_mm2(self) -> float:
        return self.kgates / self.kgates_per_mm2

    @property
    def power_w(self) -> float:
        return self.kgates * 1e3 * self.nw_per_mhz_gate * self.clock_mhz * 1e-9

    def describe(self) -> str:
        return (f"{self.kgates:g} kgates at {self.clock_mhz:g} MHz; {self.kgates_per_mm2:g} kgates/mm2, "
                f"{self.nw_per_mhz_gate:g} nW/MHz/gate")


@dataclass(frozen=True)
class CardSpec:
    """The parts to cost. ways 0 = fully associative SKC; pb_entries 0 = no prefetch buffer."""

    skc_bytes: int = 16 * 1024
    ways: int = 0
    pb_entries: int = 16
    block_bytes: int = 32
    tech_nm: int = PAPER_TECH_NM
    gcm: GcmCost = field(default_factory=GcmCost)

    def __post_init__(self):
        if self.block_bytes < 1:
            raise ConfigError("--block", f"must be at least 1 byte, got {self.block_bytes}")
        if self.skc_bytes % self.block_bytes:
            raise ConfigError("--skc", f"{self.skc_bytes} B is not a whole number of {self.block_bytes}-byte blocks")
        if self.ways < 0:
            raise ConfigError("--ways", f"must be 0 (fully associative) or a number of ways, got {self.ways}")
        if self.pb_entries < 0:
            raise ConfigError("--pb", f"must be 0 (no buffer) or a number of entries, got {self.pb_entries}")
        if self.tech_nm < 1:
            raise ConfigError("--tech", f"must be a feature size in nm, got {self.tech_nm}")

    def skc_geometry(self) -> Geometry:
        return Geometry(self.tech_nm, self.skc_bytes, self.block_bytes, self.ways, skc_structure(self.ways))

    def pb_geometry(self) -> Geometry:
        return Geometry(self.tech_nm, self.pb_entries * self.block_bytes, self.block_bytes, 0, PB_STRUCTURE)


@dataclass(frozen=True)
class LookupRate:
    per_s: float
    source: str


def rate_from_clock(clock_mhz: float) -> LookupRate:
    mhz = positive_real(clock_mhz, "--clock-mhz")
    return LookupRate(mhz * 1e6, f"one look-up per cycle at {mhz:g} MHz")


def rate_from_result(path: Path) -> LookupRate:
    """Look-ups per second per card in an `ibsec run` result: key_lookups / nodes / simulated time."""
    try:
        result = json.loads(Path(path).read_text())
        lookups = float(result["statistics"]["key_lookups"])
        seconds = float(result["statistics"]["simulated_time_us"]) * 1e-6
        nodes = int(result["topology"]["nodes"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ConfigError("--from-result", f"{path} is not a readable `ibsec run` result ({error!r})") from None
    if seconds <= 0 or nodes < 1:
        raise ConfigError("--from-result", f"{path} simulated no time, so it has no look-up rate")
    return LookupRate(lookups / nodes / seconds,
                      f"{lookups:.0f} look-ups on {nodes} cards in {seconds * 1e6:.6g} us simulated ({path})")


# The paper's §3.1 figures: area mm2, power W, access ns; they apply only to the paper's geometry.
PAPER_GCM = (0.34, 0.35, None)
PAPER_SKC = (2.3, 0.1, 3.0)  # 16 KB, 32 B blocks, fully associative (§4.1 gives the 3 ns)
PAPER_PB = (0.19, 0.09, None)  # 16 entries
PAPER_TOTAL = (2.83, 0.54, None)
NO_PAPER = (None, None, None)


@dataclass(frozen=True)
class CostRow:
    part: str
    geometry: str
    area_mm2: float
    power_w: float
    leakage_w: float | None
    dynamic_w: float | None
    access_ns: float | None
    paper_area_mm2: float | None
    paper_power_w: float | None
    paper_access_ns: float | None
    source: str


def cost_table(spec: CardSpec, rate: LookupRate, cacti_bin: str | None = None) -> list[CostRow]:
    """Rows GCM (when its library figures fit the node), SKC, PB (when the card has one) and total."""
    arrays = [_array_row("SKC", spec.skc_geometry(), rate, cacti_bin, _paper_skc(spec))]
    if spec.pb_entries:
        arrays.append(_array_row("PB", spec.pb_geometry(), rate, cacti_bin, _paper_pb(spec)))
    parts = [*_gcm_rows(spec), *arrays]
    return [*parts, _total_row(parts)]


def _paper_skc(spec: CardSpec) -> tuple:
    paper_card = (spec.tech_nm, spec.skc_bytes, spec.block_bytes, spec.ways) == (PAPER_TECH_NM, 16384, 32, 0)
    return PAPER_SKC if paper_card else NO_PAPER


def _paper_pb(spec: CardSpec) -> tuple:
    return PAPER_PB if (spec.tech_nm, spec.pb_entries, spec.block_bytes) == (PAPER_TECH_NM, 16, 32) else NO_PAPER


def _array_row(part: str, geometry: Geometry, rate: LookupRate, cacti_bin: str | None, paper: tuple) -> CostRow:
    row = find_row(geometry, cacti_bin)
    result = row.result
    leakage = result.leakage_mw * 1e-3
    dynamic = result.lookup_energy_nj * 1e-9 * rate.per_s
    return CostRow(part, geometry.describe(), result.area_mm2, leakage + dynamic, leakage, dynamic, result.access_ns,
                   *paper, f"CACTI 7, {row.source.name}")


def _gcm_rows(spec: CardSpec) -> list[CostRow]:
    gcm = spec.gcm.for_tech(spec.tech_nm)
    if gcm is None:
        return []
    is_paper = gcm == GcmCost().for_tech(PAPER_TECH_NM) and spec.tech_nm == PAPER_TECH_NM
    return [CostRow("GCM", gcm.describe(), gcm.area_mm2, gcm.power_w, None, None, None,
                    *(PAPER_GCM if is_paper else NO_PAPER), "gates / density, gates x nW/MHz/gate x MHz")]


def notes(spec: CardSpec) -> list[str]:
    """What the table leaves out, and why."""
    if spec.gcm.for_tech(spec.tech_nm) is None:
        return [f"GCM unit not costed: its library figures ({LIBRARY_45NM[0]:g} kgates/mm2, {LIBRARY_45NM[1]:g} "
                f"nW/MHz/gate) are for 45 nm; give --gate-density and --gate-power for {spec.tech_nm} nm"]
    return []


def _total_row(parts: list[CostRow]) -> CostRow:
    all_paper = [p.part for p in parts] == ["GCM", "SKC", "PB"] and all(p.paper_area_mm2 is not None for p in parts)
    return CostRow("total", " + ".join(p.part for p in parts), sum(p.area_mm2 for p in parts),
                   sum(p.power_w for p in parts), None, None, None, *(PAPER_TOTAL if all_paper else NO_PAPER),
                   "sum of the parts")


# ---- output ----------------------------------------------------------------------------------

def as_dict(spec: CardSpec, rate: LookupRate, rows: list[CostRow]) -> dict:
    return {"tech_nm": spec.tech_nm, "lookups_per_s": rate.per_s, "lookup_rate_source": rate.source,
            "parts": [asdict(r) for r in rows], "notes": notes(spec)}


def text_table(spec: CardSpec, rate: LookupRate, rows: list[CostRow]) -> str:
    def cell(value, digits=3) -> str:
        return "-" if value is None else f"{value:.{digits}g}"

    lines = [f"Hardware cost of the card's security parts at {spec.tech_nm} nm (paper §3.1 beside ours)",
             f"look-up rate {rate.per_s / 1e6:.4g} M/s per card: {rate.source}", "",
             f"{'part':<6} {'area mm2':>9} {'power W':>9} {'access ns':>10} {'paper mm2':>10} {'paper W':>8} "
             f"{'paper ns':>9}  geometry"]
    for r in rows:
        lines.append(f"{r.part:<6} {cell(r.area_mm2):>9} {cell(r.power_w):>9} {cell(r.access_ns):>10} "
                     f"{cell(r.paper_area_mm2):>10} {cell(r.paper_power_w):>8} {cell(r.paper_access_ns):>9}  "
                     f"{r.geometry}")
    lines += ["", *notes(spec),
              "SKC/PB power = leakage + (search + read energy) x look-up rate (read only for N-way); figures "
              "from CACTI 7, which gives far smaller arrays than the paper's (docs/hardware-cost.md)."]
    return "\n".join(lines)


def write_table(path: Path, spec: CardSpec, rate: LookupRate, rows: list[CostRow], command: str) -> Path:
    """The table as CSV (Parquet for PATH.parquet), and beside it PATH.meta.json naming the command that made it
    ('-': the CSV alone, on standard output)."""
    path = Path(path)

    def write(tmp: Path) -> None:
        with open(tmp, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(asdict(rows[0])))
            writer.writeheader()
            for row in rows:  # 6 significant digits, as the other result tables
                writer.writerow({k: f"{v:.6g}" if isinstance(v, float) else v for k, v in asdict(row).items()})

    if path.suffix.lower() == ".parquet":
        import pandas as pd

        from ..output.tables import write_table as write_table_file

        write_table_file(pd.DataFrame([asdict(row) for row in rows]), path)
    else:  # any other name is CSV
        write_output(path, write)
    if str(path) == STDOUT:  # no file for the meta data to describe, nor a folder to put it in
        return path
    meta = {"table": path.stem, "command": command, "ibsec_version": __version__, **provenance(engine_made=False),
            "tech_nm": spec.tech_nm,
            "lookups_per_s": rate.per_s, "lookup_rate_source": rate.source, "files": [path.name]}
    write_json_output(path.with_name(f"{path.stem}.meta.json"), meta)
    return path


def write_paper_table(out: Path) -> Path:
    """The §3.1 table for the paper's card (16 KB SKC, 16-entry buffer, 45 nm, 270 MHz) from the shipped table."""
    out = Path(out)
    path = out / f"{TABLE_NAME}.csv"
    spec, rate = CardSpec(), rate_from_clock(CARD_CLOCK_MHZ)
    return write_table(path, spec, rate, cost_table(spec, rate), f"ibsec hwcost --out {path}")
