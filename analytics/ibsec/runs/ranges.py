"""One varied parameter as users write it: NAME=START:STOP:STEP (inclusive) or NAME=V1,V2,..."""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..errors import ConfigError
from ..numeric import real_number

# The most points one sweep may have. Each point is at least one engine run, so even this many take hours;
# a range with a step far too small (0.01:0.05:1e-12, 4 x 10^10 points) is refused before it is expanded,
# where it would fill the memory first.
MAX_POINTS = 100_000


def _typed(text: str):
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def check_point_count(count: float, what: str) -> None:
    """ConfigError naming the count unless `count` points fit in one sweep."""
    if not count <= MAX_POINTS:
        shown = f"{count:,.0f}" if count < 1e15 else f"about {count:.3g}" if math.isfinite(count) else \
            "more than 10^308"
        raise ConfigError("sweep", f"{what} has {shown} points; a sweep has at most {MAX_POINTS:,} "
                                   "(a larger step, or several sweeps)")


def range_values(values: str) -> list:
    """'START:STOP:STEP' -> START, START + STEP, ... up to STOP (inclusive); counted before it is expanded."""
    parts = [_typed(v.strip()) for v in values.split(":")]
    if len(parts) != 3 or not all(isinstance(v, (int, float)) for v in parts):
        raise ConfigError("sweep", f"a range is START:STOP:STEP with numbers, got {values!r}")
    start, stop = (real_number(v, "sweep") for v in parts[:2])
    step = real_number(parts[2], "sweep", above=0.0)
    steps = (stop - start) / step  # inf (never an error) when the step is tiny against the span
    if steps < -1e-9:
        raise ConfigError("sweep", f"empty range {values!r}: STOP is below START")
    check_point_count(math.floor(steps + 1e-9) + 1 if math.isfinite(steps) else math.inf, f"the range {values!r}")
    start, step = parts[0], parts[2]  # as written: an int range stays ints
    return [start + i * step for i in range(math.floor(steps + 1e-9) + 1)]


def parse_sweep(spec: str) -> tuple[str, list]:
    """'keys=1000:10000:1000' (inclusive range) or 'ways=1,2,4,0' -> (name, values)."""
    name, sep, values = spec.partition("=")
    name = name.strip().replace("-", "_")
    if not sep or not name or not values.strip():
        raise ConfigError("sweep", f"expected NAME=START:STOP:STEP or NAME=V1,V2,..., got {spec!r}")
    if ":" in values:
        return name, range_values(values)
    check_point_count(values.count(",") + 1, "the list")
    return name, [_typed(v.strip()) for v in values.split(",") if v.strip()]


def expand(base: dict, name: str, values: Iterable) -> list[dict]:
    return [{**base, name: value} for value in values]
