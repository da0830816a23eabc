"""`ibsec run --sweep-load`: one cycle-level simulation per offered load.

A load sweep runs one engine point per load (per load and seed with
`--seeds N`) with the resumable runner of store.py and turns the result
files into PREFIX.csv and PREFIX.parquet (the table), PREFIX.pdf, .svg and
.png (the plot; with seeds, the mean and the range over them) and
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
SEED_KEY = "seed"
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
OUTPUT_SUFFIXES = (".csv", ".parquet", ".pdf", ".svg", ".png", ".meta.json")
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
    """--out PREFIX; a trailing .csv, .parquet, .pdf, .svg, .png or .json is dropped (`--out s.csv` gives s.csv)."""
    path = Path(out)
    if path.suffix.lower() in (".csv", ".parquet", ".pdf", ".svg", ".png", ".json"):
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
               argv: list[str] | None = None, attack: str | None = None, seeds: int = 1) -> int:
    """Run one simulation per offered load (and per seed 1..seeds when seeds > 1); write the table, the plot and
    PREFIX.meta.json; return the exit code. `attack`: an attack file layered on every point (docs/attacks.md)."""
    loads = parse_loads(spec)
    base = read_config(config)
    attack_layer = read_config(attack) if attack is not None else None  # shown in PREFIX.meta.json
    for text in overrides:
        if parse_override(text)[0] == LOAD_KEY:
            raise ConfigError("--set", f"--sweep-load sets {LOAD_KEY}; drop --set {text}")
        if seeds > 1 and parse_override(text)[0] == SEED_KEY:
            raise ConfigError("--set", f"--seeds {seeds} runs seeds 1..{seeds}; drop --set {text}")
    # Only a load above 1 needs the injection process (and, if not given, the engine's default).
    if max(loads) > 1 and effective_value(INJECTION_KEY, base, overrides) == "bernoulli":
        raise ConfigError("--sweep-load", f"a Bernoulli source injects at most once per slot: loads must be <= 1, "
                                          f"got {max(loads):g} (or --set {INJECTION_KEY}=poisson)")
    prefix = sweep_prefix(out)
    runs = prefix.parent / f"{prefix.name}.runs"
    check_outputs(prefix, runs)
    runs.mkdir(parents=True, exist_ok=True)

    # One EnginePoint per load (and seed): its identity (engine, config and attack contents, overrides) keys the
    # store, so editing any of them, or rebuilding the engine, computes the sweep again instead of reusing stale rows.
    plan = [(load, seed) for load in loads for seed in (range(1, seeds + 1) if seeds > 1 else [None])]
    points = [EnginePoint(config, (*overrides, f"{LOAD_KEY}={load!r}", *([f"{SEED_KEY}={seed}"] if seed else [])),
                          attack, label=f"load-{load:.12g}" + (f"-seed-{seed}" if seed else ""))
              for load, seed in plan]
    failure = None
    try:
        rows = run_points(points, functools.partial(run_to_row, runs), store=runs / "points.jsonl", jobs=jobs,
                          quiet=quiet, label=f"load sweep {prefix.name}", key=point_identity)
    except PointsFailed as error:
        failure, rows = error, error.results
        if len(error.errors) == len(points):
            first = error.errors[min(error.errors)]
            raise EngineError(f"every load point failed (first, load {loads[0]:g}: {first})", error.exit_code) from None
    table = sweep_table(plan, rows, overrides, failure)
    versions = next(({"ibsec_version": r["ibsec_version"], "systemc_version": r["systemc_version"]}
                     for r in rows if r is not None), {})
    parameters_meta = {"config_file": config, "base_config": base, "overrides": list(overrides), "loads": loads,
                       "seeds": seeds, "results": str(runs), "engine": versions}
    if attack_layer is not None:
        parameters_meta.update({"attack_file": attack, "attack": attack_layer})
    write_sweep_outputs(table, prefix, parameters_meta, argv)
    if not quiet:
        shown = [c for c in ["offered_load", "seed", "accepted_throughput", "latency_mean_ns", "latency_p99_ns",
                             "drained", "warnings", "error"] if c in table]
        print(table_text(table[shown], index=False)[1])
        print(f"wrote {prefix}.csv, .parquet, .pdf, .svg, .png and .meta.json (engine results in {runs}/)")
        summary = warnings_summary(table["warnings"])
        if summary is not None:
            print(f"ibsec: warning: {summary}", file=sys.stderr)
    if failure is not None:
        first = min(failure.errors)
        raise EngineError(f"{len(failure.errors)} of {len(points)} load points failed "
                          f"(first, load {plan[first][0]:g}: {failure.errors[first]}); "
                          "the others are in the outputs; run the same command again to retry them",
                          failure.exit_code)
    not_drained = int((~table["drained"].astype(bool)).sum())
    if not_drained and not quiet:
        print(f"{not_drained} of {len(points)} points did not drain (saturated); their rows have drained = False")
    return 0


def sweep_table(plan: list[tuple[float, int | None]], rows: list, overrides: list[str],
                failure: PointsFailed | None):
    """A row per (load, seed) of the plan; a `seed` column when the sweep has seeds (seed not None)."""
    import pandas as pd

    records = []
    for i, ((load, seed), row) in enumerate(zip(plan, rows, strict=True)):
        record = {c: None for c in SWEEP_COLUMNS}
        if row is not None:
            record.update({c: row.get(c) for c in SWEEP_COLUMNS})
            record.update({c: v for c, v in row.items() if c.startswith("attack_")})  # with --attack only
            record["drained"] = bool(row.get("drained"))
        record["offered_load"] = load
        if seed is not None:
            record = {"offered_load": load, "seed": seed, **record}
        for text in overrides:
            key, value = parse_override(text)
            record[key] = json.dumps(value) if isinstance(value, (list, dict)) else value
        record[RESULT_COLUMN] = row.get("result_file") if row is not None else None
        if failure is not None:
            record["error"] = str(failure.errors[i]) if i in failure.errors else ""
        records.append(record)
    return pd.DataFrame(records)


def write_sweep_outputs(table, prefix: Path, parameters_meta: dict, argv: list[str] | None = None) -> None:
    from ..output import figure_style as style

    fig, (lat, thr) = style.subplots(1, 2, width=10.0, height=3.8)
    ok = table[table["latency_mean_ns"].notna()]
    for i, (column, label) in enumerate([("latency_mean_ns", "mean"), ("latency_p99_ns", "p99")]):
        part = ok[ok[column].astype(float) > 0]
        _plot_over_seeds(lat, part, "offered_load", column, 1e-3, label=label, **style.series_style(i))
    saturated = ok[~ok["drained"].astype(bool)]
    if len(saturated):
        lat.plot(saturated["offered_load"], saturated["latency_p99_ns"].astype(float) / 1000.0, ls="none",
                 marker="x", color=style.OKABE_ITO["vermillion"], ms=8, label="did not drain")
    wide = style.log_scale_if_wide(lat, [*ok["latency_mean_ns"], *ok["latency_p99_ns"]])
    lat.set_xlabel("offered load (fraction of link data rate)")
    lat.set_ylabel(f"latency ({style.MICROSECONDS}{', log' if wide else ''})")
    lat.set_title("latency vs offered load")
    style.legend_outside(lat, where="below", ncol=3)
    done = table[table["accepted_throughput"].notna()]
    _plot_over_seeds(thr, done, "offered_throughput", "accepted_throughput", 1.0, label="accepted",
                     **style.series_style(0))
    top = max([float(table["offered_load"].max())] + done["offered_throughput"].astype(float).tolist())
    thr.plot([0, top], [0, top], color="grey", ls="--", lw=0.8, marker="none", label="y = x")
    thr.set_xlabel("offered throughput (fraction of link data rate)")
    thr.set_ylabel("accepted throughput (fraction of link data rate)")
    thr.set_title("accepted vs offered throughput")
    style.legend_outside(thr, where="below", ncol=2)
    title = Path(parameters_meta["config_file"]).name if parameters_meta["config_file"] else "engine defaults"
    count = len(parameters_meta["overrides"])
    if count:  # every override is in PREFIX.meta.json; a title shows them only while they fit
        listed = f"{title}: {', '.join(parameters_meta['overrides'])}"
        title = listed if len(listed) <= style.TITLE_CHARACTERS else f"{title} + {count} --set (see .meta.json)"
    seeds = parameters_meta.get("seeds", 1)
    fig.suptitle(f"load sweep ({title})" + (f"\nmean of {seeds} seeds; bars: their range (min to max)"
                                            if seeds > 1 else ""))
    style.save_figure(table, fig, prefix.parent, prefix.name, parameters_meta, argv)


def _plot_over_seeds(ax, table, x: str, y: str, scale: float, **line) -> None:
    """y against x, one point per offered load: with several seeds, the means, and the range of y as error bars."""
    scaled = table.assign(**{y: table[y].astype(float) * scale, x: table[x].astype(float)})
    grouped = scaled.groupby("offered_load", sort=True)
    xs, mean, low, high = grouped[x].mean(), grouped[y].mean(), grouped[y].min(), grouped[y].max()
    if (high > low).any():
        ax.errorbar(xs, mean, yerr=[mean - low, high - mean], capsize=2, **line)
    else:
        ax.plot(xs, mean, **line)
