"""`ibsec.trace`: a trace's summary, as `ibsec trace info FILE --json` prints it (the engine reads the trace)."""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError


def info(path: str | Path) -> dict:
    """Processes, events, messages, bytes, peers, duration, message sizes and collectives of a trace file
    (text or binary, optionally .gz/.zst; docs/trace-format.md). EngineError with the engine's message (file,
    line, field) for a trace it cannot read."""
    from ..engine.binary import engine_json

    if not Path(path).is_file():
        raise ConfigError("trace", f"{str(path)!r} does not exist or is not a file")
    return engine_json(["trace", "info", str(path), "--json"])
