"""Running a CACTI 7 binary for one geometry.

The input file has the settings of every shipped table row (one read/write
port, a search port only for fully associative and CAM arrays, one bank,
output bus of 8 x block bits, 360 K, itrs-hp cells and periphery, ED^2
optimisation, Global_30 semi-global wires, conservative interconnect, no
ECC, UCA); only the geometry changes, so a live result is comparable with
the table. CACTI opens tech_params/*.dat by relative path, so it runs in
its own directory (without them it crashes). Success is judged by the
`Access time (ns):` line, not by the exit code.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from ...errors import ConfigError, IbsecError
from ...output.files import write_text_output
from .geometry import Geometry, TableRow, cache_type
from .output import SUCCESS_LINE, CactiRejected, CactiResult, parse_output

# Exit codes with which CACTI reports a configuration it cannot model: 0 (input validation)
# and 1 (no array organization fits). Anything else (a crash, a signal) is not about the geometry.
REJECTION_EXIT_CODES = (0, 1)
BINARY_FIELD = "--cacti (or $CACTI_BIN)"

CFG_TEMPLATE = """\
# CACTI 7.0 input -- {structure}: {capacity} B, {block} B lines, assoc {assoc} (0=FA), {tech} nm
# Written by `ibsec hwcost` with the settings of the shipped CACTI table; only the geometry differs.
-size (bytes) {capacity}
-block size (bytes) {block}
-associativity {assoc}
-read-write port 1
-exclusive read port 0
-exclusive write port 0
-single ended read ports 0
-search port {search_ports}
-UCA bank count 1
-technology (u) {tech_um}
-output/input bus width {bus_bits}
-operating temperature (K) 360
-cache type "{cache_type}"
-tag size (b) "default"
-access mode (normal, sequential, fast) - "normal"
-Data array cell type - "itrs-hp"
-Data array peripheral type - "itrs-hp"
-Tag array cell type - "itrs-hp"
-Tag array peripheral type - "itrs-hp"
-design objective (weight delay, dynamic power, leakage power, cycle time, area) 0:0:0:100:0
-deviate (delay, dynamic power, leakage power, cycle time, area) 20:100000:100000:100000:100000
-NUCAdesign objective (weight delay, dynamic power, leakage power, cycle time, area) 100:100:0:0:100
-NUCAdeviate (delay, dynamic power, leakage power, cycle time, area) 10:10000:10000:10000:10000
-Optimize ED or ED^2 (ED, ED^2, NONE): "ED^2"
-Cache model (NUCA, UCA)  - "UCA"
-NUCA bank count 0
-Wire signaling (fullswing, lowswing, default) - "Global_30"
-Wire inside mat - "semi-global"
-Wire outside mat - "semi-global"
-Interconnect projection - "conservative"
-Core count 8
-Cache level (L2/L3) - "L3"
-Add ECC - "false"
-Print level (DETAILED, CONCISE) - "DETAILED"
-Print input parameters - "true"
-Force cache config - "false"
-Ndwl 1
-Ndbl 1
-Nspd 0
-Ndcm 1
-Ndsam1 0
-Ndsam2 0
-page size (bits) 8192
-burst length 8
-internal prefetch width 8
-Array Power Gating - "false"
-WL Power Gating - "false"
-CL Power Gating - "false"
-Bitline floating - "false"
-Interconnect Power Gating - "false"
-Power Gating Performance Loss 0.01
# CACTI 7 always runs its off-chip IO and MemCAD models after the cache model;
# these lines just keep that (irrelevant) part well-defined.
-dram_type "DDR3"
-io state "WRITE"
-addr_timing 1.0
-mem_density 4 Gb
-bus_freq 800 MHz
-duty_cycle 1.0
-activity_dq 1.0
-activity_ca 0.5
-num_dq 72
-num_dqs 18
-num_ca 25
-num_clk  2
-num_mem_dq 2
-mem_data_width 8
-rtt_value 10000
-ron_value 34
-tflight_value
-num_bobs 1
-capacity 80
-num_channels_per_bob 1
-first metric "Cost"
-second metric "Bandwidth"
-third metric "Energy"
-DIMM model "ALL"
-mirror_in_bob "F"
"""


def cfg_text(geometry: Geometry) -> str:
    kind = cache_type(geometry.structure)
    return CFG_TEMPLATE.format(
        structure=geometry.structure, capacity=geometry.capacity_bytes, block=geometry.block_bytes,
        assoc=geometry.assoc, tech=geometry.tech_nm, tech_um=f"{geometry.tech_nm / 1000:g}",
        # CACTI requires a search port on fully associative and CAM arrays and accepts none elsewhere.
        search_ports=1 if geometry.assoc == 0 or kind == "cam" else 0,
        bus_bits=8 * geometry.block_bytes, cache_type=kind)


def file_stem(geometry: Geometry) -> str:
    ways = "fa" if geometry.assoc == 0 else f"a{geometry.assoc}"
    return (f"{cache_type(geometry.structure)}_{geometry.tech_nm}nm_{geometry.capacity_bytes}B_"
            f"b{geometry.block_bytes}_{ways}")


def checked_binary(path: str) -> Path:
    """The CACTI binary, which must be executable and have tech_params/ beside it."""
    binary = Path(path).expanduser().resolve()
    if not binary.is_file() or not os.access(binary, os.X_OK):
        raise ConfigError(BINARY_FIELD, f"{path} is not an executable file (give the path of the `cacti` binary)")
    if not (binary.parent / "tech_params").is_dir():
        raise ConfigError(BINARY_FIELD, f"{binary.parent} has no tech_params/ folder; CACTI reads it from its own "
                                       "directory (point at the `cacti` binary inside the CACTI build tree)")
    return binary


def run_cacti(binary_path: str, geometry: Geometry, store: Path, timeout_s: float) -> TableRow:
    """Run CACTI for the geometry; keep its input in store/cfg/ and its output in store/raw/.

    Returns the row to cache (its source is the store until it is cached): the result, or CACTI's
    reason for rejecting the geometry. A crash, a timeout or an exit code CACTI never uses for a
    rejection raises IbsecError instead, because it says nothing about the geometry and must not
    be cached.
    """
    binary = checked_binary(binary_path)
    stem = file_stem(geometry)
    cfg = write_text_output(store / "cfg" / f"{stem}.cfg", cfg_text(geometry))
    cfg.with_name(cfg.name + ".out").unlink(missing_ok=True)  # CACTI appends its CSV to this file
    started = time.monotonic()
    try:
        completed = subprocess.run([str(binary), "-infile", str(cfg)], cwd=binary.parent, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, errors="replace", timeout=timeout_s,
                                   check=False)
    except subprocess.TimeoutExpired:
        raise IbsecError(f"CACTI ({binary}) did not finish within {timeout_s:g} s for {geometry.describe()}; "
                         f"input in {cfg}") from None
    wall = round(time.monotonic() - started, 3)
    raw = write_text_output(store / "raw" / f"{stem}.txt", completed.stdout)
    files = {"source": store, "cfg_file": str(cfg), "raw_file": str(raw), "wall_s": wall}
    try:
        result = _checked(parse_output(completed.stdout), geometry, raw)
        return TableRow(geometry, result, None, **files)
    except CactiRejected as rejected:
        if SUCCESS_LINE in completed.stdout or completed.returncode not in REJECTION_EXIT_CODES:
            raise IbsecError(f"CACTI ({binary}) failed for {geometry.describe()} with exit code "
                             f"{completed.returncode}: {rejected.reason}; its output is in {raw}") from None
        return TableRow(geometry, None, rejected.reason, **files)


def _checked(result: CactiResult, geometry: Geometry, raw: Path) -> CactiResult:
    """The result must describe the geometry asked for (CACTI echoes it in its parameter block)."""
    echoed = (result.tech_nm, result.capacity_bytes, result.block_bytes, result.assoc)
    asked = (geometry.tech_nm, geometry.capacity_bytes, geometry.block_bytes, geometry.assoc)
    if echoed != asked:
        raise IbsecError(f"CACTI answered for tech {echoed[0]} nm, {echoed[1]} B, {echoed[2]} B blocks, assoc "
                         f"{echoed[3]} when asked for {geometry.describe()}; its output is in {raw}")
    return result
