"""Reading what CACTI 7 prints: its standard output and its one-line CSV.

CACTI's exit code does not tell success from failure (input-validation
errors exit with 0, "no valid data array organizations" with 1), so a run
counts as successful exactly when its output has the `Access time (ns):`
line; anything else is a rejection that carries CACTI's own error text.

Two figures are derived, rounded as the shipped table (cacti7_summary.csv)
has them, so that a value parsed here equals the table's exactly:
the area is height x width of the whole cache, to 1 um^2 (6 decimals of
mm^2), and the leakage is subthreshold + gate leakage of the bank, to
10 nW (5 decimals of mW).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import IbsecError

AREA_DECIMALS = 6  # mm^2
LEAKAGE_DECIMALS = 5  # mW

SUCCESS_LINE = "Access time (ns):"
PARAMETERS_HEADING = "Cache Parameters:"


@dataclass(frozen=True)
class CactiResult:
    """One CACTI estimate of a cache. assoc 0 means fully associative (or CAM)."""

    tech_nm: int
    capacity_bytes: int
    block_bytes: int
    assoc: int
    access_ns: float
    cycle_ns: float
    area_mm2: float
    read_energy_nj: float
    search_energy_nj: float  # 0 for arrays without a search port (N-way, direct mapped)
    write_energy_nj: float
    leakage_mw: float

    @property
    def lookup_energy_nj(self) -> float:
        """Energy of one look-up: a fully associative array searches its tags, then reads the hit line."""
        return self.read_energy_nj + self.search_energy_nj


class CactiRejected(IbsecError):
    """CACTI refused the configuration; `reason` is its own error text."""

    def __init__(self, reason: str):
        super().__init__(f"CACTI rejected the configuration: {reason}")
        self.reason = reason


# ---- standard output -----------------------------------------------------------------------

def parse_output(text: str) -> CactiResult:
    """The result in CACTI's standard output, or CactiRejected with its error text."""
    if SUCCESS_LINE not in text:
        raise CactiRejected(rejection_reason(text))
    fields = _parameter_block(text)
    height, width = (float(x) for x in _field(fields, "Cache height x width (mm)").split(" x "))
    leakage = float(_field(fields, "Total leakage power of a bank (mW)")) + float(
        _field(fields, "Total gate leakage power of a bank (mW)"))
    return CactiResult(
        tech_nm=_whole(_field(fields, "Technology size (nm)")),
        capacity_bytes=int(_field(fields, "Total cache size (bytes)")),
        block_bytes=int(_field(fields, "Block size (bytes)")),
        assoc=_associativity(_field(fields, "Associativity")),
        access_ns=float(_field(fields, "Access time (ns)")),
        cycle_ns=float(_field(fields, "Cycle time (ns)")),
        area_mm2=round(height * width, AREA_DECIMALS),
        read_energy_nj=float(_field(fields, "Total dynamic read energy per access (nJ)")),
        # Printed only for arrays with a search port (fully associative, CAM).
        search_energy_nj=float(fields.get("Total dynamic associative search energy per access (nJ)", 0.0)),
        write_energy_nj=float(_field(fields, "Total dynamic write energy per access (nJ)")),
        leakage_mw=round(leakage, LEAKAGE_DECIMALS),
    )


def _parameter_block(text: str) -> dict[str, str]:
    """'name: value' lines after the 'Cache Parameters:' heading; the first of each name wins
    (the detailed section below repeats some names with per-array values)."""
    start = text.find(PARAMETERS_HEADING)
    if start < 0:
        raise CactiRejected(f"output has '{SUCCESS_LINE}' but no '{PARAMETERS_HEADING}' block")
    fields: dict[str, str] = {}
    for line in text[start + len(PARAMETERS_HEADING):].splitlines():
        match = re.fullmatch(r"\s+([^:]+?):\s+(\S.*?)\s*", line)
        if match and match.group(1) not in fields:
            fields[match.group(1)] = match.group(2)
    return fields


def _field(fields: dict[str, str], name: str) -> str:
    if name not in fields:
        raise CactiRejected(f"output has no '{name}:' line in its '{PARAMETERS_HEADING}' block")
    return fields[name]


def _associativity(text: str) -> int:
    if text == "fully associative":
        return 0
    if text == "direct mapped":
        return 1
    return int(text)


def _whole(text: str) -> int:
    value = float(text)
    return int(value) if value.is_integer() else round(value)


# Lines that are not error text: the input echo ("Cache size        : 16384") and the IO model
# ("IO Area (sq.mm) = inf"). CACTI prints its error messages after them.
_ECHO_LINE = re.compile(r".*\S\s+:\s.*|.*\s=\s.*")


def rejection_reason(text: str) -> str:
    """CACTI's error text in a failed run's output, its lines joined with ' / '."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR")]
    if not errors:
        errors = [line for line in lines if not _ECHO_LINE.fullmatch(line)]
    return " / ".join(errors) if errors else "CACTI printed neither a result nor an error message"


# ---- CACTI's own CSV (<cfg>.out) --------------------------------------------------------------

def parse_csv_output(text: str, block_bytes: int) -> list[CactiResult]:
    """Every run recorded in CACTI's CSV file, oldest first.

    The file has a header line, then one line per run; fields are separated by ", " and each line
    ends with a trailing ", ". It has no block size, so the caller gives it; a fully associative
    run is recorded with its number of entries as the associativity, which maps back to 0 here.
    """
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise IbsecError("CACTI CSV output is empty")
    header = _csv_fields(lines[0])
    results = []
    for number, line in enumerate(lines[1:], 2):
        values = _csv_fields(line)
        if len(values) != len(header):
            raise IbsecError(f"CACTI CSV output, line {number}: {len(values)} fields, the header has {len(header)}")
        results.append(_csv_result(dict(zip(header, values, strict=True)), block_bytes))
    return results


def _csv_fields(line: str) -> list[str]:
    fields = line.split(", ")
    return fields[:-1] if fields and fields[-1].strip() == "" else fields


def _csv_result(row: dict[str, str], block_bytes: int) -> CactiResult:
    capacity = int(row["Capacity (bytes)"])
    assoc = int(row["Associativity"])
    search = row["Dynamic search energy (nJ)"]
    return CactiResult(
        tech_nm=_whole(row["Tech node (nm)"]),
        capacity_bytes=capacity,
        block_bytes=block_bytes,
        assoc=0 if assoc * block_bytes == capacity else assoc,  # one set holding every line
        access_ns=float(row["Access time (ns)"]),
        cycle_ns=float(row["Random cycle time (ns)"]),
        area_mm2=float(row["Area (mm2)"]),
        read_energy_nj=float(row["Dynamic read energy (nJ)"]),
        search_energy_nj=0.0 if search == "N/A" else float(search),
        write_energy_nj=float(row["Dynamic write energy (nJ)"]),
        leakage_mw=float(row["Standby leakage per bank(mW)"]),
    )
