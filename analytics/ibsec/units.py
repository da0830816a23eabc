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


# ---- times as a reader wants them printed: "3.71 s", not "3.71e+03 ms" ---------------------------------------

NS_PER = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}
# Largest first: a time is shown in the largest unit it reaches.
SHOWN_UNITS = (("s", 1e9), ("ms", 1e6), ("µs", 1e3), ("ns", 1.0))
TIME_SUFFIX = re.compile(r"_(ns|us|ms|s)$")
TITLE_UNIT = re.compile(r"\s*\((ns|us|µs|ms|s)\)$")


def human_time(value, unit: str = "ns") -> str:
    """A time in `unit` (ns, us, ms, s) with three significant digits in the unit that suits it: '6.75 µs',
    '3.71 s'; '-' for a missing value."""
    if value is None or (isinstance(value, float) and value != value):
        return "-"
    ns = float(value) * NS_PER[unit]
    for name, size in SHOWN_UNITS:
        if abs(ns) >= size or size == 1.0:
            return f"{ns / size:.3g} {name}"
    raise AssertionError("unreachable")


def table_text(table, title: str | None = None, index: bool = True) -> tuple[str | None, str]:
    """(title, text) of a table for the terminal: columns named *_ns, *_us, *_ms, *_s (or every cell, when the
    title ends with its unit, e.g. 'completion time (ms)') in human units, the unit dropped from the names;
    other numbers to 4 significant digits."""
    shown = table.copy()
    whole_unit = None
    if title is not None and (match := TITLE_UNIT.search(title)):
        whole_unit = "us" if match.group(1) == "µs" else match.group(1)
        title = title[:match.start()]
    renamed = {}
    for column in shown.columns:
        unit = whole_unit
        name = str(column)
        if unit is None and (match := TIME_SUFFIX.search(name)):
            unit = match.group(1)
            renamed[column] = name[:match.start()]
        if unit is not None and shown[column].dtype.kind in "fiu":
            shown[column] = [human_time(value, unit) for value in shown[column]]
    shown = shown.rename(columns=renamed)
    return title, shown.to_string(index=index, float_format=lambda v: f"{v:.4g}")
