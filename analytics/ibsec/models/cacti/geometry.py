"""What CACTI is asked about (a geometry) and what it answered for one (a table row)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .output import CactiResult

PB_STRUCTURE = "prefetch buffer as fully-assoc cache"


def skc_structure(assoc: int) -> str:
    """The table's label of a session key cache of this associativity (0 = fully associative)."""
    if assoc == 0:
        return "SKC fully-assoc cache"
    if assoc == 1:
        return "SKC direct-mapped cache"
    return f"SKC {assoc}-way cache"


def cache_type(structure: str) -> str:
    """CACTI's `-cache type` for a structure label: a pure CAM, a tagless RAM, or a cache."""
    if "CAM" in structure:
        return "cam"
    if "RAM" in structure:
        return "ram"
    return "cache"


@dataclass(frozen=True)
class Geometry:
    """What CACTI is asked about. assoc 0 = fully associative."""

    tech_nm: int
    capacity_bytes: int
    block_bytes: int
    assoc: int
    structure: str

    def describe(self) -> str:
        ways = {0: "fully associative", 1: "direct-mapped"}.get(self.assoc, f"{self.assoc}-way")
        return (f"a {bytes_text(self.capacity_bytes)} {ways} array of {self.block_bytes} B blocks at "
                f"{self.tech_nm} nm ('{self.structure}')")


def bytes_text(n: int) -> str:
    return f"{n // 1024} KB" if n % 1024 == 0 else f"{n} B"


@dataclass(frozen=True)
class TableRow:
    """One geometry's CACTI outcome: a result, or CACTI's reason for rejecting it."""

    geometry: Geometry
    result: CactiResult | None
    rejection: str | None
    source: Path
    cfg_file: str = ""
    raw_file: str = ""
    wall_s: float | None = None
