"""Other tools' traces (OTF2, DUMPI) where an ibsec trace is expected: read through the import the engine makes once
into its cache (`ibsec-engine trace import SOURCE --cached`, docs/importing.md). Which names are such sources is the
engine's to say (`registries --json`, its import formats and their suffixes); a folder may hold a DUMPI run."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..engine.binary import EngineError, engine_message, engine_path, exit_code_of
from ..engine.registries import entries
from .reader import TraceError


def is_import_source(path: str | Path) -> bool:
    """True for another tool's trace: a name with the suffix of a format the engine imports (*.otf2, *.meta), or a
    folder (which may hold a DUMPI run: the engine says if it does not)."""
    path = Path(path)
    return path.is_dir() or path.suffix in {entry["suffix"] for entry in entries("import_formats")}


def engine_import(source: str | Path, *target: str) -> str:
    """Runs `ibsec-engine trace import SOURCE TARGET...` (`--out FILE` or `--cached`); what it prints. EngineError
    with the engine's message (the file, rank, event and field at fault) when the source cannot be imported."""
    done = subprocess.run([engine_path(), "trace", "import", str(source), *target], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise EngineError(engine_message(done.stderr, done.returncode), exit_code_of(done.returncode))
    return done.stdout.strip()


def cached_import(source: str | Path) -> Path:
    """The ibsec trace the engine imported `source` into, once, in its cache; TraceError with the engine's message
    (file, rank, event, field) when it cannot be imported."""
    try:
        return Path(engine_import(source, "--cached"))
    except EngineError as error:
        raise TraceError.from_engine(source, str(error)) from None
