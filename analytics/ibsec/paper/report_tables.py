"""The tables REPORT.md reads, each with where it came from (its .meta.json: when it was written, which engine).

A table the running engine did not make — another engine's digest, or none recorded — is read all the same
(REPORT.md can be written from committed tables without rerunning hours of simulation), but every row that
reads it is marked, and the list of tables says whose it is.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..input_files import InputError, read_input_text
from ..output.provenance import ENGINE, WRITTEN

# What a table's origin is, against the engine that runs now.
MADE_NOW = "made by this run"
SAME_ENGINE = "reused, made by the running engine"
NO_ENGINE = "reused, no engine made it (Python model)"
OTHER_ENGINE = "reused, made by ANOTHER engine"
UNRECORDED = "reused, engine NOT RECORDED"
FOREIGN = (OTHER_ENGINE, UNRECORDED)  # the origins whose rows are marked


@dataclass(frozen=True)
class Origin:
    """Where one table came from."""

    name: str
    written: str | None  # UTC, from the meta file; None: not recorded
    engine: str | None  # the engine's digest; None: no engine made it, or not recorded (see status)
    status: str

    @property
    def foreign(self) -> bool:
        return self.status in FOREIGN


def read_meta(path: Path) -> dict:
    """A table's .meta.json, {} when there is none or it cannot be read."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}


def origin(name: str, meta: dict, running_engine: str, since: str | None) -> Origin:
    """A table's origin from its meta file: made by this run (written at or after `since`, the run's start, UTC
    as the meta file writes it), or reused and by which engine."""
    engine = meta.get(ENGINE)
    written = meta.get(WRITTEN)
    if since is not None and written is not None and written >= since:
        status = MADE_NOW
    elif ENGINE not in meta:
        status = UNRECORDED
    elif engine is None:
        status = NO_ENGINE
    else:
        status = SAME_ENGINE if engine == running_engine else OTHER_ENGINE
    return Origin(name, written, engine, status)


class Tables:
    """The CSV tables of one output folder, read once each (None where a table is missing), and the origin of
    every table read."""

    def __init__(self, out: Path, running_engine: str = "", since: str | None = None):
        self.out = Path(out)
        self.running_engine = running_engine
        self.since = since  # when the run that reads them started: a table written since then is its own
        self._cache: dict[str, pd.DataFrame | None] = {}
        self.origins: dict[str, Origin] = {}
        self.read: set[str] = set()  # the tables found since the caller last emptied it

    def get(self, name: str) -> pd.DataFrame | None:
        if name not in self._cache:
            path = self.out / f"{name}.csv"
            self._cache[name] = read_table(path) if path.exists() else None
            if self._cache[name] is not None:
                meta = read_meta(self.out / f"{name}.meta.json")
                self.origins[name] = origin(name, meta, self.running_engine, self.since)
        if self._cache[name] is not None:
            self.read.add(name)
        return self._cache[name]

    def path(self, name: str) -> Path:
        return self.out / f"{name}.csv"

    def foreign(self, names: tuple[str, ...]) -> bool:
        """Whether any of these tables (as read) was not made by the running engine."""
        return any(self.origins[name].foreign for name in names if name in self.origins)


def read_table(path: Path) -> pd.DataFrame:
    """One table of the output folder, read through the bounded reader (a device or FIFO in its place is refused,
    not read); InputError naming the file when it is no CSV table."""
    text = read_input_text(path, "a table of the report", found_by_scan=True)
    try:
        return pd.read_csv(io.StringIO(text))
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise InputError(path, f"not a CSV table: {str(error).strip()}") from None
