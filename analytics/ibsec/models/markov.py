"""The Markov ON/OFF model of cache capacity (paper §3.2).

n sessions each alternate between ON (rate mu of leaving, mean 1/mu) and OFF
(rate lambda of leaving, mean 1/lambda). The number of sessions ON is a
birth-death chain whose stationary law, Eq. (1)-(2), is binomial with success
probability q = lambda / (lambda + mu), the fraction of time one session is
ON. F_n(x) of Eq. (3) is that binomial's CDF at x: the probability that at
most x sessions are ON, which the paper uses as the hit-rate estimate of an
x-entry cache. Everything goes through scipy.stats.binom (regularised
incomplete beta), never factorial sums, so it stays exact and fast for
n up to 10^7 and beyond.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import binom

from ..errors import ConfigError
from ..numeric import positive_real, whole_number

# Capacities are searched up to this many sessions; beyond it the answer is
# reported as an error rather than a silently clipped number.
MAX_PROCESSES = 10**15


def on_probability(on_mean: float, off_mean: float) -> float:
    """q = lambda / (lambda + mu) = on_mean / (on_mean + off_mean)."""
    on = positive_real(on_mean, "on_mean")
    off = positive_real(off_mean, "off_mean")
    if math.isfinite(on + off):
        return on / (on + off)
    # Both near the largest float: their sum overflows (and q would read 0); scaled, the ratio is exact.
    larger = max(on, off)
    return (on / larger) / (on / larger + off / larger)


def state_probabilities(processes: int, on_mean: float, off_mean: float) -> np.ndarray:
    """P_0..P_n of Eq. (1)-(2): probability that exactly i sessions are ON."""
    n = whole_number(processes, "processes", minimum=1)
    return binom.pmf(np.arange(n + 1), n, on_probability(on_mean, off_mean))


def hit_rate_estimate(entries: int, processes: int, on_mean: float, off_mean: float) -> float:
    """F_n(x) of Eq. (3): probability that at most `entries` of `processes` sessions are ON."""
    x = whole_number(entries, "entries", minimum=1)
    n = whole_number(processes, "processes", minimum=1)
    if x >= n:
        return 1.0
    return float(binom.cdf(x, n, on_probability(on_mean, off_mean)))


def _check_target(target: float) -> float:
    try:
        p = float(target)
    except (TypeError, ValueError):
        raise ConfigError("target", f"expected a number, got {target!r}") from None
    if not 0.0 < p < 1.0:
        raise ConfigError("target", f"the target hit rate must lie strictly between 0 and 1, got {target!r}")
    return p


def capacity(entries: int, on_mean: float, off_mean: float, target: float) -> int:
    """Cache capacity: the largest n with F_n(entries) >= target.

    F_n(x) does not increase with n (more sessions make "at most x ON" less
    likely) and equals 1 for n <= x, so the answer is >= x and found by
    doubling an upper bound and bisecting.
    """
    x = whole_number(entries, "entries", minimum=1)
    q = on_probability(on_mean, off_mean)
    p = _check_target(target)

    def supported(n: int) -> bool:
        return n <= x or binom.cdf(x, n, q) >= p

    low, high = x, 2 * x
    while supported(high):
        low, high = high, 2 * high
        if high > MAX_PROCESSES:
            raise ConfigError(
                "target", f"capacity exceeds {MAX_PROCESSES:.0e} sessions (duty cycle {q:.3g} is too small to matter)"
            )
    while high - low > 1:
        mid = (low + high) // 2
        if supported(mid):
            low = mid
        else:
            high = mid
    return low


@dataclass(frozen=True)
class CapacityResult:
    entries: int
    on_mean: float
    off_mean: float
    target: float
    on_probability: float
    capacity: int
    hit_rate_at_capacity: float
    hit_rate_above_capacity: float

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def capacity_report(entries: int, on_mean: float, off_mean: float, target: float) -> CapacityResult:
    """capacity() with the F values either side of it, which show the answer is the boundary."""
    n = capacity(entries, on_mean, off_mean, target)
    return CapacityResult(
        entries=int(entries),
        on_mean=float(on_mean),
        off_mean=float(off_mean),
        target=float(target),
        on_probability=on_probability(on_mean, off_mean),
        capacity=n,
        hit_rate_at_capacity=hit_rate_estimate(entries, n, on_mean, off_mean),
        hit_rate_above_capacity=hit_rate_estimate(entries, n + 1, on_mean, off_mean),
    )

