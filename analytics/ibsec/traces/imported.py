"""Other tools' traces (OTF2, DUMPI) where an ibsec trace is expected: read through the import the engine makes once
into its cache (`ibsec-engine trace import SOURCE --cached`, docs/importing.md). Which names are such sources is the
engine's to say (`registries --json`, its import formats and their suffixes); a folder may hold a DUMPI run."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..engine.binary import engine_message, engine_path
from ..engine.registries import entries
from .reader import TraceError


def is_import_source(path: str | Path) -> bool:
    """True for another tool's trace: a name with the suffix of a format the engine imports (*.otf2, *.meta), or a
    folder (which may hold a DUMPI run: the engine says if it does not)."""
    path = Path(path)
    return path.is_dir() or path.suffix in {entry["suffix"] for entry in entries("import_formats")}


def cached_import(source: str | Path) -> Path:
    """The ibsec trace the engine imported `source` into, once, in its cache; TraceError with the engine's message
    (file, rank, event, field) when it cannot be imported."""
    done = subprocess.run([engine_path(), "trace", "import", str(source), "--cached"], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise TraceError.from_engine(source, engine_message(done.stderr, done.returncode))
    return Path(done.stdout.strip())
