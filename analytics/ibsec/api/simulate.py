"""`ibsec.run`, `ibsec.sweep`, `ibsec.collect`: engine runs from Python, through the CLI's EnginePoint and store.

A run is an EnginePoint (engine/point.py) run by the resumable runner of
runs/store.py into a folder: the same point asked again (same engine binary,
config and input contents, overrides) is read back from the store instead of
run again, exactly as `ibsec run --sweep-load` and `ibsec sweep` reuse their
points. Without a folder, runs go to the user's cache folder
($XDG_CACHE_HOME/ibsec/runs, else ~/.cache/ibsec/runs).
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError
from ..numeric import whole
from ..output.files import check_output_folder
from .result import Result

if TYPE_CHECKING:
    import pandas as pd

CACHE_ENV = "XDG_CACHE_HOME"
STORE_NAME = "points.jsonl"


def cache_folder(kind: str) -> Path:
    """Where the API keeps runs and sweeps it was given no folder for."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache") / "ibsec" / kind


def overrides_of(parameters: dict | None, where: str) -> list[str]:
    """{"nic.security": "SKC-16", "traffic": {"load": 0.05}} -> ['nic.security="SKC-16"', 'traffic.load=0.05'];
    a key given twice, dotted and nested, is refused as the engine refuses it in a file (engine/config.py)."""
    from ..engine.config import parameter_values
    from ..user_text import excerpt

    if parameters is None:
        return []
    if not isinstance(parameters, dict):
        raise ConfigError(where, f"expected a dict of parameter -> value, got {type(parameters).__name__}")
    values = parameter_values(parameters, where)
    for key in values:
        if not key or "=" in key:
            raise ConfigError(where, f"a parameter name must be a non-empty string without '=', got {excerpt(key)}")
    return [f"{key}={json.dumps(value)}" for key, value in values.items()]


def _input_file(path: str | Path | None, what: str, folder_too: bool = False) -> str | None:
    """`path` as a string; ConfigError naming `what` when it is not a file (or, `folder_too`, a folder)."""
    if path is None:
        return None
    if not (Path(path).is_file() or (folder_too and Path(path).is_dir())):
        raise ConfigError(what, f"{str(path)!r} does not exist or is not a file")
    return str(path)


def _output_folder(folder: str | Path, argument: str) -> Path:
    """The folder, made if missing; ConfigError naming `argument` if it cannot be (a file, not writable), as the
    commands' output folders are checked (output/files.py)."""
    check_output_folder(folder, argument)
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
    except OSError as error:  # made unwritable or replaced since the check
        raise ConfigError(argument, f"{str(folder)!r}: {error.strerror or error}") from None
    return Path(folder)


def _run_into(folder: str, point) -> dict:
    """Run one point into `folder`: what the store keeps of it (module level, so a Dask worker can run it)."""
    run = point.run(Path(folder))
    return {"result_file": run.result_file.name, "exit_code": run.exit_code}


def run(config: str | Path | dict | None = None, set: dict | None = None, trace: str | Path | None = None,  # noqa: A002
        attack: str | Path | None = None, seed: int | None = None, folder: str | Path | None = None,
        label: str = "run") -> Result:
    """One cycle-level simulation, as `ibsec run CONFIG --set ... --trace ... --attack ...` makes it.

    `config`: a config file, the name of a shipped one ('paper-16'), a dict of parameters, or None (the
    engine's defaults). `set`: parameters over it, {"nic.security": "SKC-16"} (later keys win, as --set).
    `trace`: a trace to replay (or another tool's: an OTF2 anchor, a DUMPI .meta file or its folder, imported
    once into the cache). `attack`: an attack file (docs/attacks.md). `seed`: the run's seed.
    `folder`: where the result file and the resumable store go (default: the user's cache folder); the same
    point asked again is read back, not run again. Raises IbsecError (ConfigError, EngineError) on bad input,
    with the engine's message; a run that did not drain returns normally with `drained` False.
    """
    from ..engine.config import check_config_file
    from ..engine.point import EnginePoint, point_identity
    from ..runs.store import run_points
    from ..shipped import resolve as resolve_shipped

    overrides = []
    if isinstance(config, dict):
        overrides, config = overrides_of(config, "config"), None
    elif config is not None:
        config = str(check_config_file(resolve_shipped("config", str(config), "config")))
    overrides += overrides_of(set, "set")
    if trace is not None:
        overrides.append(f"trace.file={json.dumps(_input_file(trace, 'trace', folder_too=True))}")
    if seed is not None:
        overrides.append(f"seed={whole(seed, 'seed')}")
    point = EnginePoint(config, tuple(overrides), _input_file(attack, "attack"), label=label)
    folder = _output_folder(folder if folder is not None else cache_folder("runs"), "folder")
    runner = functools.partial(_run_into, str(folder))
    record = run_points([point], runner, store=folder / STORE_NAME, quiet=True, label="run", key=point_identity)[0]
    result_file = folder / record["result_file"]
    if not result_file.is_file():  # the store remembers a result file someone has since deleted: run it again
        record = runner(point)
    return Result.from_file(result_file, record["exit_code"])


def _spec(spec):
    from ..runs.spec import load_spec, spec_from_data

    if isinstance(spec, dict):
        return spec_from_data(Path.cwd() / "<spec dict>", spec)
    if isinstance(spec, (str, Path)):
        return load_spec(spec)
    raise ConfigError("spec", f"a sweep spec file or a dict, got {type(spec).__name__}")


def sweep(spec: str | Path | dict, out: str | Path | None = None, workers: int | None = None,
          quiet: bool = True) -> pd.DataFrame:
    """Every point of a sweep spec (a .toml/.json file or the same table as a dict; docs/sweeps.md) on a local
    Dask cluster of `workers` (default: the CPUs), as `ibsec sweep SPEC --out OUT`; the table of DIR/sweep.csv.

    `out`: the sweep's folder (default: one per spec in the user's cache folder); finished points are kept in
    its store and not run again. A failed point is a row with status 'failed' and its error; the others run.
    """
    from ..engine.digests import text_digest
    from ..runs.cluster import ClusterOptions
    from ..runs.spec_sweep import STORE, execute_points, sweep_points, sweep_table, write_echo, write_table
    from ..runs.store import store_locked

    cluster = ClusterOptions(workers=workers)  # checks `workers` before anything runs
    spec = _spec(spec)
    points = sweep_points(spec)
    if out is None:
        echo = {key: value for key, value in spec.echo().items() if key != "spec_file"}
        out = cache_folder("sweeps") / text_digest(json.dumps(echo, sort_keys=True, default=str))
    out = _output_folder(out, "out")
    with store_locked(out / STORE):
        write_echo(spec, points, out, None, command=f"ibsec.sweep({str(spec.path)!r}) (Python)")
        rows, errors, _ = execute_points(spec, points, out, cluster, quiet)
        table = sweep_table(spec, points, rows, errors)
        write_table(table, out)
    return table


def collect(paths: list[str | Path] | str | Path) -> pd.DataFrame:
    """One row per engine result file (files, or folders searched for them), as `ibsec collect`; the units and
    descriptions of the columns are in the table's `attrs["columns"]`."""
    from ..runs.collect import collect as collect_results

    given = [paths] if isinstance(paths, (str, Path)) else paths
    if not isinstance(given, (list, tuple)) or not given or not all(isinstance(p, (str, Path)) for p in given):
        raise ConfigError("paths", f"a result file or folder, or a non-empty list of them, got {paths!r:.80}")
    table, meta = collect_results(list(given))
    table.attrs["columns"] = meta
    return table
