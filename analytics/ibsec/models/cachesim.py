"""The synthetic ON/OFF cache simulation (§4.4), one point at a time, via ibsec-engine."""

from __future__ import annotations

from ..engine.binary import engine_digest, run_engine
from ..errors import ConfigError

# Parameters of one cachesim point, with their defaults. Times in ms.
DEFAULTS = {
    "keys": 1000,
    "size": "16KB",
    "entries": None,  # overrides size when set
    "entry_bytes": 16,
    "ways": 0,  # 0 = fully associative
    "policy": "lru",
    "on_mean": 1.0,
    "off_mean": 9.0,
    "access_rate": 100.0,
    "accesses": 4_000_000,
    "warmup": None,  # None: a tenth of accesses
    "seed": 1,
}

STATISTICS = ["hit_rate", "accesses", "hits", "misses", "evictions", "transitions"]


def engine_arguments(point: dict) -> list[str]:
    unknown = set(point) - set(DEFAULTS)
    if unknown:
        raise ConfigError(sorted(unknown)[0], f"not a cachesim parameter (known: {', '.join(DEFAULTS)})")
    args = ["cachesim"]
    for name, value in {**DEFAULTS, **point}.items():
        if value is None or (name == "size" and point.get("entries") is not None):
            continue
        args += [f"--{name.replace('_', '-')}", str(value)]
    return args


def run_point(point: dict) -> dict:
    """Run one point; return a flat row of its resolved config and statistics."""
    result = run_engine(engine_arguments(point))
    row = dict(result["config"])
    row.update({name: result[name] for name in STATISTICS})
    return row


def identity(point: dict) -> dict:
    """What decides a point's result, as a resumable store keys it: the engine binary and the parameters."""
    return {"engine": engine_digest(), "cachesim": point}
