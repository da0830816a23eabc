"""Numbers as users give them, checked against their range: the one place ibsec parses a number.

A number arrives as command-line text, or as a JSON/TOML value of a sweep
spec or preset. Either way it goes through `whole_number` or `real_number`,
which refuse, with a ConfigError naming the field, anything outside the range
the field allows: negative counts (which the engine's unsigned options would
wrap to 2^64 - 1), NaN, infinities, values beyond 2^64 - 1, fractions where a
whole number is meant. `whole_option` and `real_option` are the same checks as
argparse types, so a bad option is refused by the parser, naming the option.

The kinds of argument the commands and the Python API share (`count`, `hit_rate`, `one_of`, ...) are checks
`check(value, field)`: a command's option is `as_option(check)`, the API calls `check(value, "name")` (or
`checked(arguments, checks)` over a table of them), so both refuse the same values with a ConfigError naming
the argument.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import TypeVar

from .errors import ConfigError

T = TypeVar("T")

# The largest value of the engine's unsigned 64-bit options (counts, seeds).
UINT64_MAX = 2**64 - 1


def _as_number(value, field: str) -> int | float:
    """An int or a float from a number or its text; bools and anything else are not numbers."""
    if isinstance(value, bool):
        raise ConfigError(field, f"expected a number, got {value!r}")
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text)  # exact for any size, where float() would round 2^64 to a neighbour
        except ValueError:
            pass
        try:
            return float(text)
        except ValueError:
            pass
    raise ConfigError(field, f"expected a number, got {value!r}")


def _finite(number: int | float, field: str, given) -> int | float:
    if isinstance(number, float) and not math.isfinite(number):
        raise ConfigError(field, f"expected a finite number, got {given!r}")
    return number


def whole_number(value, field: str, minimum: int = 0, maximum: int = UINT64_MAX) -> int:
    """value as an int in [minimum, maximum]; text or numbers, '4e6' and 4e6 included (a whole value)."""
    number = _finite(_as_number(value, field), field, value)
    if number < minimum:
        raise ConfigError(field, f"must be at least {minimum}, got {value!r}")
    if number > maximum:
        raise ConfigError(field, f"must be at most {maximum}, got {value!r}")
    if isinstance(number, float) and not number.is_integer():
        raise ConfigError(field, f"expected a whole number, got {value!r}")
    return int(number)


def real_number(value, field: str, minimum: float | None = None, maximum: float | None = None,
                above: float | None = None, below: float | None = None) -> float:
    """value as a finite float within the bounds given: minimum <= value <= maximum, above < value < below."""
    number = float(_finite(_as_number(value, field), field, value))
    if above is not None and not number > above:
        raise ConfigError(field, f"must be greater than {above:g}, got {value!r}")
    if below is not None and not number < below:
        raise ConfigError(field, f"must be less than {below:g}, got {value!r}")
    if minimum is not None and number < minimum:
        raise ConfigError(field, f"must be at least {minimum:g}, got {value!r}")
    if maximum is not None and number > maximum:
        raise ConfigError(field, f"must be at most {maximum:g}, got {value!r}")
    return number


def positive_real(value, field: str) -> float:
    """A finite number > 0 (durations, rates, clocks)."""
    return real_number(value, field, above=0.0)


def count(value, field: str) -> int:
    """A whole number >= 1: nodes, processes, workers, look-ups, bytes per entry."""
    return whole_number(value, field, minimum=1)


def whole(value, field: str) -> int:
    """A whole number >= 0: seeds, ways (0: fully associative)."""
    return whole_number(value, field, minimum=0)


def hit_rate(value, field: str) -> float:
    """A target hit rate, strictly between 0 and 1."""
    return real_number(value, field, above=0.0, below=1.0)


def non_negative_real(value, field: str) -> float:
    """A finite number >= 0 (an overhead in %)."""
    return real_number(value, field, minimum=0.0)


def optional(check: Callable[[object, str], T]) -> Callable[[object, str], T | None]:
    """`check`, with None standing for "not given"."""
    return lambda value, field: None if value is None else check(value, field)


def one_of(choices) -> Callable[[object, str], str]:
    """A check that the value is one of `choices` (names: placement, policy, family)."""

    def check(value, field: str) -> str:
        if not isinstance(value, str) or value not in choices:
            raise ConfigError(field, f"expected one of {', '.join(map(str, choices))}, got {value!r}")
        return value

    return check


def text(value, field: str) -> str:
    """A non-empty string (a preset's or machine's name)."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(field, f"expected a non-empty name, got {value!r}")
    return value


def checked(arguments: dict, checks: dict[str, Callable[[object, str], object]]) -> dict:
    """`arguments` with each one that has a check in `checks` checked (and converted), named by its key."""
    return {name: checks[name](value, name) if name in checks else value for name, value in arguments.items()}


def as_option(check: Callable[[str, str], T]) -> Callable[[str], T]:
    """An argparse type from a check(value, field): argparse names the option in the message and exits 2."""

    def parse(text: str) -> T:
        try:
            return check(text, "")
        except ConfigError as error:
            raise argparse.ArgumentTypeError(error.problem) from None

    return parse


def whole_option(minimum: int = 0, maximum: int = UINT64_MAX) -> Callable[[str], int]:
    """argparse type=: a whole number in [minimum, maximum]."""
    return as_option(lambda text, field: whole_number(text, field, minimum, maximum))


def real_option(minimum: float | None = None, maximum: float | None = None, above: float | None = None,
                below: float | None = None) -> Callable[[str], float]:
    """argparse type=: a finite number within the bounds (see real_number)."""
    return as_option(lambda text, field: real_number(text, field, minimum, maximum, above, below))


# The options many commands share.
count_option = as_option(count)  # --jobs, --workers, --accesses, --processes, ...
seed_option = as_option(whole)  # the engine's seeds are unsigned 64-bit
hit_rate_option = as_option(hit_rate)  # --target
positive_real_option = as_option(positive_real)  # durations, rates, clocks
