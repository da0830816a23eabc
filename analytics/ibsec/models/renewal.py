"""ON and OFF period distributions of one session, and what a cache sees of them.

A session alternates ON and OFF periods drawn independently from two
distributions (an alternating renewal process) and, while ON, is looked up
as a Poisson process of rate r. Four families are fitted to traces
(models/onoff_fit.py) and understood by `ibsec-engine cachesim --on-dist /
--off-dist`: exponential, lognormal, Weibull and a two-phase
hyperexponential; an empirical distribution (resampling measured periods) is
the fifth. Each is written as text the same way here and in the engine
(`spec()`): `exp:MEAN`, `lognormal:MU,SIGMA` (of the log of the length in
ms), `weibull:SHAPE,SCALE`, `hyperexp:P,MEAN1,MEAN2`, `empirical:FILE`.

`inter_lookup_samples` draws the time between consecutive look-ups of one
key as seen from a look-up (its Palm distribution), which is all the hit-rate
predictor (models/hitrate.py) needs from the traffic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats

from ..errors import ConfigError

KINDS = ("exp", "lognormal", "weibull", "hyperexp", "empirical")


@dataclass(frozen=True)
class Distribution:
    """A positive period length in ms. `params` by kind: exp (mean), lognormal (mu, sigma), weibull (shape,
    scale), hyperexp (p, mean1, mean2), empirical (the sorted sample itself)."""

    kind: str
    params: tuple[float, ...]
    source: str = ""  # empirical: the file the engine reads the sample from

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ConfigError("distribution", f"unknown kind {self.kind!r} (known: {', '.join(KINDS)})")
        positive = self.params[1:] if self.kind == "lognormal" else self.params  # mu, a mean log, may be <= 0
        if not self.params or not all(math.isfinite(v) for v in self.params) or not all(v > 0 for v in positive):
            raise ConfigError("distribution", f"{self.kind}: parameters must be finite and positive, got "
                                              f"{self.params[:4]}")
        if self.kind == "hyperexp" and not self.params[0] < 1:
            raise ConfigError("distribution", f"hyperexp: the first phase's probability must be below 1, "
                                              f"got {self.params[0]}")

    @property
    def mean(self) -> float:
        k, p = self.kind, self.params
        if k == "exp":
            return p[0]
        if k == "lognormal":
            return math.exp(p[0] + p[1] ** 2 / 2)
        if k == "weibull":
            return p[1] * math.gamma(1 + 1 / p[0])
        if k == "hyperexp":
            return p[0] * p[1] + (1 - p[0]) * p[2]
        return float(np.mean(p))

    @property
    def second_moment(self) -> float:
        """E[L^2]: with the mean, the mean residual life E[L^2] / (2 E[L]) seen from a random time."""
        k, p = self.kind, self.params
        if k == "exp":
            return 2 * p[0] ** 2
        if k == "lognormal":
            return math.exp(2 * p[0] + 2 * p[1] ** 2)
        if k == "weibull":
            return p[1] ** 2 * math.gamma(1 + 2 / p[0])
        if k == "hyperexp":
            return 2 * (p[0] * p[1] ** 2 + (1 - p[0]) * p[2] ** 2)
        return float(np.mean(np.square(p)))

    def cdf(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        k, p = self.kind, self.params
        if k == "exp":
            return -np.expm1(-x / p[0])
        if k == "lognormal":
            return stats.lognorm.cdf(x, p[1], scale=math.exp(p[0]))
        if k == "weibull":
            return -np.expm1(-((x / p[1]) ** p[0]))
        if k == "hyperexp":
            return 1 - p[0] * np.exp(-x / p[1]) - (1 - p[0]) * np.exp(-x / p[2])
        sample = np.asarray(p)
        return np.searchsorted(sample, x, side="right") / len(sample)

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        k, p = self.kind, self.params
        if k == "exp":
            return rng.exponential(p[0], size)
        if k == "lognormal":
            return rng.lognormal(p[0], p[1], size)
        if k == "weibull":
            return p[1] * rng.weibull(p[0], size)
        if k == "hyperexp":
            return rng.exponential(np.where(rng.random(size) < p[0], p[1], p[2]))
        return rng.choice(np.asarray(p), size)

    def residual_sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """The remaining length seen from a time-stationary point inside a period: U x (length-biased length)."""
        k, p = self.kind, self.params
        if k == "exp":
            return rng.exponential(p[0], size)
        if k == "lognormal":  # length-biased lognormal(mu, s) is lognormal(mu + s^2, s)
            biased = rng.lognormal(p[0] + p[1] ** 2, p[1], size)
        elif k == "weibull":  # (L/scale)^shape of the length-biased law is Gamma(1 + 1/shape)
            biased = p[1] * rng.gamma(1 + 1 / p[0], 1.0, size) ** (1 / p[0])
        elif k == "hyperexp":  # a phase chosen in proportion to p_i mean_i; its length-biased law is Gamma(2)
            first = rng.random(size) < p[0] * p[1] / (p[0] * p[1] + (1 - p[0]) * p[2])
            biased = rng.gamma(2.0, np.where(first, p[1], p[2]))
        else:
            sample = np.asarray(p)
            biased = rng.choice(sample, size, p=sample / sample.sum())
        return rng.random(size) * biased

    def spec(self) -> str:
        """The text `ibsec-engine cachesim --on-dist/--off-dist` reads."""
        if self.kind == "empirical":
            if not self.source:
                raise ConfigError("distribution", "an empirical distribution needs the file it was read from")
            return f"empirical:{self.source}"
        return f"{self.kind}:" + ",".join(repr(float(v)) for v in self.params)

    def as_dict(self) -> dict:
        if self.kind == "empirical":
            return {"kind": self.kind, "samples": len(self.params), "mean_ms": self.mean, "source": self.source}
        names = {"exp": ["mean"], "lognormal": ["mu", "sigma"], "weibull": ["shape", "scale"],
                 "hyperexp": ["p", "mean1", "mean2"]}[self.kind]
        return {"kind": self.kind, **dict(zip(names, self.params, strict=True)), "mean_ms": self.mean}


def exponential(mean: float) -> Distribution:
    return Distribution("exp", (float(mean),))


def empirical(path: str | Path) -> Distribution:
    """Period lengths in ms, one a line (`#` comments), as `ibsec analytic fit --periods` writes them."""
    path = Path(path)
    values = []
    try:
        lines = path.read_text().splitlines()
    except OSError as error:
        raise ConfigError("distribution", f"{path}: {error.strerror}") from None
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            value = float(text)
        except ValueError:
            raise ConfigError("distribution", f"{path}:{number}: expected a period length in ms, got "
                                              f"{text[:40]!r}") from None
        if not (math.isfinite(value) and value > 0):
            raise ConfigError("distribution", f"{path}:{number}: a period length must be positive, got {text!r}")
        values.append(value)
    if not values:
        raise ConfigError("distribution", f"{path}: no period lengths")
    return Distribution("empirical", tuple(sorted(values)), str(path))


def parse(text: str) -> Distribution:
    """A distribution from its spec() text."""
    kind, _, rest = text.partition(":")
    if kind == "empirical":
        return empirical(rest)
    try:
        params = tuple(float(v) for v in rest.split(","))
    except ValueError:
        raise ConfigError("distribution", f"{text!r}: expected KIND:NUMBER[,NUMBER...]") from None
    expected = {"exp": 1, "lognormal": 2, "weibull": 2, "hyperexp": 3}.get(kind)
    if expected is not None and len(params) != expected:
        raise ConfigError("distribution", f"{text!r}: {kind} takes {expected} parameter(s)")
    return Distribution(kind, params)


# ---- one key's look-ups ------------------------------------------------------------------------------

# Samples of the inter-look-up time: the predictor's error from sampling is below 0.3 percentage points.
INTER_LOOKUP_SAMPLES = 400_000
# Consecutive ON periods without a look-up: each is at most E[exp(-r L)] likely, so runs past this are
# vanishingly rare (and are cut there, which the hit rate cannot notice).
MAX_EMPTY_PERIODS = 10_000


def inter_lookup_samples(on: Distribution, off: Distribution, access_rate: float, samples: int = INTER_LOOKUP_SAMPLES,
                         seed: int = 1) -> np.ndarray:
    """Times (ms) from a look-up of a key to its next look-up, the look-up taken at random among all.

    Look-ups are Poisson (rate `access_rate` per ms) while ON, so a look-up sees its ON period at a
    time-stationary point: what is left of it is the ON law's residual. The next look-up comes after an
    Exp(r) time if that is shorter; otherwise the rest of the period, an OFF period, and the first look-up
    of the next ON periods (an ON period may pass with none).
    """
    rng = np.random.default_rng(seed)
    remaining = on.residual_sample(rng, samples)
    first = rng.exponential(1.0 / access_rate, samples)
    tau = np.where(first < remaining, first, remaining)
    waiting = np.flatnonzero(first >= remaining)
    for _ in range(MAX_EMPTY_PERIODS):
        if waiting.size == 0:
            break
        tau[waiting] += off.sample(rng, waiting.size)
        length = on.sample(rng, waiting.size)
        first = rng.exponential(1.0 / access_rate, waiting.size)
        found = first < length
        tau[waiting] += np.where(found, first, length)
        waiting = waiting[~found]
    return np.sort(tau)


def exponential_onoff_matrices(on_mean: float, off_mean: float, access_rate: float) -> tuple[np.ndarray, np.ndarray]:
    """Exponential ON/OFF makes one key's look-ups a Markov-modulated Poisson process on states (ON, OFF):
    A = Q - R (generator minus look-up rates) and the look-up rate vector R 1."""
    mu, lam = 1.0 / on_mean, 1.0 / off_mean
    a = np.array([[-mu - access_rate, mu], [lam, -lam]])
    return a, np.array([access_rate, 0.0])

