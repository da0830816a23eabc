"""A configuration's fabric as the engine builds it (`ibsec-engine topology`), without running it: the topology's
counts, its switches, and its one-way links in the order a run's links table numbers them."""

from __future__ import annotations

import tempfile
from pathlib import Path


def describe_fabric(config: str | Path | None = None, overrides: list[str] | tuple[str, ...] = ()) -> dict:
    """{"topology": {...}, "switches": [...], "links": [...], "columns_meta": {...}} for a config file (JSON,
    TOML or YAML; a shipped config's name) with `overrides` ("key=value") over it. ConfigError or EngineError
    naming the file or key the engine refuses."""
    from ..shipped import resolve
    from .binary import engine_json
    from .config import check_config_file, engine_config, parse_override

    config = resolve("config", None if config is None else str(config), "config")
    if config is not None:
        check_config_file(config)
    arguments = []
    for text in overrides:
        parse_override(text)
        arguments += ["--set", text]
    with tempfile.TemporaryDirectory(prefix="ibsec-config-") as folder:  # a TOML or YAML config's JSON twin
        engine_file = engine_config(config, folder)
        return engine_json(["topology", *([engine_file] if engine_file else []), *arguments])
