"""The hit rate of a key cache under ON/OFF session traffic: a characteristic-time predictor.

F_n(x) of the Markov model (models/markov.py) is the probability that all ON
sessions fit, not a hit rate (docs/markov-model.md). This module predicts the
hit rate itself, for a fully associative cache of `entries` keys, with the
characteristic-time approximation of Che, Tung and Wang (2002), in the form
Fricker, Robert and Roberts (2012) and Martina, Garetto and Leonardi (2014)
give it for renewal and ON/OFF request processes:

- **LRU.** A key is cached iff it was looked up within the last T_C. With
  tau the time between consecutive look-ups of one key (seen from a look-up)
  and Lambda its look-up rate, the probability that a key was looked up in
  a window of length T is Lambda E[min(tau, T)] (Palm inversion), so T_C
  solves  sum over keys of Lambda E[min(tau, T_C)] = entries, and a look-up
  hits iff tau <= T_C: hit = P(tau <= T_C), averaged over keys by their
  look-up rates.
- **Random.** A key stays for an exponential time of mean T_C after its
  last look-up unless looked up again: occupancy Lambda T_C (1 - phi(1/T_C)),
  hit = phi(1/T_C), with phi the Laplace transform of tau.
- **FIFO.** A key inserted at a miss stays exactly T_C whatever its hits:
  with M(T) the expected look-ups in (0, T] after the inserting one, a key
  has 1 miss and M(T_C) hits per stay, so hit = M / (1 + M) and occupancy
  Lambda T_C / (1 + M) (Martina, Garetto and Leonardi 2014). Under the
  independent reference model (M = lambda T) FIFO and random coincide
  (Gelenbe 1973).

For exponential ON/OFF, tau is the first-passage time of a two-state
Markov-modulated Poisson process and everything has a closed form in a
2x2 matrix exponential; for other ON/OFF laws tau is sampled
(models/renewal.py). FIFO is predicted for exponential ON/OFF only: there a
look-up always finds its session ON with a memoryless rest of the period,
so the look-ups of a key are a renewal process and M is the same after a
miss as after any look-up; with other laws a miss (most often the first
look-up of an ON period) sees a different rest of its period than a look-up
taken at random, and M has no closed form.

A `ways`-way set-associative cache (Fig. 9) is predicted set by set: key k
goes to set k mod sets as in the card (nic/key_cache.h), so the sets hold
floor or ceil of n / sets keys, and each is a `ways`-entry cache of its own
keys under the same law: LRU with any number of ways (the stack-depth law
is exact however few keys a set holds), random under exponential ON/OFF
with any (random_cache_chain, exact for small caches), FIFO with one way
(the same cache as LRU's); with 2 or more ways FIFO's characteristic-time
approximation misses by up to 30 points on the ten keys a set holds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse.linalg  # noqa: F401  (sparse.linalg)
from scipy import linalg, optimize, sparse
from scipy.stats import binom

from ..errors import ConfigError
from ..numeric import positive_real, whole_number
from . import renewal
from .names import PREDICTOR_POLICIES as POLICIES
from .renewal import Distribution

# Random replacement under exponential ON/OFF is solved exactly (random_cache_chain) up to this many states (a
# sparse solve of about a second at most); bigger caches use the characteristic time, accurate there.
MAX_CHAIN_STATES = 10_000


@dataclass(frozen=True)
class SessionGroup:
    """`sessions` keys whose ON/OFF laws and look-up rate (per ms while ON) are the same."""

    sessions: int
    on: Distribution
    off: Distribution
    access_rate: float

    @property
    def duty_cycle(self) -> float:
        return self.on.mean / (self.on.mean + self.off.mean)

    @property
    def lookup_rate(self) -> float:
        """Lambda: look-ups per ms of one key, averaged over time."""
        return self.access_rate * self.duty_cycle


class _ExponentialKey:
    """tau of a key with exponential ON and OFF: P(tau > s) = e_ON exp(A s) 1, closed forms throughout."""

    def __init__(self, group: SessionGroup):
        self.a, self.rates = renewal.exponential_onoff_matrices(group.on.mean, group.off.mean, group.access_rate)
        self.a_inverse = np.linalg.inv(self.a)

    def survival_integral(self, t: float) -> float:
        """E[min(tau, t)] = integral over [0, t] of P(tau > s) = e_ON A^-1 (exp(A t) - I) 1."""
        return float((self.a_inverse @ (linalg.expm(self.a * t) - np.eye(2)) @ np.ones(2))[0])

    def cdf(self, t: float) -> float:
        return float(1.0 - (linalg.expm(self.a * t) @ np.ones(2))[0])

    def laplace(self, s: float) -> float:
        return float(np.linalg.solve(s * np.eye(2) - self.a, self.rates)[0])

    def lookups_within(self, t: float) -> float:
        """M(t): expected look-ups in (0, t] after a look-up, r times the expected ON time in (0, t] from ON:
        P(ON at s | ON at 0) = q + (1 - q) exp(-(mu + lambda) s), q the duty cycle."""
        r, mu, lam = self.rates[0], -self.a[0, 0] - self.rates[0], self.a[1, 0]
        q, k = lam / (mu + lam), mu + lam
        return float(r * (q * t + (1 - q) * -math.expm1(-k * t) / k))

    def expect_over_tau(self, f) -> float:
        """E[f(tau)] for a decreasing f on [0, inf), by the increments of P(tau <= s) on a fine log grid
        (A = V diag(nu) V^-1, so exp(A s) is two exponentials)."""
        nu, v = np.linalg.eig(self.a)
        nu, v = nu.real, v.real
        weights = (v[0, :] * (np.linalg.inv(v) @ np.ones(2)))  # P(tau > s) = sum_i weights_i exp(nu_i s)
        slowest = 1.0 / np.min(np.abs(nu))
        grid = np.concatenate([[0.0], np.geomspace(1e-9 * slowest, 60 * slowest, 40_000)])
        survival = np.exp(np.outer(grid, nu)) @ weights
        mass = -np.diff(survival)
        middle = (grid[1:] + grid[:-1]) / 2
        return float(np.sum(mass * f(middle)) + survival[-1] * f(grid[-1:])[0])

    def survival_integrals(self, t: np.ndarray) -> np.ndarray:
        nu, v = np.linalg.eig(self.a)
        nu, v = nu.real, v.real
        weights = (v[0, :] * (np.linalg.inv(v) @ np.ones(2)))
        return (np.expm1(np.outer(t, nu)) / nu) @ weights


class _SampledKey:
    """tau from samples (models/renewal.inter_lookup_samples), for any ON/OFF laws."""

    def __init__(self, group: SessionGroup, seed: int):
        self.tau = renewal.inter_lookup_samples(group.on, group.off, group.access_rate, seed=seed)
        self.partial_sums = np.concatenate([[0.0], np.cumsum(self.tau)])

    def survival_integral(self, t: float) -> float:
        below = int(np.searchsorted(self.tau, t, side="right"))
        return float((self.partial_sums[below] + t * (len(self.tau) - below)) / len(self.tau))

    def cdf(self, t: float) -> float:
        return float(np.searchsorted(self.tau, t, side="right") / len(self.tau))

    def laplace(self, s: float) -> float:
        return float(np.mean(np.exp(-s * self.tau)))

    def expect_over_tau(self, f) -> float:
        return float(np.mean(f(self.tau)))

    def survival_integrals(self, t: np.ndarray) -> np.ndarray:
        below = np.searchsorted(self.tau, t, side="right")
        return (self.partial_sums[below] + t * (len(self.tau) - below)) / len(self.tau)


def _key_model(group: SessionGroup, seed: int, policy: str):
    exponential = group.on.kind == "exp" and group.off.kind == "exp"
    if policy == "fifo" and not exponential:
        raise ConfigError("policy", "FIFO is predicted for exponential ON and OFF periods only, where a key's "
                                    "look-ups are a renewal process (docs/markov-model.md); these sessions have "
                                    f"{group.on.kind} ON and {group.off.kind} OFF periods")
    if exponential:
        return _ExponentialKey(group)
    return _SampledKey(group, seed)


@dataclass(frozen=True)
class Prediction:
    policy: str
    entries: int
    sessions: int
    hit_rate: float
    characteristic_time_ms: float  # inf: every key fits; nan: an exact law without one; sets: the most loaded
    ways: int = 0  # 0: fully associative

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def _check(entries: int, groups: list[SessionGroup], policy: str) -> int:
    if policy not in POLICIES:
        raise ConfigError("policy", f"the predictor covers {', '.join(POLICIES)}, not {policy!r} "
                                    "(docs/markov-model.md)")
    if not groups:
        raise ConfigError("sessions", "at least one group of sessions is needed")
    for group in groups:
        whole_number(group.sessions, "sessions", minimum=1)
        positive_real(group.access_rate, "access_rate")
    return whole_number(entries, "entries", minimum=1)


def set_loads(sessions: int, sets: int) -> list[tuple[int, int]]:
    """(keys in a set, sets with that many) as cachesim maps keys: session k to set k mod sets (nic/key_cache.h),
    so the loads differ by at most one."""
    base, extra = divmod(sessions, sets)
    return [(load, count) for load, count in ((base + 1, extra), (base, sets - extra)) if count > 0]


class Predictor:
    """The predictor for one set of session groups, at any cache size (the keys' tau laws are built once)."""

    def __init__(self, groups: list[SessionGroup], policy: str = "lru", seed: int = 1):
        _check(1, groups, policy)
        self.groups, self.policy = groups, policy
        self.sessions = sum(g.sessions for g in groups)
        self.keys = [_key_model(g, seed + i, policy) for i, g in enumerate(groups)]
        self.weights = np.array([g.sessions * g.lookup_rate for g in groups])

    def occupancy(self, t: float, weights: np.ndarray | None = None) -> float:
        """Expected keys cached at characteristic time t (`weights`: each group's sessions x look-up rate)."""
        pairs = zip(self.weights if weights is None else weights, self.keys, strict=True)
        if self.policy == "lru":
            return sum(w * k.survival_integral(t) for w, k in pairs)
        if self.policy == "fifo":
            return sum(w * t / (1.0 + k.lookups_within(t)) for w, k in pairs)
        return sum(w * t * (1.0 - k.laplace(1.0 / t)) for w, k in pairs)

    def hit_at(self, t: float, weights: np.ndarray | None = None) -> float:
        weights = self.weights if weights is None else weights
        pairs = zip(weights, self.keys, strict=True)
        if self.policy == "lru":
            hits = sum(w * k.cdf(t) for w, k in pairs)
        elif self.policy == "fifo":
            hits = sum(w * (m := k.lookups_within(t)) / (1.0 + m) for w, k in pairs)
        else:
            hits = sum(w * k.laplace(1.0 / t) for w, k in pairs)
        return float(hits / weights.sum())

    def predict(self, entries: int, ways: int = 0) -> Prediction:
        """Fully associative (`ways` 0 or `entries`) or `ways`-way set-associative with entries / ways sets."""
        x = whole_number(entries, "entries", minimum=1)
        ways = whole_number(ways, "ways", minimum=0)
        if ways in (0, x):
            hit, characteristic = self._fully_associative(x, self.sessions)
            return Prediction(self.policy, x, self.sessions, hit, characteristic)
        if ways > x or x % ways:
            raise ConfigError("ways", f"{entries} entries cannot be split into sets of {ways} ways")
        if len(self.groups) > 1:
            raise ConfigError("ways", "a set-associative cache is predicted for one group of sessions only")
        exponential = isinstance(self.keys[0], _ExponentialKey)
        if ways > 1 and not (self.policy == "lru" or (self.policy == "random" and exponential)):
            raise ConfigError("ways", f"a set-associative {self.policy} cache with more than one way is predicted "
                                      "for LRU, and for random under exponential ON/OFF; with this policy and law "
                                      "the few keys per set defeat the characteristic-time approximation "
                                      "(docs/markov-model.md)")
        return self._set_associative(x, ways)

    def _fully_associative(self, entries: int, sessions: int) -> tuple[float, float]:
        """(hit rate, characteristic time) of `entries` entries shared by `sessions` keys (one group when
        `sessions` differs from the groups' own total)."""
        if sessions <= entries:  # every key fits: after the first look-up of each, nothing misses
            return 1.0, math.inf
        if (self.policy == "random" and len(self.groups) == 1 and isinstance(self.keys[0], _ExponentialKey)
                and (entries + 1) * (sessions - entries + 1) <= MAX_CHAIN_STATES):
            group = self.groups[0]
            return random_cache_chain(entries, sessions, group.on.mean, group.off.mean, group.access_rate), math.nan
        weights = self.weights * (sessions / self.sessions)
        characteristic = _solve_characteristic_time(lambda t: self.occupancy(t, weights), entries,
                                                     1.0 / weights.sum())
        if self.policy == "lru" and len(self.groups) == 1:
            return self.lru_stack_depth(entries, sessions), characteristic
        return self.hit_at(characteristic, weights), characteristic

    def _set_associative(self, entries: int, ways: int) -> Prediction:
        """Each set is a cache of `ways` entries over the keys mapped to it (set_loads), independent of the
        others; a set's hit rate weighs by its share of the look-ups (its keys: every key has the same rate)."""
        sets = [(load, count, *self._one_set(ways, load)) for load, count in
                set_loads(self.sessions, entries // ways)]  # the most loaded set first
        hits = sum(hit * load * count for load, count, hit, _ in sets)
        return Prediction(self.policy, entries, self.sessions, hits / self.sessions, sets[0][3], ways)

    def _one_set(self, ways: int, load: int) -> tuple[float, float]:
        """(hit rate, characteristic time) of one set of `ways` entries holding `load` keys. A one-way set evicts
        its only key on every miss under any policy, so it is the LRU stack-depth law with one entry."""
        if ways == 1 and load > 1:
            return self.lru_stack_depth(1, load), math.nan
        return self._fully_associative(ways, load)

    def lru_stack_depth(self, entries: int, sessions: int | None = None) -> float:
        """LRU hit rate from the stack depth: a look-up hits iff fewer than `entries` other keys were looked up
        since its key's previous look-up tau ago. The other n - 1 keys are independent and stationary, each
        looked up in a window of length s with probability g(s) = Lambda E[min(tau, s)], so the count is
        binomial(n - 1, g(tau)) and hit = E[P(binomial(n - 1, g(tau)) <= entries - 1)]. Exact for independent
        sessions; Che's approximation replaces the binomial by its mean. `sessions`: n, the group's own by
        default."""
        group, key = self.groups[0], self.keys[0]
        others = (group.sessions if sessions is None else sessions) - 1

        def hits(s: np.ndarray) -> np.ndarray:
            seen = np.clip(group.lookup_rate * key.survival_integrals(s), 0.0, 1.0)
            return binom.cdf(entries - 1, others, seen)

        return key.expect_over_tau(hits)


def random_cache_chain(entries: int, keys: int, on_mean: float, off_mean: float, access_rate: float) -> float:
    """Exact hit rate of a random-replacement cache of `entries` < `keys` entries under exponential ON/OFF.

    Random eviction treats the cached keys alike, so the counts a (ON and cached) and c (ON, not cached) are a
    Markov chain once the cache is full (b = entries - a OFF cached, d = keys - entries - c OFF elsewhere):
    a -> a - 1 at a mu, a + 1 at b lambda, c -> c - 1 at c mu, c + 1 at d lambda, and a miss (rate c r) evicts
    an OFF key (a + 1, c - 1) with probability b / entries, else an ON one (no change). Every ON key is looked
    up at rate r, so hit = E[a] / E[a + c]. (entries + 1) (keys - entries + 1) states."""
    mu, lam, r = 1.0 / on_mean, 1.0 / off_mean, access_rate
    outside = keys - entries
    size = (entries + 1) * (outside + 1)
    index = np.arange(size).reshape(entries + 1, outside + 1)
    rows, cols, rates = [], [], []
    for a in range(entries + 1):
        for c in range(outside + 1):
            b, d = entries - a, outside - c
            for da, dc, rate in ((-1, 0, a * mu), (1, 0, b * lam), (0, -1, c * mu), (0, 1, d * lam),
                                 (1, -1, c * r * b / entries)):
                if rate > 0:
                    rows.append(index[a, c])
                    cols.append(index[a + da, c + dc])
                    rates.append(rate)
    generator = sparse.csr_matrix((rates, (rows, cols)), shape=(size, size))
    generator = generator - sparse.diags(np.asarray(generator.sum(axis=1)).ravel())
    # pi Q = 0 with sum(pi) = 1: one balance equation replaced by the normalisation
    system = sparse.vstack([generator.T[:-1], sparse.csr_matrix(np.ones((1, size)))]).tocsc()
    pi = sparse.linalg.spsolve(system, np.r_[np.zeros(size - 1), 1.0]).reshape(entries + 1, outside + 1)
    on_cached = float((pi.sum(axis=1) * np.arange(entries + 1)).sum())
    on_elsewhere = float((pi.sum(axis=0) * np.arange(outside + 1)).sum())
    return on_cached / (on_cached + on_elsewhere)


def predict(entries: int, groups: list[SessionGroup], policy: str = "lru", seed: int = 1, ways: int = 0) -> Prediction:
    """The hit rate of an `entries`-key cache (fully associative, or `ways`-way set-associative) shared by the
    sessions of `groups`."""
    _check(entries, groups, policy)
    return Predictor(groups, policy, seed).predict(entries, ways)


def _solve_characteristic_time(occupancy, entries: int, start: float) -> float:
    """The T with occupancy(T) = entries; occupancy rises from 0 towards the number of keys."""
    low, high = start * 1e-6, start
    while occupancy(high) < entries:
        low, high = high, high * 4
        if high > 1e300:
            return math.inf
    log_t = optimize.brentq(lambda u: occupancy(math.exp(u)) - entries, math.log(low), math.log(high),
                            xtol=1e-10, rtol=1e-12)
    return math.exp(log_t)


def predict_exponential(entries: int, sessions: int, on_mean: float, off_mean: float, access_rate: float,
                        policy: str = "lru", ways: int = 0) -> Prediction:
    """predict() for one group with exponential ON/OFF (the paper's model and the presets)."""
    group = SessionGroup(sessions, renewal.exponential(on_mean), renewal.exponential(off_mean), access_rate)
    return predict(entries, [group], policy, ways=ways)


def entries_for_target(target: float, groups: list[SessionGroup], policy: str = "lru", seed: int = 1,
                       ways: int = 0) -> int:
    """The fewest entries whose predicted hit rate reaches `target` (the hit rate grows with the entries); with
    `ways`, the fewest whole sets of that many ways."""
    if not 0.0 < target < 1.0:
        raise ConfigError("target", f"the target hit rate must lie strictly between 0 and 1, got {target!r}")
    predictor = Predictor(groups, policy, seed)
    step = whole_number(ways, "ways", minimum=0) or 1  # entries are counted in sets of `ways`
    # rate(low) < target <= rate(high), in units of `step`: rate(0) is 0; every key fits at `high`
    low, high = 0, -(-predictor.sessions // step)
    while high - low > 1:
        middle = (low + high) // 2
        if predictor.predict(middle * step, ways).hit_rate >= target:
            high = middle
        else:
            low = middle
    return high * step
