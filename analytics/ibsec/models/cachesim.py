"""The synthetic ON/OFF cache simulation (§4.4), one point at a time, via ibsec-engine: one card's cache, or
several cards each with its own sessions and cache (`cards`, `card_sessions`; cachesim/multi_card.h)."""

from __future__ import annotations

import math
from pathlib import Path

from ..engine.binary import cachesim_parameters, engine_digest, run_engine
from ..engine.digests import file_digest
from ..errors import ConfigError
from ..numeric import positive_real, whole_number

# The parameters of a point, their defaults, units and command-line options are the engine's
# (`ibsec-engine params --command cachesim`): a point names only what it sets, and the engine fills in the rest.


def parameters() -> dict[str, dict]:
    """Every cachesim parameter by key, as the engine lists it (default, unit, description, option)."""
    return {p["key"]: p for p in cachesim_parameters()}


def default(name: str):
    """The engine's default of a cachesim parameter (None: it has none of its own, e.g. warmup, a tenth of
    accesses)."""
    return parameters()[name]["default"]


STATISTICS = ["hit_rate", "accesses", "hits", "misses", "evictions", "transitions"]
# Several cards: the spread of their hit rates (hit_rate is then all cards' look-ups pooled).
CARD_STATISTICS = ["card_hit_rate_mean", "card_hit_rate_min", "card_hit_rate_max"]

# The range of each numeric parameter, as the engine's options take them (its unsigned options would wrap a
# negative value to 2^64 - 1). The engine keeps each session's key in 32 bits.
NUMBERS = {
    "keys": lambda v, f: whole_number(v, f, minimum=1, maximum=2**32 - 1),
    "entries": lambda v, f: whole_number(v, f, minimum=1),
    "entry_bytes": lambda v, f: whole_number(v, f, minimum=1),
    "ways": lambda v, f: whole_number(v, f, minimum=0),
    "on_mean": positive_real,
    "off_mean": positive_real,
    "access_rate": positive_real,
    "accesses": lambda v, f: whole_number(v, f, minimum=1),
    "warmup": lambda v, f: whole_number(v, f, minimum=0),
    "seed": whole_number,
    "cards": lambda v, f: whole_number(v, f, minimum=1, maximum=2**32 - 1),
}

# The most generator events (look-ups and ON/OFF switches) one point may ask for: about 7 hours at the
# 4 x 10^7 events a second the engine walks on one core. The engine refuses too; this is the same bound
# checked before a point is sent to it.
MAX_EVENTS = 10**12


def expected_events(point: dict) -> float:
    """Look-ups plus ON/OFF switches the generator walks for a point (parameters checked).

    A session switches twice per ON/OFF cycle and is looked up on_mean x access_rate times per ON period,
    so each look-up comes with 2 / (on_mean x access_rate) switches on average (docs/markov-model.md): a
    tiny on_mean asks for work without end (on_mean 1e-300 ms: 10^300 switches for one look-up).
    """
    values = _with_period_means(_with_defaults(point))
    warmup = values["warmup"] if values["warmup"] is not None else values["accesses"] // 10
    switches_per_lookup = 2.0 / values["on_mean"] / values["access_rate"]  # inf, never an error, on overflow
    return (values["accesses"] + warmup) * (1.0 + switches_per_lookup)


def _defaults() -> dict:
    return {name: p["default"] for name, p in parameters().items()}


def _with_defaults(point: dict) -> dict:
    """The point's values over the engine's defaults; a value of None is unset (engine_arguments passes it on as
    no option), so the default stands for it."""
    return {**_defaults(), **{name: value for name, value in point.items() if value is not None}}


def _with_period_means(values: dict) -> dict:
    """on_mean / off_mean replaced by the means of the period laws that are given."""
    from .renewal import parse

    for which in ("on", "off"):
        if values.get(f"{which}_period") is not None:
            values[f"{which}_mean"] = parse(values[f"{which}_period"]).mean
    return values


def _about(count: float) -> str:
    return f"about {count:.3g}" if math.isfinite(count) else "more than 10^308"


def _work_field(point: dict, switches_per_lookup: float) -> str:
    """The parameter to blame for too much work: the look-ups, or the short ON periods' switches."""
    if switches_per_lookup <= 1:
        return "accesses"
    return "access_rate" if "access_rate" in point and "on_mean" not in point else "on_mean"


def check_point(point: dict) -> dict:
    """The point with every number in its range and its work bounded; ConfigError naming the parameter."""
    known = parameters()
    unknown = set(point) - set(known)
    if unknown:
        raise ConfigError(sorted(unknown)[0], f"not a cachesim parameter (known: {', '.join(known)})")
    for which in ("on", "off"):
        if point.get(f"{which}_period") is not None and point.get(f"{which}_mean") is not None:
            raise ConfigError(f"{which}_mean", f"give {which}_mean or {which}_period, not both")
    if point.get("card_sessions") is not None:
        for replaced in ("keys", "cards"):
            if point.get(replaced) is not None:
                raise ConfigError(replaced, f"give {replaced} or card_sessions (each card's sessions), not both")
    checked = {name: value if value is None or name not in NUMBERS else NUMBERS[name](value, name)
               for name, value in point.items()}
    events = expected_events(checked)
    if not events <= MAX_EVENTS:
        values = _with_period_means(_with_defaults(checked))
        switches_per_lookup = 2.0 / values["on_mean"] / values["access_rate"]
        raise ConfigError(_work_field(point, switches_per_lookup),
                          f"this point asks for {_about(events)} look-ups and ON/OFF switches (accesses "
                          f"{values['accesses']}, on_mean {values['on_mean']:g} ms, access_rate "
                          f"{values['access_rate']:g}/ms: 2/(on_mean x access_rate) = {switches_per_lookup:.3g} "
                          f"switches per look-up); at most {MAX_EVENTS:.0e} are run")
    return checked


def engine_arguments(point: dict) -> list[str]:
    """`ibsec-engine cachesim` with the parameters the point sets; the engine's defaults fill in the rest."""
    point = check_point(point)
    options = {name: p["option"] for name, p in parameters().items()}
    args = ["cachesim"]
    for name, value in point.items():
        if value is None or (name == "size" and point.get("entries") is not None):
            continue
        if name in ("on_mean", "off_mean") and point.get(name.replace("mean", "period")) is not None:
            continue
        if name == "keys" and point.get("card_sessions") is not None:
            continue
        args += [options[name], str(value)]
    return args


def run_point(point: dict) -> dict:
    """Run one point; return a flat row of its resolved config and statistics."""
    result = run_engine(engine_arguments(point))
    row = dict(result["config"])
    row.update({name: result[name] for name in STATISTICS})
    row.update({name: result[name] for name in CARD_STATISTICS if name in result})
    return row


def card_sessions_file(counts, path: Path) -> Path:
    """Write each card's session count (cards with none left out), one a line, as `card_sessions` reads them."""
    lines = [f"{int(count)}\n" for count in counts if int(count) > 0]
    if not lines:
        raise ConfigError("card_sessions", "no card has a session")
    path.write_text("".join(lines))
    return path


def identity(point: dict) -> dict:
    """What decides a point's result, as a resumable store keys it: the engine binary and the parameters (a
    card sessions file by its contents)."""
    if point.get("card_sessions") is not None:
        try:
            contents = file_digest(point["card_sessions"])
        except OSError:
            contents = None  # the engine says what is wrong with it
        point = {**point, "card_sessions": {"contents": contents}}
    return {"engine": engine_digest(), "cachesim": point}
