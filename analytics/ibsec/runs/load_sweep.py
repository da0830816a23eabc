"""`ibsec run --sweep-load`: one cycle-level simulation per offered load.

A load sweep runs one engine point per load with the resumable runner of
store.py and turns the result files into PREFIX.csv, PREFIX.png and
PREFIX.meta.json.
"""

from __future__ import annotations

import functools
import json
import math
import sys
from pathlib import Path

from ..engine.binary import EngineError
from ..engine.config import effective_value, parse_override, read_config
from ..engine.point import EnginePoint, point_identity, run_to_row, warnings_summary
from ..errors import ConfigError
from ..units import table_text
from .ranges import parse_sweep
from .store import PointsFailed, run_points

LOAD_KEY = "traffic.load"
INJECTION_KEY = "traffic.injection"

# Per-load columns of PREFIX.csv, in order (the overrides follow them).
SWEEP_COLUMNS = [
    "offered_load",
    "offered_throughput",
    "accepted_throughput",
    "latency_mean_ns",
    "latency_p50_ns",
    "latency_p99_ns",
    "skc_hit_rate",
    "key_memory_wait_mean_ns",
    "gcm_busy_fraction",
    "link_utilization_mean",
    "drained",
    "warnings",
]
# What a load sweep writes beside PREFIX.runs/.
OUTPUT_SUFFIXES = (".csv", ".png", ".meta.json")
# After the overrides: the engine's result file of each point.
RESULT_COLUMN = "result_file"

# ---- load sweeps ------------------------------------------------------------

def parse_loads(spec: str) -> list[float]:
    """'0.05:0.95:0.1' (inclusive) or '0.1,0.3,0.5' -> loads, each > 0, rounded to 12 digits."""
    try:
        _, values = parse_sweep(f"load={spec}")
    except ConfigError as error:
        raise ConfigError("--sweep-load", f"{error.problem} (expected START:STOP:STEP or V1,V2,...)") from None
    loads = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ConfigError("--sweep-load", f"{value!r} is not a number")
        if value <= 0:
            raise ConfigError("--sweep-load", f"a load must be > 0, got {value!r}")
        loads.append(float(f"{value:.12g}"))
    if len(set(loads)) != len(loads):
        raise ConfigError("--sweep-load", f"{spec!r} repeats a load")
    return loads


def sweep_prefix(out: str) -> Path:
    """--out PREFIX; a trailing .csv/.png/.json is dropped so that `--out sweep.csv` gives sweep.csv."""
    path = Path(out)
    if path.suffix.lower() in (".csv", ".png", ".json"):
        path = path.with_suffix("")
    if not path.name or path.is_dir():
        raise ConfigError("--out", f"a load sweep needs a file prefix (e.g. results/load), got {out!r}")
    return path


def check_outputs(prefix: Path, runs: Path) -> None:
    """Before the first point: every output can be created (a sweep must not end unable to write its table)."""
    from ..output.files import check_output_file, check_output_folder

    for suffix in OUTPUT_SUFFIXES:
        check_output_file(f"{prefix}{suffix}", "--out")
    check_output_folder(runs, "--out")


def sweep_load(config: str | None, overrides: list[str], spec: str, out: str, jobs: int, quiet: bool,
               argv: list[str] | None = None, attack: str | None = None) -> int:
    """Run one simulation per offered load; write PREFIX.csv/.png/.meta.json; return the exit code.
    `attack`: an attack file layered on every point (docs/attacks.md)."""
    loads = parse_loads(spec)
    base = read_config(config)
    attack_layer = read_config(attack) if attack is not None else None  # shown in PREFIX.meta.json
    for text in overrides:
        if parse_override(text)[0] == LOAD_KEY:
            raise ConfigError("--set", f"--sweep-load sets {LOAD_KEY}; drop --set {text}")
    # Only a load above 1 needs the injection process (and, if not given, the engine's default).
    if max(loads) > 1 and effective_value(INJECTION_KEY, base, overrides) == "bernoulli":
        raise ConfigError("--sweep-load", f"a Bernoulli source injects at most once per slot: loads must be <= 1, "
                                          f"got {max(loads):g} (or --set {INJECTION_KEY}=poisson)")
    prefix = sweep_prefix(out)
    runs = prefix.parent / f"{prefix.name}.runs"
    check_outputs(prefix, runs)
    runs.mkdir(parents=True, exist_ok=True)

    # One EnginePoint per load: its identity (engine, config and attack contents, overrides) keys the store,
    # so editing any of them, or rebuilding the engine, computes the sweep again instead of reusing stale rows.
    points = [EnginePoint(config, (*overrides, f"{LOAD_KEY}={load!r}"), attack, label=f"load-{load:.12g}")
              for load in loads]
    failure = None
    try:
        rows = run_points(points, functools.partial(run_to_row, runs), store=runs / "points.jsonl", jobs=jobs,
                          quiet=quiet, label=f"load sweep {prefix.name}", key=point_identity)
    except PointsFailed as error:
        failure, rows = error, error.results
        if len(error.errors) == len(loads):
            first = error.errors[min(error.errors)]
            raise EngineError(f"every load point failed (first, load {loads[0]:g}: {first})", error.exit_code) from None
    table = sweep_table(loads, rows, overrides, failure)
    versions = next(({"ibsec_version": r["ibsec_version"], "systemc_version": r["systemc_version"]}
                     for r in rows if r is not None), {})
    parameters_meta = {"config_file": config, "base_config": base, "overrides": list(overrides), "loads": loads,
                       "results": str(runs), "engine": versions}
    if attack_layer is not None:
        parameters_meta.update({"attack_file": attack, "attack": attack_layer})
    write_sweep_outputs(table, prefix, parameters_meta, argv)
    if not quiet:
        shown = [c for c in ["offered_load", "accepted_throughput", "latency_mean_ns", "latency_p99_ns", "drained",
                             "warnings", "error"] if c in table]
        print(table_text(table[shown], index=False)[1])
        print(f"wrote {prefix}.csv, {prefix}.png and {prefix}.meta.json (engine results in {runs}/)")
        summary = warnings_summary(table["warnings"])
        if summary is not None:
            print(f"ibsec: warning: {summary}", file=sys.stderr)
    if failure is not None:
        first = min(failure.errors)
        raise EngineError(f"{len(failure.errors)} of {len(loads)} load points failed "
                          f"(first, load {loads[first]:g}: {failure.errors[first]}); "
                          "the others are in the outputs; run the same command again to retry them",
                          failure.exit_code)
    not_drained = int((~table["drained"].astype(bool)).sum())
    if not_drained and not quiet:
        print(f"{not_drained} of {len(loads)} points did not drain (saturated); their rows have drained = False")
    return 0


def sweep_table(loads: list[float], rows: list, overrides: list[str], failure: PointsFailed | None):
    import pandas as pd

    records = []
    for i, (load, row) in enumerate(zip(loads, rows, strict=True)):
        record = {c: None for c in SWEEP_COLUMNS}
        if row is not None:
            record.update({c: row.get(c) for c in SWEEP_COLUMNS})
            record.update({c: v for c, v in row.items() if c.startswith("attack_")})  # with --attack only
            record["drained"] = bool(row.get("drained"))
        record["offered_load"] = load
        for text in overrides:
            key, value = parse_override(text)
            record[key] = json.dumps(value) if isinstance(value, (list, dict)) else value
        record[RESULT_COLUMN] = row.get("result_file") if row is not None else None
        if failure is not None:
            record["error"] = str(failure.errors[i]) if i in failure.errors else ""
        records.append(record)
    return pd.DataFrame(records)


def write_sweep_outputs(table, prefix: Path, parameters_meta: dict, argv: list[str] | None = None) -> None:
    import matplotlib.pyplot as plt

    from ..output.figures import save_figure

    fig, (lat, thr) = plt.subplots(1, 2, figsize=(11, 4.2))
    ok = table[table["latency_mean_ns"].notna()]
    for column, label, marker in [("latency_mean_ns", "mean", "o"), ("latency_p99_ns", "p99", "s")]:
        part = ok[ok[column].astype(float) > 0]
        lat.plot(part["offered_load"], part[column].astype(float) / 1000.0, marker=marker, ms=4, label=label)
    saturated = ok[~ok["drained"].astype(bool)]
    if len(saturated):
        lat.plot(saturated["offered_load"], saturated["latency_p99_ns"].astype(float) / 1000.0, "x", color="red",
                 ms=8, label="did not drain")
    if len(ok):
        lat.set_yscale("log")
    lat.set_xlabel("offered load (fraction of link data rate)")
    lat.set_ylabel("latency (us)")
    lat.set_title("latency vs offered load")
    lat.legend(fontsize=8)
    done = table[table["accepted_throughput"].notna()]
    thr.plot(done["offered_throughput"].astype(float), done["accepted_throughput"].astype(float), marker="o", ms=4,
             label="accepted")
    top = max([float(table["offered_load"].max())] + done["offered_throughput"].astype(float).tolist())
    thr.plot([0, top], [0, top], color="grey", ls="--", lw=0.8, label="y = x")
    thr.set_xlabel("offered throughput (fraction of link data rate)")
    thr.set_ylabel("accepted throughput (fraction of link data rate)")
    thr.set_title("accepted vs offered throughput")
    thr.legend(fontsize=8)
    title = ", ".join(parameters_meta["overrides"]) or "defaults"
    if parameters_meta["config_file"]:
        title = f"{Path(parameters_meta['config_file']).name}: {title}"
    fig.suptitle(f"load sweep ({title})", fontsize=10)
    fig.tight_layout()
    save_figure(table, fig, prefix.parent, prefix.name, parameters_meta, argv)
