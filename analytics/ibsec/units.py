"""Sizes as users write them: '2KB', '16KB', '512B'."""

from __future__ import annotations

import re

from .errors import ConfigError

SIZE_UNITS = {"": 1, "B": 1, "K": 1024, "KB": 1024, "KIB": 1024, "M": 1 << 20, "MB": 1 << 20, "MIB": 1 << 20}


def parse_size(text: str, field: str = "size") -> int:
    """'2KB' -> 2048 bytes (KB = 1024 B, as cache sizes are quoted)."""
    match = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", str(text))
    if not match or match.group(2).upper() not in SIZE_UNITS:
        raise ConfigError(field, f"{text!r} is not a size (expected e.g. 2KB, 16KB, 512B)")
    size = int(match.group(1)) * SIZE_UNITS[match.group(2).upper()]
    if size <= 0:
        raise ConfigError(field, f"size must be positive, got {text!r}")
    return size
