"""`ibsec sweep SPEC --out DIR`: every point of a sweep spec on Dask, resumable, into one table (docs/sweeps.md).

Each point is run once: finished points go to DIR/points.jsonl (the store of
store.run_points), keyed on the point, the contents of its inputs (base
config, traces) and the engine binary, so re-running the command computes
only what is missing, failed, or made stale by a new engine. The table
DIR/sweep.csv (and .parquet) is rebuilt from the store on every run.
"""

from __future__ import annotations

import functools
import json
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..engine.point import EnginePoint, point_identity, run_to_row
from ..errors import ConfigError, IbsecError
from ..models.presets import with_preset
from ..output.tables import uniform_column
from .cluster import dask_executor
from .spec import Spec

STORE = "points.jsonl"
RUNS = "runs"  # engine result files of a `run` sweep
EXIT_POINTS_FAILED = 1
# The files a sweep writes into its folder, beside the store and RUNS.
OUTPUTS = ("spec.json", "sweep.csv", "sweep.parquet")


class SweepFailed(IbsecError):
    """Some points failed; the others are in the table."""

    exit_code = EXIT_POINTS_FAILED


# ---- one point, on a worker ------------------------------------------------------

def run_sweep_point(run: Callable[[Any], dict], item) -> dict:
    """One point on a worker: its row, or IbsecError with the reason it failed."""
    try:
        return run(item)
    except IbsecError as error:
        # A plain IbsecError of the message: it crosses from a worker process intact
        # (ConfigError and EngineError take other constructor arguments than they pickle).
        raise IbsecError(str(error)) from None
    except OSError as error:
        raise IbsecError(f"{type(error).__name__}: {error}") from None


def run_analytic_point(point: dict) -> dict:
    from ..models import markov

    parameters = with_preset(point["parameters"])
    entries = analytic_entries(parameters)
    if "on_mean" not in parameters or "off_mean" not in parameters:
        raise ConfigError("on_mean", "give on_mean and off_mean (ms), or a preset")
    on, off = parameters["on_mean"], parameters["off_mean"]
    if parameters["model"] == "capacity":
        return markov.capacity_report(entries, on, off, parameters.get("target", 0.9)).as_dict()
    if "processes" not in parameters:
        raise ConfigError("processes", "the hitrate model needs the number of sessions")
    processes = parameters["processes"]
    return {"entries": entries, "processes": processes, "on_mean": float(on), "off_mean": float(off),
            "on_probability": markov.on_probability(on, off),
            "hit_rate": markov.hit_rate_estimate(entries, processes, on, off)}


def analytic_entries(parameters: dict) -> int:
    from ..units import parse_size

    if "entries" in parameters:
        return parameters["entries"]
    if "size" not in parameters:
        raise ConfigError("entries", "give entries, or size (e.g. 16KB) and entry_bytes (default 16)")
    size, entry_bytes = parse_size(parameters["size"]), parameters.get("entry_bytes", 16)
    if not isinstance(entry_bytes, int) or entry_bytes <= 0 or size % entry_bytes:
        raise ConfigError("size", f"{size} bytes is not a whole number of {entry_bytes!r}-byte entries")
    return size // entry_bytes


# ---- the points of a spec ------------------------------------------------------

def sweep_points(spec: Spec) -> list[dict]:
    """Every point in table order (seeds vary fastest): {kind, parameters, seed}."""
    points = []
    for parameters in spec.parameter_sets():
        for seed in spec.seeds:
            point = {"kind": spec.kind, "parameters": parameters}
            if seed is not None:
                point["seed"] = seed
            points.append(point)
    return points


def engine_point(spec: Spec, point: dict) -> EnginePoint:
    """A `run` point as the engine runs it: the spec's base config, the point's parameters and seed."""
    overrides = [f"{name}={json.dumps(value)}" for name, value in point["parameters"].items()]
    overrides.append(f"seed={point['seed']}")
    return EnginePoint(None if spec.config is None else str(spec.config), tuple(overrides))


def cachesim_point(point: dict) -> dict:
    """A `cachesim` point as the engine runs it: presets resolved to ON/OFF means, the seed."""
    return {**with_preset(point["parameters"]), "seed": point["seed"]}


def runnable(spec: Spec, points: list[dict], out: Path) -> tuple[list, Callable[[Any], dict], Callable[[Any], dict]]:
    """(what to run for each point, how to run one, its identity in the store) for the spec's kind.

    An engine point's identity holds the engine binary's digest and the contents of what it reads
    (base config, traces), so a rebuilt engine or an edited input runs it again (EnginePoint)."""
    if spec.kind == "run":
        items = [engine_point(spec, p) for p in points]
        return items, functools.partial(run_sweep_point, functools.partial(run_to_row, str(out / RUNS))), point_identity
    if spec.kind == "cachesim":
        from ..models import cachesim

        items = [cachesim_point(p) for p in points]
        return items, functools.partial(run_sweep_point, cachesim.run_point), cachesim.identity
    return points, functools.partial(run_sweep_point, run_analytic_point), lambda point: point


# ---- the table --------------------------------------------------------------------

def sweep_table(spec: Spec, points: list[dict], rows: list, errors: dict):
    """One row per point: its parameters, seed, status and error, then every number of its result."""
    import pandas as pd

    names = spec.parameter_names()
    records = []
    for i, (point, row) in enumerate(zip(points, rows, strict=True)):
        record = {name: point["parameters"].get(name) for name in names}
        if "seed" in point:
            record["seed"] = point["seed"]
        record["status"] = "failed" if i in errors else "ok"
        record["error"] = str(errors[i]) if i in errors else ""
        for name, value in (row or {}).items():
            if record.get(name) is None:  # a row repeats its point's parameters, resolved (entries from size)
                record[name] = value
        records.append(record)
    columns = dict.fromkeys(name for record in records for name in record)
    return pd.DataFrame({name: pd.array(uniform_column([r.get(name) for r in records])) for name in columns})


def write_table(table, out: Path) -> None:
    from ..output.files import write_output

    write_output(out / "sweep.csv", lambda tmp: table.to_csv(tmp, index=False))
    write_output(out / "sweep.parquet", lambda tmp: table.to_parquet(tmp, index=False))


# ---- running ------------------------------------------------------------------

def write_echo(spec: Spec, points: list[dict], out: Path, argv: list[str] | None, command: str | None = None) -> None:
    """DIR/spec.json: the spec, its point count, the engine and the command (`ibsec ARGV`, or `command` as given)."""
    from ..engine.binary import engine_digest
    from ..output.files import write_json_output
    from ..version import __version__

    engine = None if spec.kind == "analytic" else engine_digest()
    echo = {"spec": spec.echo(), "point_count": len(points), "engine": engine,
            "command": command or shlex.join(["ibsec", *argv]), "ibsec_version": __version__}
    write_json_output(out / "spec.json", echo)


def execute_points(spec: Spec, points: list[dict], out: Path, options, quiet: bool) -> tuple[list, dict, int]:
    """Run what is not yet in the store; (rows in point order, {index: error}, points computed now)."""
    from .store import PointsFailed, load_store, point_key, run_points

    store = out / STORE
    items, runner, identity = runnable(spec, points, out)
    done = load_store(store)
    todo = sum(point_key(identity(item)) not in done for item in items)
    if spec.kind == "run":
        (out / RUNS).mkdir(parents=True, exist_ok=True)
    label = f"sweep {spec.path.name}"
    try:
        if not todo:  # nothing to run: no cluster to start (or batch jobs to submit)
            return run_points(items, runner, store=store, quiet=True, label=label, key=identity), {}, 0
        with dask_executor(options) as executor:
            return run_points(items, runner, store=store, quiet=quiet, label=label, executor=executor,
                              key=identity), {}, todo
    except PointsFailed as failure:
        return failure.results, failure.errors, todo


def describe(point: dict) -> str:
    """'nic.security="SKC-2", seed=1': a point as its row shows it."""
    shown = {**point["parameters"], **({"seed": point["seed"]} if "seed" in point else {})}
    return ", ".join(f"{name}={json.dumps(value)}" for name, value in shown.items()) or "the base config"


# ---- the summary printed at the end -----------------------------------------------

# The statistic a reader looks at first, per kind of point (the first present of each list is shown).
KEY_STATISTICS = {"run": ["latency_mean_ns", "skc_hit_rate"], "cachesim": ["hit_rate"],
                  "analytic": ["capacity", "hit_rate"]}
SUMMARY_ROWS = 20  # more rows than a screen shows scroll the counts away: the rest are in sweep.csv


def summary(spec: Spec, table, computed: int, failed: int, out: Path) -> str:
    """The sweep's end on the terminal: points run, skipped (already in the store) and failed, then each point's
    varying parameters, status and key statistics (the first SUMMARY_ROWS), and where the whole table is."""
    from ..units import table_text

    total = len(table)
    counts = (f"{total} points: {computed - failed} run now, {total - computed} skipped (already in "
              f"{out / STORE}), {failed} failed")
    varying = [name for name in [*spec.parameter_names(), "seed"]
               if name in table and table[name].astype(str).nunique() > 1]
    statistics = [name for name in KEY_STATISTICS.get(spec.kind, []) if name in table]
    shown = table[[*varying, "status", *statistics]].head(SUMMARY_ROWS).copy()
    for name in varying:  # a trace path's folders make the table too wide to read; its file name says which
        shown[name] = [Path(v).name if isinstance(v, str) and "/" in v else v for v in shown[name]]
    _, text = table_text(shown, index=False)
    more = f"first {SUMMARY_ROWS} of {total} rows; " if total > SUMMARY_ROWS else ""
    return f"{counts}\n{text}\n({more}the whole table: {out / 'sweep.csv'} and {out / 'sweep.parquet'})"
