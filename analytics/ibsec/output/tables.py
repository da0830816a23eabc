"""Tables as ibsec writes them: CSV (6 significant digits) or Parquet (exact), chosen by the file's suffix."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError
from .files import STDOUT, write_output

if TYPE_CHECKING:
    import pandas as pd

TABLE_SUFFIXES = (".csv", ".parquet")


def table_format(path: str | Path, option: str) -> str:
    """'.csv' or '.parquet' from a table's file name ('-': CSV on standard output); ConfigError naming `option`."""
    if str(path) == STDOUT:
        return ".csv"
    suffix = Path(path).suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise ConfigError(option, f"{str(path)!r}: a table is written as .csv or .parquet (give one of them)")
    return suffix


def _value_kind(value) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "text" if isinstance(value, str) else "json"


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _one_number_type(values: list) -> bool:
    """The numbers fit one column type: whole numbers all within int64, or all within uint64 and no fractions
    beside them (2^70, or 2^63 beside -1, would leave pandas and Parquet only Python objects, which they refuse)."""
    whole = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    if all(-2**63 <= v < 2**63 for v in whole):
        return True
    return all(0 <= v < 2**64 for v in whole) and len(whole) == sum(not _missing(v) for v in values)


def uniform_column(values: list) -> list:
    """A column Parquet can store: lists, tables, columns of mixed kinds and numbers no one number type holds
    become text (JSON)."""
    kinds = {_value_kind(v) for v in values if not _missing(v)}
    if len(kinds) <= 1 and "json" not in kinds and (kinds != {"number"} or _one_number_type(values)):
        return values
    return [None if _missing(v) else v if isinstance(v, str) else json.dumps(v) for v in values]


def parquet_ready(table: pd.DataFrame) -> pd.DataFrame:
    """The table with each column of mixed kinds (or of lists) as JSON text, which Parquet can store."""
    mixed = {name: uniform_column(list(table[name])) for name in table.columns if table[name].dtype == object}
    return table.assign(**mixed) if mixed else table


def write_table(table: pd.DataFrame, path: str | Path, option: str = "--out") -> Path:
    """Write `table` atomically as CSV or Parquet, by the suffix of `path`."""
    if table_format(path, option) == ".parquet":
        return write_output(path, lambda tmp: parquet_ready(table).to_parquet(tmp, index=False))
    return write_output(path, lambda tmp: table.to_csv(tmp, index=False, float_format="%.6g"))


def write_csv_and_parquet(table: pd.DataFrame, prefix: Path) -> list[Path]:
    """PREFIX.csv and PREFIX.parquet, the two forms of every table a command writes."""
    return [write_table(table, prefix.with_name(f"{prefix.name}{suffix}")) for suffix in TABLE_SUFFIXES]
