"""Where a table came from, as its .meta.json records it: when it was written and which engine made its numbers.

`ibsec reproduce` reads these fields back (paper/report_tables.py): REPORT.md names the engine of every table it
reads and marks a table that the running engine did not make.
"""

from __future__ import annotations

import datetime

# The .meta.json fields.
WRITTEN = "written_utc"  # when the table was written, ISO 8601 in UTC
ENGINE = "engine_digest"  # the digest of the engine binary whose runs the table holds; null: no engine made it


def written_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def provenance(engine_made: bool = True) -> dict:
    """The meta fields of a table written now: `engine_made` for the numbers of engine runs (the engine that runs
    now made them, as every point's identity holds its digest), False for a table computed in Python alone."""
    from ..engine.binary import engine_digest

    return {WRITTEN: written_now(), ENGINE: engine_digest() if engine_made else None}
