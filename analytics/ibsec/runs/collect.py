"""`ibsec collect`: single-run result files (`ibsec run --out`, a sweep's runs/) flattened into one table.

One row per result file: the file, its warnings, every configuration key as a
`config.<section>.<key>` column, then every statistic and every scalar of
its other sections (the flat row of EngineRun.row, the row every ibsec
table starts from). The units and descriptions of the columns come from the
results' own `statistics_meta` and from the engine's parameter list, and go
to the table's meta file, so column names stay those of every other table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.point import EngineRun
from ..errors import IbsecError

if TYPE_CHECKING:
    import pandas as pd

CONFIG_PREFIX = "config."
# Columns that are not statistics: where the row came from.
SOURCE_COLUMNS = {
    "result_file": {"unit": "path", "description": "the engine's result file"},
    "warnings": {"unit": "", "description": "the result's warnings, joined by '; '"},
    "exit_code": {"unit": "", "description": "ibsec-engine's exit code: 0 ok, 3 did not drain"},
}


class NotAResult(IbsecError):
    """A file given to collect is not an engine result."""


def result_files(paths: list[str | Path]) -> list[Path]:
    """The files named, and the result files (*.json holding `statistics`) under each folder named, in order."""
    found = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            inside = [p for p in sorted(path.rglob("*.json")) if _is_result(p)]
            if not inside:
                raise NotAResult(f"{given}: no engine result files (*.json with 'statistics') in this folder")
            found += inside
        elif path.is_file():
            found.append(path)
        else:
            raise NotAResult(f"{given}: no such file or folder")
    return list(dict.fromkeys(found))


def _is_result(path: Path) -> bool:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return False
    return isinstance(document, dict) and isinstance(document.get("statistics"), dict)


def read_result(path: Path) -> dict:
    """A result document, or NotAResult naming the file and what is wrong with it."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as error:
        raise NotAResult(f"{path}: not UTF-8 text ({error})") from None
    except json.JSONDecodeError as error:
        raise NotAResult(f"{path}: not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}") from None
    except RecursionError:
        raise NotAResult(f"{path}: nested too deeply to be an engine result") from None
    if not isinstance(document, dict) or not isinstance(document.get("statistics"), dict):
        raise NotAResult(f"{path}: not an ibsec-engine result (no 'statistics' object)")
    return document


def flat_config(config: dict, prefix: str = CONFIG_PREFIX) -> dict:
    """{"nic": {"security": "SKC-6"}} -> {"config.nic.security": "SKC-6"}; lists stay values."""
    flat = {}
    for key, value in config.items():
        if isinstance(value, dict):
            flat.update(flat_config(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def result_row(path: Path, document: dict) -> dict:
    statistics = document["statistics"]
    exit_code = 0 if statistics.get("drained", True) else 3
    row = {"result_file": str(path), "warnings": "; ".join(str(w) for w in document.get("warnings", []))}
    row.update(flat_config(document.get("config", {})))
    engine_row = EngineRun(path, exit_code, document).row()
    engine_row.pop("result_file")
    row.update(engine_row)
    return row


def column_meta(documents: list[dict], columns: list[str]) -> dict[str, dict]:
    """{column: {unit, description}} from the results' statistics_meta and the engine's parameters."""
    meta = dict(SOURCE_COLUMNS)
    for document in documents:
        for name, entry in document["statistics"].get("statistics_meta", {}).items():
            meta.setdefault(name, {"unit": entry.get("unit", ""), "description": entry.get("description", "")})
    if any(column.startswith(CONFIG_PREFIX) for column in columns):
        from ..engine.binary import parameters

        for parameter in parameters():
            meta.setdefault(CONFIG_PREFIX + parameter["key"],
                            {"unit": parameter.get("unit", ""), "description": parameter.get("description", "")})
    return {column: meta[column] for column in columns if column in meta}


def collect(paths: list[str | Path]) -> tuple[pd.DataFrame, dict[str, dict]]:
    """(one row per result file, {column: {unit, description}}) for the files and folders named."""
    import pandas as pd

    from ..output.tables import uniform_column

    files = result_files(paths)
    documents = [read_result(path) for path in files]
    records = [result_row(path, document) for path, document in zip(files, documents, strict=True)]
    columns = list(dict.fromkeys(name for record in records for name in record))
    table = pd.DataFrame({name: pd.array(uniform_column([r.get(name) for r in records])) for name in columns})
    return table, column_meta(documents, columns)
