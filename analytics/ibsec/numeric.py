"""Numbers as users give them, checked against their range: the one place ibsec parses a number.

A number arrives as command-line text, or as a JSON/TOML value of a sweep
spec or preset. Either way it goes through `whole_number` or `real_number`,
which refuse, with a ConfigError naming the field, anything outside the range
the field allows: negative counts (which the engine's unsigned options would
wrap to 2^64 - 1), NaN, infinities, values beyond 2^64 - 1, fractions where a
whole number is meant. `whole_option` and `real_option` are the same checks as
argparse types, so a bad option is refused by the parser, naming the option.
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
count_option = whole_option(minimum=1)  # --jobs, --workers, --accesses, --processes, ...
seed_option = whole_option(minimum=0)  # the engine's seeds are unsigned 64-bit
positive_real_option = as_option(positive_real)  # durations, rates, clocks
