"""`ibsec sweep SPEC --out DIR`: every point of a sweep spec on Dask, resumable, into one table (docs/sweeps.md).

Each point is run once: finished points go to DIR/points.jsonl (the store of
sweep.run_points), keyed on the point, the contents of its inputs (base
config, traces) and the engine binary, so re-running the command computes
only what is missing, failed, or made stale by a new engine. The table
DIR/sweep.csv (and .parquet) is rebuilt from the store on every run.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import shlex
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, IbsecError
from .cluster import dask_executor
from .spec import INPUT_PATH_KEYS, Spec

STORE = "points.jsonl"
RUNS = "runs"  # engine result files of a `run` sweep
EXIT_POINTS_FAILED = 1


class SweepFailed(IbsecError):
    """Some points failed; the others are in the table."""

    exit_code = EXIT_POINTS_FAILED


# ---- one point, on a worker ------------------------------------------------------

@dataclass(frozen=True)
class PointRunner:
    """What a worker needs besides the point; small and picklable, since Dask sends it to the workers."""

    kind: str
    config: str | None = None  # `run`: the base config file
    runs: str | None = None  # `run`: the folder of the engine's result files


def run_sweep_point(runner: PointRunner, point: dict) -> dict:
    """One point on a worker: its row, or IbsecError with the reason it failed."""
    try:
        return POINT_KINDS[runner.kind](runner, point)
    except IbsecError as error:
        # A plain IbsecError of the message: it crosses from a worker process intact
        # (ConfigError and EngineError take other constructor arguments than they pickle).
        raise IbsecError(str(error)) from None
    except OSError as error:
        raise IbsecError(f"{type(error).__name__}: {error}") from None


def run_engine_point(runner: PointRunner, point: dict) -> dict:
    from ..engine.binary import run_arguments, run_to_result

    overrides = [f"{name}={json.dumps(value)}" for name, value in point["parameters"].items()]
    overrides.append(f"seed={point['seed']}")
    result_file = Path(runner.runs) / f"{point_digest(point)}.json"
    arguments = run_arguments(runner.config, overrides, out=result_file, quiet=True)
    code, result = run_to_result(arguments, result_file)  # 0, or 3 (not drained); EngineError otherwise
    return run_row(result, result_file, code)


def run_row(result: dict, result_file: Path, exit_code: int) -> dict:
    """Every flat number of an engine result: the statistics, then the scalars of its other sections."""
    from .load_sweep import LATENCY_STATISTICS, attack_columns

    row = {name: value for name, value in result["statistics"].items() if name != "statistics_meta"}
    if row.get("packets_measured", 1) == 0:
        # No measured packet arrived: the engine reports 0 ns; there is no latency to report.
        row.update({name: None for name in LATENCY_STATISTICS if name in row})
    for section in ("topology", "replay", "scheduler"):
        for name, value in result.get(section, {}).items():
            if not isinstance(value, (list, dict)):
                row[f"{section}_{name}"] = value
    row.update(attack_columns(result))
    row.update({"exit_code": exit_code, "result_file": str(result_file),
                "ibsec_version": result.get("ibsec_version"), "systemc_version": result.get("systemc_version")})
    return row


def with_preset(parameters: dict) -> dict:
    """preset/machine replaced by the preset's ON/OFF means (explicit on_mean/off_mean win)."""
    from ..models import presets

    parameters = dict(parameters)
    if "preset" not in parameters:
        if "machine" in parameters:
            raise ConfigError("machine", "a machine goes with a preset")
        return parameters
    preset = presets.get(str(parameters.pop("preset")), str(parameters.pop("machine", "origin2000")))
    parameters.setdefault("on_mean", preset.on_mean_ms)
    parameters.setdefault("off_mean", preset.off_mean_ms)
    return parameters


def run_cachesim_point(runner: PointRunner, point: dict) -> dict:
    from ..models.cachesim import run_point

    return run_point({**with_preset(point["parameters"]), "seed": point["seed"]})


def run_analytic_point(runner: PointRunner, point: dict) -> dict:
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


POINT_KINDS = {"run": run_engine_point, "cachesim": run_cachesim_point, "analytic": run_analytic_point}


# ---- the points of a spec ------------------------------------------------------

def point_digest(point: dict) -> str:
    return hashlib.sha1(json.dumps(point, sort_keys=True).encode()).hexdigest()[:16]


def file_digest(path: str | Path) -> str:
    digest = hashlib.sha1()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def input_files(parameters: dict) -> list[str]:
    files = []
    for name in INPUT_PATH_KEYS:
        value = parameters.get(name)
        files += [value] if isinstance(value, str) and value else list(value or [])
    return files


def sweep_points(spec: Spec) -> list[dict]:
    """Every point in table order (seeds vary fastest). A point holds all that decides its result:
    its parameters and seed, and the contents of the engine, base config and traces it reads."""
    from ..engine.binary import engine_digest

    shared: dict = {"kind": spec.kind}
    if spec.kind != "analytic":
        shared["engine"] = engine_digest()
    if spec.config is not None:
        shared["config"] = file_digest(spec.config)
    digests: dict[str, str] = {}  # each trace read once, however many points replay it
    points = []
    for parameters in spec.parameter_sets():
        for name in input_files(parameters):
            if name not in digests:
                digests[name] = file_digest(name)
        for seed in spec.seeds:
            point = {**shared, "parameters": parameters}
            if seed is not None:
                point["seed"] = seed
            if input_files(parameters):
                point["inputs"] = {name: digests[name] for name in input_files(parameters)}
            points.append(point)
    return points


# ---- the table --------------------------------------------------------------------

def sweep_table(spec: Spec, points: list[dict], rows: list, errors: dict):
    """One row per point: its parameters, seed, status and error, then every number of its result."""
    import pandas as pd

    names = spec.parameter_names()
    records = []
    for i, (point, row) in enumerate(zip(points, rows)):
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


def _value_kind(value) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "text" if isinstance(value, str) else "json"


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def uniform_column(values: list) -> list:
    """A column Parquet can store: lists, tables and columns of mixed kinds become text (JSON)."""
    kinds = {_value_kind(v) for v in values if not _missing(v)}
    if len(kinds) <= 1 and "json" not in kinds:
        return values
    return [None if _missing(v) else v if isinstance(v, str) else json.dumps(v) for v in values]


def write_table(table, out: Path) -> None:
    from ..output.files import write_atomically

    write_atomically(out / "sweep.csv", lambda tmp: table.to_csv(tmp, index=False))
    write_atomically(out / "sweep.parquet", lambda tmp: table.to_parquet(tmp, index=False))


# ---- running ------------------------------------------------------------------

def write_echo(spec: Spec, points: list[dict], out: Path, argv: list[str]) -> None:
    from .. import __version__
    from ..output.files import write_json_atomically

    echo = {"spec": spec.echo(), "point_count": len(points), "engine": points[0].get("engine"),
            "command": shlex.join(["ibsec", *argv]), "ibsec_version": __version__}
    write_json_atomically(out / "spec.json", echo)


def execute_points(spec: Spec, points: list[dict], out: Path, options, quiet: bool) -> tuple[list, dict, int]:
    """Run what is not yet in the store; (rows in point order, {index: error}, points computed now)."""
    from .store import PointsFailed, load_store, point_key, run_points

    store = out / STORE
    done = load_store(store)
    todo = sum(point_key(p) not in done for p in points)
    runner = functools.partial(run_sweep_point, PointRunner(spec.kind, None if spec.config is None else str(spec.config),
                                                            str(out / RUNS)))
    if spec.kind == "run":
        (out / RUNS).mkdir(parents=True, exist_ok=True)
    label = f"sweep {spec.path.name}"
    try:
        if not todo:  # nothing to run: no cluster to start (or batch jobs to submit)
            return run_points(points, runner, store=store, quiet=True, label=label), {}, 0
        with dask_executor(options) as executor:
            return run_points(points, runner, store=store, quiet=quiet, label=label, executor=executor), {}, todo
    except PointsFailed as failure:
        return failure.results, failure.errors, todo


def describe(point: dict) -> str:
    """'nic.security="SKC-2", seed=1': a point as its row shows it."""
    shown = {**point["parameters"], **({"seed": point["seed"]} if "seed" in point else {})}
    return ", ".join(f"{name}={json.dumps(value)}" for name, value in shown.items()) or "the base config"
