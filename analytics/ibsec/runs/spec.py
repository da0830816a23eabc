"""The SPEC file of `ibsec sweep` (docs/sweeps.md): which kind of point, over which grid, with which seeds.

A SPEC is JSON (.json) or TOML (.toml). Every problem is reported before
anything runs, naming the SPEC file and the field at fault.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path

from .. import user_json
from ..compat import tomllib
from ..errors import ConfigError
from ..numeric import UINT64_MAX
from ..user_text import read_user_text
from .ranges import check_point_count

KINDS = ("run", "cachesim", "analytic")
FIELDS = ("kind", "description", "config", "set", "grid", "points", "seeds")
# `ibsec-engine run` parameters naming input files: relative to the SPEC file, and their contents key the store.
INPUT_PATH_KEYS = ("trace.file", "trace.jobs", "trace.placement")
# trace.placement values that are rules, not files.
PLACEMENT_RULES = ("cyclic", "block")
PRESET_PARAMETERS = ("preset", "machine")
ANALYTIC_PARAMETERS = ("model", "entries", "size", "entry_bytes", "processes", "target", "on_mean", "off_mean",
                       *PRESET_PARAMETERS)
ANALYTIC_MODELS = ("hitrate", "capacity")


class SpecError(ConfigError):
    """A problem in a SPEC file: names the file and the field."""

    def __init__(self, spec: Path | str, field_name: str, problem: str):
        ConfigError.__init__(self, field_name, problem)
        self.args = (f"{spec}: {self.args[0]}",)
        self.spec = str(spec)


@dataclass(frozen=True)
class Spec:
    path: Path
    kind: str
    config: Path | None = None  # `run` only; None: the engine's defaults
    fixed: dict = field(default_factory=dict)  # `set`: in every point
    grid: dict = field(default_factory=dict)  # name -> values; the cartesian product
    points: list = field(default_factory=list)  # explicit points, after the grid's
    seeds: list = field(default_factory=lambda: [1])  # [None] for `analytic`
    description: str = ""

    def parameter_sets(self) -> list[dict]:
        """The grid's product (last name varying fastest), then the explicit points; each with `set`."""
        names = list(self.grid)
        combinations = itertools.product(*self.grid.values())
        product = [dict(zip(names, values, strict=True)) for values in combinations] if names else []
        varied = product + list(self.points)
        return [{**self.fixed, **point} for point in (varied or [{}])]

    def parameter_names(self) -> list[str]:
        """Every parameter named anywhere, in order of first appearance."""
        names = dict.fromkeys([*self.fixed, *self.grid])
        for point in self.points:
            names.update(dict.fromkeys(point))
        return list(names)

    def echo(self) -> dict:
        return {"spec_file": str(self.path), "kind": self.kind, "description": self.description,
                "config": None if self.config is None else str(self.config), "set": self.fixed,
                "grid": self.grid, "points": self.points, "seeds": self.seeds}


# ---- reading -------------------------------------------------------------------

def read_spec_file(path: Path) -> dict:
    """The SPEC's table: TOML for .toml, JSON for .json."""
    if not path.is_file():
        raise ConfigError("SPEC", f"{str(path)!r} {'is not a file' if path.exists() else 'does not exist'}")
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".json"):
        raise ConfigError("SPEC", f"{str(path)!r}: expected a .toml or .json file")
    try:
        text = read_user_text(path, "sweep spec")
    except ConfigError as error:
        raise SpecError(path, "SPEC", error.problem) from None
    try:
        data = tomllib.loads(text) if suffix == ".toml" else user_json.loads(text)
    except user_json.DuplicateKeyError as error:
        raise SpecError(path, "SPEC", str(error)) from None
    except tomllib.TOMLDecodeError as error:
        raise SpecError(path, "SPEC", f"not valid TOML: {error}") from None
    except json.JSONDecodeError as error:
        raise SpecError(path, "SPEC", f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}") \
            from None
    except ValueError as error:  # int() of a number of more than 4300 digits
        raise SpecError(path, "SPEC", f"not valid {suffix[1:].upper()}: {error}") from None
    except RecursionError:  # the parsers recurse once per level: tables nested thousands deep
        raise SpecError(path, "SPEC", "nested too deeply (a sweep spec is a table of tables at most a few "
                                      "levels deep)") from None
    if not isinstance(data, dict):
        raise SpecError(path, "SPEC", "a sweep spec must be a JSON object")
    return data


def load_spec(path: str | Path) -> Spec:
    """Read and check a SPEC file; SpecError (naming the file and field) on any problem."""
    path = Path(path).resolve()
    return spec_from_data(path, read_spec_file(path))


def spec_from_data(path: Path, data: dict) -> Spec:
    """Check a spec's table (as a SPEC file holds it); `path` names it in errors and anchors its relative paths."""
    if not isinstance(data, dict):
        raise SpecError(path, "SPEC", "a sweep spec must be a table (a dict)")
    unknown = [name for name in data if name not in FIELDS]
    if unknown:
        raise SpecError(path, unknown[0], f"not a field of a sweep spec (known: {', '.join(FIELDS)})")
    kind = _kind(path, data)
    fixed = _table(path, data, "set")
    grid = _grid(path, data)
    points = _points(path, data)
    spec = Spec(path=path, kind=kind, config=_config(path, data, kind), fixed=fixed, grid=grid, points=points,
                seeds=_seeds(path, data, kind), description=_description(path, data))
    _check_point_count(spec)
    _check_overlaps(spec)
    _check_parameters(spec)
    if kind == "cachesim":
        _check_cachesim_points(spec)
    spec = _with_input_paths_resolved(spec)
    _check_unique(spec)
    return spec


def _kind(path: Path, data: dict) -> str:
    kind = data.get("kind")
    if kind is None:
        raise SpecError(path, "kind", f"missing: the kind of point ({', '.join(KINDS)})")
    if kind not in KINDS:
        raise SpecError(path, "kind", f"unknown kind {kind!r} (known: {', '.join(KINDS)})")
    return kind


def _description(path: Path, data: dict) -> str:
    text = data.get("description", "")
    if not isinstance(text, str):
        raise SpecError(path, "description", f"expected text, got {text!r}")
    return text


def _table(path: Path, data: dict, name: str) -> dict:
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise SpecError(path, name, f"expected a table of NAME = VALUE, got {table!r}")
    return table


def _grid(path: Path, data: dict) -> dict:
    grid = _table(path, data, "grid")
    if "grid" in data and not grid:
        raise SpecError(path, "grid", "empty: give at least one NAME = [VALUES] (or leave the grid out)")
    for name, values in grid.items():
        if not isinstance(values, list):
            raise SpecError(path, f"grid.{name}", f"expected a list of values, got {values!r}")
        if not values:
            raise SpecError(path, f"grid.{name}", "empty list: a grid of no values has no points")
        _check_length(path, f"grid.{name}", values)
        repeat = _first_repeat(values)
        if repeat is not None:
            raise SpecError(path, f"grid.{name}", f"repeats the value {values[repeat]!r}")
    return grid


def _check_length(path: Path, where: str, values: list) -> None:
    """A list longer than a sweep may be is refused before it is checked value by value."""
    try:
        check_point_count(len(values), f"the list {where}")
    except ConfigError as error:
        raise SpecError(path, where, error.problem) from None


def _first_repeat(values: list) -> int | None:
    """The index of the first value equal to an earlier one (1 == 1.0, as `in` compares), in one pass."""
    seen: set = set()
    for i, value in enumerate(values):
        key = value if isinstance(value, (str, int, float, bool)) else json.dumps(value, sort_keys=True, default=str)
        if key in seen:
            return i
        seen.add(key)
    return None


def _points(path: Path, data: dict) -> list[dict]:
    points = data.get("points", [])
    if not isinstance(points, list):
        raise SpecError(path, "points", f"expected a list of tables (NAME = VALUE), got {points!r}")
    if "points" in data and not points:
        raise SpecError(path, "points", "empty list (give at least one point, or leave the list out)")
    _check_length(path, "points", points)
    for i, point in enumerate(points):
        if not isinstance(point, dict):
            raise SpecError(path, f"points[{i}]", f"expected a table of NAME = VALUE, got {point!r}")
    return points


def _seeds(path: Path, data: dict, kind: str) -> list:
    if kind == "analytic":
        if "seeds" in data:
            raise SpecError(path, "seeds", "the analytic model has no randomness: drop the seeds")
        return [None]
    seeds = data.get("seeds", [1])
    if not isinstance(seeds, list):
        raise SpecError(path, "seeds", f"expected a list of whole numbers, got {seeds!r}")
    if not seeds:
        raise SpecError(path, "seeds", "empty list: give at least one seed (or leave seeds out for [1])")
    _check_length(path, "seeds", seeds)
    for i, seed in enumerate(seeds):
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= UINT64_MAX:
            raise SpecError(path, f"seeds[{i}]", f"expected a whole number from 0 to {UINT64_MAX}, got {seed!r}")
    repeat = _first_repeat(seeds)
    if repeat is not None:
        raise SpecError(path, f"seeds[{repeat}]", f"repeats the seed {seeds[repeat]}")
    return seeds


def _config(path: Path, data: dict, kind: str) -> Path | None:
    """The base config of a `run` sweep, relative to the SPEC file; it must be a JSON object."""
    from ..engine.config import read_config

    given = data.get("config")
    if given is None:
        return None
    if kind != "run":
        raise SpecError(path, "config", f"only a 'run' sweep has a base config, not a {kind!r} one")
    if not isinstance(given, str) or not given:
        raise SpecError(path, "config", f"expected a file name, got {given!r}")
    config = (path.parent / given).resolve()
    if not config.is_file():
        problem = "is not a file" if config.exists() else "does not exist"
        raise SpecError(path, "config", f"file {str(config)!r} {problem}")
    try:
        read_config(config)
    except ConfigError as error:
        raise SpecError(path, "config", str(error)) from None
    return config


# ---- checks across fields --------------------------------------------------------

def _places(spec: Spec) -> list[tuple[str, dict]]:
    """(field prefix, table) of every place a parameter is named."""
    return [("set", spec.fixed), ("grid", spec.grid), *((f"points[{i}]", p) for i, p in enumerate(spec.points))]


def _check_point_count(spec: Spec) -> None:
    """The number of points, from the sizes alone: a grid of a million points is refused before it is built."""
    count = (_grid_size(spec) + len(spec.points) or 1) * len(spec.seeds)
    try:
        check_point_count(count, "the sweep")
    except ConfigError as error:
        raise SpecError(spec.path, "grid", error.problem) from None


def _check_cachesim_points(spec: Spec) -> None:
    """Every cachesim value in its range, and every point's work bounded (models/cachesim.py), before any runs."""
    from ..models.cachesim import NUMBERS, check_point
    from ..models.presets import with_preset

    for place, table in _places(spec):
        for name, value in table.items():
            for item in value if place == "grid" else [value]:
                if name in NUMBERS:
                    try:
                        NUMBERS[name](item, name)
                    except ConfigError as error:
                        raise SpecError(spec.path, f"{place}.{name}", error.problem) from None
    for parameters in spec.parameter_sets():
        try:
            check_point(with_preset(parameters))
        except ConfigError as error:
            shown = ", ".join(f"{name}={json.dumps(value)}" for name, value in parameters.items())
            raise SpecError(spec.path, error.field, f"{error.problem} (the point {shown})") from None


def _check_overlaps(spec: Spec) -> None:
    for name in spec.fixed:
        if name in spec.grid:
            raise SpecError(spec.path, f"grid.{name}", "also in 'set': a parameter is either fixed or varied")
    for i, point in enumerate(spec.points):
        for name in point:
            if name in spec.fixed:
                raise SpecError(spec.path, f"points[{i}].{name}",
                                "also in 'set': a parameter is either fixed or varied")


def _check_parameters(spec: Spec) -> None:
    known = known_parameters(spec.kind)
    for place, table in _places(spec):
        for name in table:
            where = f"{place}.{name}"
            if name == "seed" and spec.kind != "analytic":
                raise SpecError(spec.path, where, "give seeds in the 'seeds' list: the seed is part of every point")
            if name not in known:
                raise SpecError(spec.path, where, unknown_parameter(spec.kind, known, name))
            _check_json(spec.path, where, table[name])
            if spec.kind != "run":
                _check_scalar(spec.path, where, table[name], place == "grid")
            if name == "model":
                _check_models(spec.path, where, table[name] if place == "grid" else [table[name]])
    if spec.kind == "analytic" and any("model" not in point for point in spec.parameter_sets()):
        raise SpecError(spec.path, "model", f"missing: every analytic point needs a model "
                                            f"({' or '.join(ANALYTIC_MODELS)}), in 'set', 'grid' or the point")


def _check_models(path: Path, where: str, models: list) -> None:
    for model in models:
        if model not in ANALYTIC_MODELS:
            raise SpecError(path, where, f"unknown model {model!r} (known: {', '.join(ANALYTIC_MODELS)})")


def _grid_size(spec: Spec) -> int:
    size = 1
    for values in spec.grid.values():
        size *= len(values)
    return size if spec.grid else 0


def _check_json(path: Path, where: str, value) -> None:
    """Values travel as JSON (to the engine, into the store); TOML dates and times do not."""
    try:
        json.dumps(value)
    except TypeError:
        raise SpecError(path, where, f"expected numbers, text, true/false or lists of them, got {value!r}") from None


def _check_scalar(path: Path, where: str, value, is_grid: bool) -> None:
    values = value if is_grid else [value]
    for item in values:
        if isinstance(item, (list, dict)):
            raise SpecError(path, where, f"expected a number or text, got {item!r}")


def known_parameters(kind: str) -> list[str]:
    if kind == "run":
        from ..engine.binary import parameters

        return [p["key"] for p in parameters()]
    if kind == "cachesim":
        from ..models.cachesim import parameters

        return [*parameters(), *PRESET_PARAMETERS]
    return list(ANALYTIC_PARAMETERS)


def unknown_parameter(kind: str, known: list[str], given: str | None = None) -> str:
    import difflib

    close = difflib.get_close_matches(given, known, n=1) if given is not None else []
    hint = f"; did you mean '{close[0]}'?" if close else ""
    if kind == "run":
        return f"not an ibsec-engine run parameter{hint} (`ibsec params` lists them)"
    shown = [name for name in known if name != "seed"]
    return f"not a {kind} parameter{hint} (known: {', '.join(shown)})"


def _with_input_paths_resolved(spec: Spec) -> Spec:
    """trace.file / trace.jobs / a trace.placement file relative to the SPEC file, as absolute paths that must
    exist."""
    if spec.kind != "run":
        return spec

    def resolve(where: str, name: str, value):
        if name not in INPUT_PATH_KEYS:
            return value
        if name == "trace.jobs":
            if not isinstance(value, list):
                raise SpecError(spec.path, where, f"expected a list of trace files, got {value!r}")
            return [resolve(where, "trace.file", item) for item in value]
        if not isinstance(value, str):
            raise SpecError(spec.path, where, f"expected a file name, got {value!r}")
        if not value or (name == "trace.placement" and value in PLACEMENT_RULES):
            return value  # no trace (synthetic traffic), or a placement rule
        file = (spec.path.parent / value).resolve()
        if not file.is_file():
            kind = "placement file" if name == "trace.placement" else "trace"
            raise SpecError(spec.path, where, f"{kind} {str(file)!r} does not exist")
        return str(file)

    def resolve_table(place: str, table: dict) -> dict:
        return {name: resolve(f"{place}.{name}", name, value) for name, value in table.items()}

    grid = {name: [resolve(f"grid.{name}", name, value) for value in values] for name, values in spec.grid.items()}
    points = [resolve_table(f"points[{i}]", point) for i, point in enumerate(spec.points)]
    return Spec(path=spec.path, kind=spec.kind, config=spec.config, fixed=resolve_table("set", spec.fixed), grid=grid,
                points=points, seeds=spec.seeds, description=spec.description)


def _check_unique(spec: Spec) -> None:
    seen: dict[str, int] = {}
    grid_size = _grid_size(spec)
    for i, point in enumerate(spec.parameter_sets()):
        key = json.dumps(point, sort_keys=True)
        if key in seen:
            raise SpecError(spec.path, f"points[{i - grid_size}]",
                            f"repeats a point already in the sweep ({json.dumps(point, sort_keys=True)})")
        seen[key] = i
