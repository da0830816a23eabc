"""`ibsec.trace`: a trace's summary, as `ibsec trace info FILE --json` prints it (the engine reads the trace)."""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError


def info(path: str | Path) -> dict:
    """Processes, events, messages, bytes, peers, duration, message sizes and collectives of a trace file
    (text or binary, optionally .gz/.zst; docs/trace-format.md), or of another tool's trace (an OTF2 anchor, a
    DUMPI .meta file or its folder) through its import, made once into the cache. EngineError with the engine's
    message (file, line, field) for a trace it cannot read."""
    from ..engine.binary import engine_json

    if not Path(path).exists():
        raise ConfigError("trace", f"{str(path)!r} does not exist")
    return engine_json(["trace", "info", str(path), "--json"])


def import_trace(source: str | Path, out: str | Path | None = None) -> dict:
    """Writes another tool's trace (`source`: an OTF2 archive's anchor file, a DUMPI .meta file or its folder;
    docs/importing.md) as the ibsec trace `out` (.ibtb binary, else text; .gz/.zst compress), as `ibsec trace
    import` does, and returns `info(out)`: its header's notes say what was not imported or was repaired. Without
    `out`, into the cache, once, where `run(trace=source)` finds it; the summary then also gives the cached trace
    as "cached_trace". EngineError with the engine's message (the file, rank, event and field at fault) when the
    source cannot be imported."""
    from ..output.files import check_output_file
    from ..traces.imported import engine_import

    if not Path(source).exists():
        raise ConfigError("source", f"{str(source)!r} does not exist")
    if out is None:
        target = ["--cached"]
    else:
        check_output_file(out, "out")
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        target = ["--out", str(out)]
    printed = engine_import(source, *target)
    if out is not None:
        return info(out)
    return {**info(printed), "cached_trace": printed}
