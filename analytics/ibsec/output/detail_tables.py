"""The per-component tables of a run (sim.detail) as Parquet beside the engine's CSV.

The engine writes RESULT.links.csv, .switches.csv and .cards.csv and lists
them in the result's `detail` section with each column's unit and
description (docs/running.md). This module writes the same tables as
RESULT.<name>.parquet, the units and descriptions kept as each field's
metadata; it reads the CSV, so the engine stays the one writer of the values.
"""

from __future__ import annotations

import json
from pathlib import Path

from .files import write_output


def _integral_with_gaps(column) -> bool:
    """A column of whole numbers with empty cells (pandas reads it as float)."""
    values = column.dropna()
    return column.dtype.kind == "f" and column.isna().any() and bool((values == values.round()).all())


def read_detail_table(csv_path: str | Path):
    """One table as a DataFrame; whole-number columns with empty cells stay whole (nullable Int64)."""
    import pandas as pd

    frame = pd.read_csv(csv_path)
    for name in frame.columns:
        if _integral_with_gaps(frame[name]):
            frame[name] = frame[name].astype("Int64")
    return frame


def _with_column_metadata(frame, columns: dict):
    """An Arrow table of `frame` whose fields carry their unit and description."""
    import pyarrow as pa

    table = pa.Table.from_pandas(frame, preserve_index=False)
    fields = []
    for field in table.schema:
        about = columns.get(field.name, {})
        fields.append(field.with_metadata({"unit": about.get("unit", ""),
                                           "description": about.get("description", "")}))
    return table.cast(pa.schema(fields, metadata=table.schema.metadata))


def write_detail_parquet(result_path: str | Path) -> list[Path]:
    """Parquet beside every table the result at `result_path` lists; the files written (none without sim.detail)."""
    import pyarrow.parquet as pq

    result_path = Path(result_path)
    detail = json.loads(result_path.read_text()).get("detail", {})
    written = []
    for about in detail.values():
        csv_path = result_path.parent / about["file"]
        table = _with_column_metadata(read_detail_table(csv_path), about["columns"])
        written.append(write_output(csv_path.with_suffix(".parquet"), lambda tmp, t=table: pq.write_table(t, tmp)))
    return written
