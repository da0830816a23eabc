"""One varied parameter as users write it: NAME=START:STOP:STEP (inclusive) or NAME=V1,V2,..."""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import ConfigError


def _typed(text: str):
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def parse_sweep(spec: str) -> tuple[str, list]:
    """'keys=1000:10000:1000' (inclusive range) or 'ways=1,2,4,0' -> (name, values)."""
    name, sep, values = spec.partition("=")
    name = name.strip().replace("-", "_")
    if not sep or not name or not values.strip():
        raise ConfigError("sweep", f"expected NAME=START:STOP:STEP or NAME=V1,V2,..., got {spec!r}")
    if ":" in values:
        parts = [_typed(v) for v in values.split(":")]
        if len(parts) != 3 or not all(isinstance(v, (int, float)) for v in parts) or parts[2] <= 0:
            raise ConfigError("sweep", f"a range is START:STOP:STEP with a positive STEP, got {values!r}")
        start, stop, step = parts
        count = int((stop - start) / step + 1e-9) + 1
        if count < 1:
            raise ConfigError("sweep", f"empty range {values!r}")
        return name, [start + i * step for i in range(count)]
    return name, [_typed(v.strip()) for v in values.split(",") if v.strip()]


def expand(base: dict, name: str, values: Iterable) -> list[dict]:
    return [{**base, name: value} for value in values]
