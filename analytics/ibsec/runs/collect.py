"""`ibsec collect`: single-run result files (`ibsec run --out`, a sweep's runs/) flattened into one table.

One row per result file: the file, its warnings, every configuration key as a
`config.<section>.<key>` column, then every statistic and every scalar of
its other sections (the flat row of EngineRun.row, the row every ibsec
table starts from). The units and descriptions of the columns come from the
results' own `statistics_meta` and from the engine's parameter list, and go
to the table's meta file, so column names stay those of every other table.

Every file is read through the bounded reader (input_files.py) and its shape checked before a row is made of
it (`check_result`), so a file that is not what the engine writes is an error naming the file and the field,
never a traceback. A folder scan reads only regular files: a device, FIFO or socket named *.json (or a link to
one) cannot be a result the engine wrote, so it is skipped with a warning rather than stopping the gathering of
a sweep's results; so is a *.json the scan cannot read or parse. A named file is read whatever it is (bounded).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .. import user_json
from ..engine.point import ROW_SECTIONS, EngineRun, warning_kinds
from ..input_files import DEFAULT_MAX_BYTES, InputError, read_input_text

if TYPE_CHECKING:
    import pandas as pd

CONFIG_PREFIX = "config."
# Units and descriptions of the result's topology counts, as the engine writes them (sim/run_result.cpp).
TOPOLOGY_META_KEY = "topology_meta"
# Columns that are not statistics: where the row came from.
SOURCE_COLUMNS = {
    "result_file": {"unit": "path", "description": "the engine's result file"},
    "warnings": {"unit": "", "description": "the kinds of the result's warnings, joined by ';'"},
    "exit_code": {"unit": "", "description": "ibsec-engine's exit code: 0 ok, 3 did not drain"},
}
# A result with sim.detail on a 1024-node fat tree is a few MB; a file beyond this is no result.
MAX_RESULT_BYTES = DEFAULT_MAX_BYTES
# The engine's results nest a few levels (config sections, the histogram's buckets, sim.detail's tables).
MAX_RESULT_DEPTH = 32
# A result's row has a few hundred columns (statistics and config keys); 64 MiB of them would be millions, and
# a table of millions of columns would need gigabytes.
MAX_RESULT_COLUMNS = 10_000
WHAT = "an ibsec-engine result"


class NotAResult(InputError):
    """A file given to collect is not an engine result: `FILE[:LINE]: [FIELD: ]problem`."""


# ---- finding and reading the result files ------------------------------------

def result_documents(paths: list[str | Path]) -> list[tuple[Path, dict]]:
    """(file, its checked result) for the files named and the result files (*.json holding `statistics`) under
    each folder named, in order, each file once."""
    found: dict[Path, dict] = {}
    for given in paths:
        path = Path(given)
        if path.is_dir():
            inside = _results_in_folder(path)
            if not inside:
                raise NotAResult(given, "no engine result files (*.json with 'statistics') in this folder")
            for file, document in inside:
                found.setdefault(file, document)
        elif path not in found:
            found[path] = read_result(path)
    return list(found.items())


def _results_in_folder(folder: Path) -> list[tuple[Path, dict]]:
    results = []
    for path in sorted(folder.rglob("*.json")):
        if path.is_dir():
            continue
        try:
            document = parse_result(path, read_input_text(path, WHAT, MAX_RESULT_BYTES, found_by_scan=True))
        except InputError as error:
            print(f"ibsec: warning: {error}; skipped", file=sys.stderr)
            continue
        if _looks_like_result(document):  # other JSON (a sweep's meta file, ...) is not a result: left out
            results.append((path, check_result(path, document)))
    return results


def _looks_like_result(document) -> bool:
    return isinstance(document, dict) and isinstance(document.get("statistics"), dict)


def parse_result(path: Path, text: str):
    """The JSON document in `text` (read from `path`); NotAResult naming the file, line and column otherwise."""
    try:
        return user_json.loads(text)
    except json.JSONDecodeError as error:
        raise NotAResult(path, f"not valid JSON: {error.msg} (column {error.colno})", line=error.lineno) from None
    except user_json.DuplicateKeyError as error:
        raise NotAResult(path, str(error)) from None
    except RecursionError:
        raise NotAResult(path, "nested too deeply to be an engine result") from None
    except ValueError:  # the one other error of json.loads: a whole number of more digits than Python converts
        digits = getattr(sys, "get_int_max_str_digits", lambda: 4300)()
        raise NotAResult(path, f"a number of more than {digits} digits: not an engine result") from None


def read_result(path: Path) -> dict:
    """A result document, its shape checked, or NotAResult naming the file and what is wrong with it."""
    document = parse_result(path, read_input_text(path, WHAT, MAX_RESULT_BYTES))
    if not _looks_like_result(document):
        raise NotAResult(path, "not an ibsec-engine result (no 'statistics' object)")
    return check_result(path, document)


# ---- the shape of a result: what collect reads of it, checked before it reads it ----------------

def _json_kind(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def _require(path: Path, field: str, value, kind: str, nullable: bool = False):
    """`value` if it is of the JSON `kind` ('an object', 'a list', 'a string', 'a number', 'true or false'),
    or null when `nullable`; NotAResult naming the field otherwise (its kind, never its possibly huge text)."""
    if (value is None and nullable) or _json_kind(value) == kind:
        return value
    raise NotAResult(path, f"expected {kind}{' or null' if nullable else ''}, got {_json_kind(value)}",
                     field=field)


def _check_tree(path: Path, value, field: str, depth: int = 0) -> None:
    """Nested at most MAX_RESULT_DEPTH levels, and every key and string valid Unicode (JSON's \\ud800 escapes
    decode to lone surrogates, which no table can store)."""
    if depth > MAX_RESULT_DEPTH:
        raise NotAResult(path, f"nested more than {MAX_RESULT_DEPTH} levels deep", field=field or None)
    if isinstance(value, str):
        _check_unicode(path, value, field)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_unicode(path, key, f"{field}.{key}" if field else key)
            _check_tree(path, item, f"{field}.{key}" if field else key, depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_tree(path, item, f"{field}[{index}]", depth + 1)


def _check_unicode(path: Path, text: str, field: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise NotAResult(path, "a string that is not valid Unicode (a lone surrogate escape)",
                         field=field.encode("utf-8", "backslashreplace").decode("utf-8")) from None


def _check_units(path: Path, field: str, meta) -> None:
    """A units section (statistics_meta, topology_meta): an object of objects whose unit and description are
    strings."""
    for name, entry in _require(path, field, meta, "an object").items():
        for key, text in _require(path, f"{field}.{name}", entry, "an object").items():
            if key in ("unit", "description"):
                _require(path, f"{field}.{name}.{key}", text, "a string")


def check_result(path: Path, document: dict) -> dict:
    """`document` if it has the shape collect reads: NotAResult naming the file and the first field that does not
    (docs/running.md, "The result file")."""
    _check_tree(path, document, "")
    statistics = document["statistics"]
    for name, kind in (("drained", "true or false"), ("packets_measured", "a number")):
        if name in statistics:
            _require(path, f"statistics.{name}", statistics[name], kind)
    _check_units(path, "statistics.statistics_meta", statistics.get("statistics_meta", {}))
    for section in ("config", *ROW_SECTIONS):
        if section in document:
            _require(path, section, document[section], "an object")
    topology = document.get("topology", {})
    _check_units(path, f"topology.{TOPOLOGY_META_KEY}", topology.get(TOPOLOGY_META_KEY, {}))
    attack = _require(path, "attack", document.get("attack"), "an object", nullable=True) or {}
    for kind, counts in _require(path, "attack.kinds", attack.get("kinds", {}), "an object").items():
        _require(path, f"attack.kinds.{kind}", counts, "an object")
    for index, warning in enumerate(_require(path, "warnings", document.get("warnings", []), "a list")):
        field = f"warnings[{index}]"
        _require(path, f"{field}.kind", _require(path, field, warning, "an object").get("kind"), "a string")
    for name in ("ibsec_version", "systemc_version"):
        _require(path, name, document.get(name), "a string", nullable=True)
    flat_config(document.get("config", {}), path=path)  # two keys that would make one column
    return document


# ---- the table ----------------------------------------------------------------

def flat_config(config: dict, prefix: str = CONFIG_PREFIX, path: Path | None = None) -> dict:
    """{"nic": {"security": "SKC-6"}} -> {"config.nic.security": "SKC-6"}; lists stay values. Two keys that make
    one column ({"nic.security": ..} beside {"nic": {"security": ..}}) are refused (NotAResult naming `path`)."""
    flat = {}
    for key, value in config.items():
        inner = flat_config(value, f"{prefix}{key}.", path) if isinstance(value, dict) else {f"{prefix}{key}": value}
        for column, item in inner.items():
            if column in flat:
                raise NotAResult(path, "given twice (as a dotted key and nested)", field=column)
            flat[column] = item
    return flat


def result_row(path: Path, document: dict) -> dict:
    statistics = document["statistics"]
    exit_code = 0 if statistics.get("drained", True) else 3
    row = {"result_file": str(path), "warnings": warning_kinds(document)}
    row.update(flat_config(document.get("config", {}), path=path))
    engine_row = EngineRun(path, exit_code, document).row()
    engine_row.pop("result_file")
    row.update(engine_row)
    if len(row) > MAX_RESULT_COLUMNS:
        raise NotAResult(path, f"{len(row)} columns (statistics, config keys, ...); an engine result has at most "
                               f"{MAX_RESULT_COLUMNS}")
    return row


def column_meta(documents: list[dict], columns: list[str]) -> dict[str, dict]:
    """{column: {unit, description}} from the results' statistics_meta and the engine's parameters."""
    meta = dict(SOURCE_COLUMNS)
    for document in documents:
        for name, entry in document["statistics"].get("statistics_meta", {}).items():
            meta.setdefault(name, {"unit": entry.get("unit", ""), "description": entry.get("description", "")})
        # The topology's counts are columns topology_<name> (EngineRun.row); the engine describes them.
        for name, entry in document.get("topology", {}).get(TOPOLOGY_META_KEY, {}).items():
            meta.setdefault(f"topology_{name}",
                            {"unit": entry.get("unit", ""), "description": entry.get("description", "")})
    if any(column.startswith(CONFIG_PREFIX) for column in columns):
        from ..engine.binary import parameters

        for parameter in parameters():
            meta.setdefault(CONFIG_PREFIX + parameter["key"],
                            {"unit": parameter.get("unit", ""), "description": parameter.get("description", "")})
    return {column: meta[column] for column in columns if column in meta}


def results_table(results: list[tuple[Path, dict]]) -> tuple[pd.DataFrame, dict[str, dict]]:
    """(one row per result, {column: {unit, description}}) for checked (file, result) pairs."""
    import pandas as pd

    from ..output.tables import uniform_column

    records = [result_row(path, document) for path, document in results]
    columns = list(dict.fromkeys(name for record in records for name in record))
    table = pd.DataFrame({name: pd.array(uniform_column([r.get(name) for r in records])) for name in columns})
    return table, column_meta([document for _, document in results], columns)


def collect(paths: list[str | Path]) -> tuple[pd.DataFrame, dict[str, dict]]:
    """(one row per result file, {column: {unit, description}}) for the files and folders named."""
    return results_table(result_documents(paths))
