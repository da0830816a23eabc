"""One `ibsec-engine run` as every command makes it: an EnginePoint.

A point is a base config file, `--set` overrides (in order) and an attack
file, the three layers the engine reads. Its identity is everything that
decides its result, and nothing else:

- the digest of the engine binary, so a rebuilt engine runs every point again;
- the contents (not the paths) of the base config and the attack file;
- the overrides, with the input files they name replaced by their contents;
- the contents of every input file the run reads (the parameters the engine
  marks as input files: traces, a CACTI table) that the config or attack
  file names; another tool's trace by its import, which holds the digest of
  the source's every file.

A resumable store keys the point on its identity, and its result file is
named after it (LABEL_<16 hex digits>.json), so two points never share a
result file unless they would compute the same result. `run` runs the engine
into a folder; the result flattens to one row of numbers (`EngineRun.row`),
the row every table of ibsec starts from.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from . import binary
from .config import config_value, engine_config, parse_override, read_config
from .digests import file_digest, text_digest

# Statistics that mean nothing when no measured packet arrived (the engine writes null; an older one wrote 0).
LATENCY_STATISTICS = ["latency_mean_ns", "latency_min_ns", "latency_p50_ns", "latency_p95_ns", "latency_p99_ns",
                      "latency_max_ns"]
# Sections of a result whose scalars become `<section>_<name>` columns.
ROW_SECTIONS = ("topology", "replay", "scheduler")


def _content(path: str) -> str | None:
    """A file's digest, or None for a file that is not there (the engine then says what is wrong)."""
    try:
        return file_digest(path)
    except OSError:
        return None


def _input_content(path: str) -> str | None:
    """An input file's digest, as _content; another tool's trace (an OTF2 archive, a DUMPI run: several files)
    counts by its import, whose notes hold the digest of every file of the source."""
    from ..traces.imported import cached_import, is_import_source
    from ..traces.reader import TraceError

    if not is_import_source(path):
        return _content(path)
    try:
        return file_digest(cached_import(path))
    except (OSError, TraceError):
        return None


def _contents(value) -> str | list | None:
    """An input-file parameter's value with each file name replaced by its contents' digest ('' stays '')."""
    if isinstance(value, list):
        return [_contents(item) for item in value]
    if isinstance(value, str) and value:
        return _input_content(value)
    return value


@dataclass(frozen=True)
class EnginePoint:
    """One engine run: config file, overrides and attack file as given to `ibsec-engine run`.

    `label` starts the result file's name (e.g. 'load-0.3', 'cg', 'gang_SKC-10'); it is not part of the identity.
    """

    config: str | None = None
    overrides: tuple[str, ...] = ()
    attack: str | None = None
    label: str = field(default="", compare=False)

    def __post_init__(self):
        object.__setattr__(self, "overrides", tuple(self.overrides))
        if self.config is not None:
            object.__setattr__(self, "config", str(self.config))
        if self.attack is not None:
            object.__setattr__(self, "attack", str(self.attack))

    def arguments(self, out: Path) -> list[str]:
        """`ibsec-engine run ...` (without the binary), writing the result to `out`; a TOML or YAML config is given
        as its JSON twin beside `out`."""
        config = engine_config(self.config, Path(out).parent)
        return binary.run_arguments(config, list(self.overrides), out=out, quiet=True, attack=self.attack)

    @cached_property
    def identity(self) -> dict:
        """What the store keys the point on; computed once, where the point is made."""
        overrides = []
        overridden = set()
        input_keys = binary.input_file_keys()
        for text in self.overrides:
            key, value = parse_override(text)
            if key in input_keys:
                overridden.add(key)
                text = f"{key}={json.dumps(_contents(value))}"
            overrides.append(text)
        identity = {"engine": binary.engine_digest(),
                    "config": None if self.config is None else _content(self.config),
                    "overrides": overrides}
        if self.attack is not None:
            identity["attack"] = _content(self.attack)
        named = self._inputs_named_in_files(input_keys, overridden)
        if named:
            identity["inputs"] = named
        return identity

    def _inputs_named_in_files(self, input_keys: tuple[str, ...], overridden: set[str]) -> dict:
        """Digests of the input files the config and attack file name (the later layer wins), unless overridden."""
        inputs = {}
        for path in (self.config, self.attack):
            if path is None:
                continue
            layer = read_config(path)
            for key in input_keys:
                try:
                    value = config_value(layer, key)
                except KeyError:
                    continue
                if key not in overridden:
                    inputs[key] = _contents(value)
        return {key: value for key, value in inputs.items() if value not in ("", [], None)}

    @cached_property
    def key(self) -> str:
        """16 hex digits of the identity: names the result file."""
        return text_digest(json.dumps(self.identity, sort_keys=True))

    @property
    def result_name(self) -> str:
        return f"{self.label}_{self.key}.json" if self.label else f"{self.key}.json"

    def run(self, folder: Path) -> EngineRun:
        """Run the engine, its result written into `folder`; EngineError unless it exits 0 or 3 (not drained)."""
        folder = Path(folder)
        result_file = folder / self.result_name
        code, result = binary.run_to_result(self.arguments(result_file), result_file)
        return EngineRun(result_file, code, result)


def point_identity(point: EnginePoint) -> dict:
    """The store key of a point (run_points' `key`)."""
    return point.identity


def run_to_row(folder: str | Path, point: EnginePoint) -> dict:
    """Run a point into `folder` and return its flat row; module-level, so a Dask worker can be sent it."""
    return point.run(Path(folder)).row()


@dataclass(frozen=True)
class EngineRun:
    """A finished run: its result file, the engine's exit code (0, or 3: did not drain) and the result."""

    result_file: Path
    exit_code: int
    result: dict

    def value(self, *keys: str):
        """The result's value at a path of keys; EngineError naming the missing key and the file."""
        value = self.result
        for depth, key in enumerate(keys):
            if not isinstance(value, dict) or key not in value:
                raise binary.EngineError(f"{self.result_file}: the result has no '{'.'.join(keys[:depth + 1])}' "
                                         "(an older ibsec-engine?)")
            value = value[key]
        return value

    def row(self) -> dict:
        """Every flat number of the result: the statistics, then the scalars of its other sections, the attack
        counts, and where the row came from."""
        row = {name: value for name, value in self.value("statistics").items() if name != "statistics_meta"}
        if row.get("packets_measured", 1) == 0:
            # No measured packet arrived: there is no latency to report, whatever the engine wrote.
            row.update({name: None for name in LATENCY_STATISTICS if name in row})
        for section in ROW_SECTIONS:
            for name, value in self.result.get(section, {}).items():
                if not isinstance(value, (list, dict)):
                    row[f"{section}_{name}"] = value
        row.update(attack_columns(self.result))
        row["warnings"] = warning_kinds(self.result)
        row.update({"exit_code": self.exit_code, "result_file": str(self.result_file),
                    "ibsec_version": self.result.get("ibsec_version"),
                    "systemc_version": self.result.get("systemc_version")})
        return row


def warning_kinds(result: dict) -> str:
    """'saturated;few_packets': the kinds of the result's warnings (docs/running.md), '' when none."""
    return ";".join(warning["kind"] for warning in result.get("warnings", []))


def warnings_summary(column) -> str | None:
    """'3 of 8 points saturated, 1 few_packets': what a table's `warnings` column holds, None when nothing."""
    counts: dict[str, int] = {}
    cells = [cell for cell in column if isinstance(cell, str)]
    for cell in cells:
        for kind in filter(None, cell.split(";")):
            counts[kind] = counts.get(kind, 0) + 1
    if not counts:
        return None
    described = ", ".join(f"{count} {kind}" for kind, count in counts.items())
    return f"points with warnings (column `warnings`; docs/running.md) of {len(cells)}: {described}"


def attack_columns(result: dict) -> dict:
    """The result's `attack` section as flat columns (none without an attacker; docs/attacks.md):
    attack_link, attack_detected, ..., and attack_<kind>_attacked/detected/delivered per kind."""
    attack = result.get("attack")
    if not attack:
        return {}
    columns = {f"attack_{name}": value for name, value in attack.items() if not isinstance(value, (dict, list))}
    for kind, counts in attack.get("kinds", {}).items():
        columns.update({f"attack_{kind}_{name}": value for name, value in counts.items()})
    return columns
