"""The session-level ON/OFF process a trace puts on each card, and distributions fitted to it.

A session is a pair of processes (one key per pair, both directions, as the
card keys packets: docs/cic.md); with one process per node, the card of
node c serves the sessions of rank c. Every message from A to B is a burst
of ceil(bytes / packet_bytes) look-ups (at least one) on both A's and B's
card, starting when A's send began and lasting its wire time at the link's
data rate. A session is ON while its messages flow and goes OFF after a gap
longer than the **gap threshold**: by default the gap between the two modes
of the log inter-message gaps (Otsu's threshold of log10 gap, which splits
the short gaps inside a communication phase from the long ones across
compute phases); `gap_threshold_ms` overrides it. The first ON period of a
session starts at its first message and the last ends at its last; the time
before and after them is censored and not counted as OFF.

Collectives are turned into the sessions they touch the way the replay's
usual algorithms do: all-to-all and all-gather kinds touch every other member
(pairwise exchange), the others a binomial tree (members whose index in the
communicator differs from the caller's, relative to the root, in one bit).
The sessions and look-ups of a collective are therefore approximate; the
point-to-point traffic of CG, LU, MG, SP and BT is exact.

Fitted to the ON and to the OFF lengths (ms): exponential (mean),
lognormal (MLE of the log), Weibull (MLE) and a two-phase hyperexponential
(EM), each with its Kolmogorov-Smirnov distance to the measured lengths.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import optimize

from ..errors import IbsecError
from ..traces.reader import TraceEvent, TraceHeader, open_trace
from ..workloads.timeline import PACKET_BYTES
from .renewal import Distribution

# 4x SDR InfiniBand carries 8 Gb/s of data, 1 byte a ns (network.link_rate, docs/network.md): a message's
# look-ups are spread over its wire time at that rate.
LINK_BYTES_PER_NS = 1.0
# How each collective, by its blocking form, is approximated (module doc): a pairwise exchange with every other
# member, or a binomial tree. Every collective of the engine's op table is in one of them
# (tests/python/test_trace_reader.py), so a new collective is modelled on purpose, never by default.
PAIRWISE = frozenset({"alltoall", "alltoallv", "allgather", "allgatherv", "reduce_scatter"})
TREE = frozenset({"barrier", "bcast", "reduce", "gather", "scatter", "allreduce", "gatherv", "scatterv", "scan",
                  "exscan"})
NS_PER_MS = 1e6
# The events that send messages; a receive's message is its sender's event.
MESSAGE_ROLES = frozenset({"send", "collective"})


@dataclass
class Messages:
    """Every message of a trace as (start ns, sender, receiver, look-ups), in start order."""

    processes: int
    origin: str
    start_ns: np.ndarray
    sender: np.ndarray
    receiver: np.ndarray
    lookups: np.ndarray


def _collective_partners(event: TraceEvent, header: TraceHeader) -> list[tuple[int, int]]:
    """(partner world rank, bytes sent to it) of one collective call, as described in the module doc; the op's
    arguments (ROOT, BYTES or COUNTS) are read by the names the engine's op table gives them."""
    op = event.op
    kind = op.blocking_form
    if kind not in PAIRWISE | TREE:
        raise event.error(f"no model of how {kind} touches sessions (onoff_fit.PAIRWISE or TREE)", "op")
    comm = event.number("comm")
    if comm != 0 and comm not in header.comms:
        raise event.error(f"communicator {comm} is not declared", "comm")
    members = header.members(comm)
    if event.rank not in members:
        raise event.error(f"rank {event.rank} is not a member of communicator {comm}", "rank")
    size, me = len(members), members.index(event.rank)
    root = members.index(_root(event, members)) if op.rooted else 0
    if op.has_counts:
        counts = event.counts()
    elif "bytes" in op.arguments:
        counts = [event.number("bytes")] * size
    else:  # a barrier carries no data
        counts = [0] * size
    if kind in PAIRWISE:
        sent = [counts[me]] * size if kind == "allgatherv" else counts
        return [(members[i], sent[i]) for i in range(size) if i != me]
    nbytes = sum(counts) // size if op.has_counts else counts[0]
    return _tree_partners(members, me, root, nbytes)


def _root(event: TraceEvent, members: tuple[int, ...]) -> int:
    root = event.number("root")
    if root not in members:
        raise event.error(f"{root} is not a member of communicator {event.value('comm')}", "root")
    return root


def _tree_partners(members: tuple[int, ...], me: int, root: int, nbytes: int) -> list[tuple[int, int]]:
    """The binomial tree's partners of member `me`: those whose index relative to the root differs in one bit."""
    size, relative = len(members), (me - root) % len(members)
    partners, bit = [], 1
    while bit < size:
        if (relative ^ bit) < size:
            partners.append((members[((relative ^ bit) + root) % size], nbytes))
        bit <<= 1
    return partners


def _partners(event: TraceEvent, header: TraceHeader) -> list[tuple[int, int]]:
    """(receiver, bytes) of every message an event sends: a send's one, a collective's approximation."""
    role = event.op.role
    if role == "send":
        return [(event.number("peer"), event.number("bytes"))]
    if role == "collective":
        return _collective_partners(event, header)
    return []  # compute, receives and waits: not read (MESSAGE_ROLES)


def read_messages(path: str | Path, packet_bytes: int = PACKET_BYTES) -> Messages:
    """The messages of a trace (any encoding the engine reads); bad lines are errors naming file, line and
    field."""
    start, sender, receiver, lookups = [], [], [], []
    with open_trace(path) as trace:
        header = trace.header
        for event in trace.events(MESSAGE_ROLES):
            for peer, nbytes in _partners(event, header):
                if peer != event.rank:
                    start.append(event.start)
                    sender.append(event.rank)
                    receiver.append(peer)
                    lookups.append(max(1, -(-nbytes // packet_bytes)))
    if not start:
        raise IbsecError(f"{path}: no messages between processes: no session traffic to fit")
    return Messages(header.processes, header.origin, np.array(start, dtype=np.int64), np.array(sender),
                    np.array(receiver), np.array(lookups, dtype=np.int64))


# ---- ON and OFF periods --------------------------------------------------------------------------------

def otsu_threshold(values: np.ndarray, bins: int = 256) -> float:
    """The value splitting `values` into two classes of greatest between-class variance (Otsu, 1979); when the
    classes are far apart every split in the empty stretch between them is as good, and the middle is taken."""
    counts, edges = np.histogram(values, bins=bins)
    centres = (edges[:-1] + edges[1:]) / 2
    weight_low = np.cumsum(counts)
    weight_high = weight_low[-1] - weight_low
    mass_low = np.cumsum(counts * centres)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_low = mass_low / weight_low
        mean_high = (mass_low[-1] - mass_low) / weight_high
        between = weight_low * weight_high * (mean_low - mean_high) ** 2
    between = np.nan_to_num(between[:-1], nan=-1.0)
    best = np.flatnonzero(between >= between.max() * (1 - 1e-12))  # a run of equal splits across empty bins
    return float(edges[1:][best[best.size // 2]])  # the middle of that run


@dataclass
class Periods:
    """ON and OFF lengths (ms) pooled over every session, and what each card carries."""

    gap_threshold_ms: float
    threshold_rule: str
    on_ms: np.ndarray
    off_ms: np.ndarray
    lookups_per_on: np.ndarray
    sessions_per_card: np.ndarray  # by card (rank)
    sessions: int


def session_periods(messages: Messages, gap_threshold_ms: float | None = None,
                    link_bytes_per_ns: float = LINK_BYTES_PER_NS, packet_bytes: int = PACKET_BYTES) -> Periods:
    low = np.minimum(messages.sender, messages.receiver)
    high = np.maximum(messages.sender, messages.receiver)
    pair = low.astype(np.int64) * messages.processes + high
    order = np.lexsort((messages.start_ns, pair))
    pair, start = pair[order], messages.start_ns[order].astype(float)
    lookups = messages.lookups[order]
    end = start + lookups * packet_bytes / link_bytes_per_ns
    same_pair = pair[1:] == pair[:-1]
    gap_ns = start[1:] - end[:-1]
    if gap_threshold_ms is None:
        positive = gap_ns[same_pair & (gap_ns > 0)]
        if positive.size < 2:
            raise IbsecError("too few gaps between messages of one session to choose a gap threshold; give one")
        threshold_ns, rule = 10 ** otsu_threshold(np.log10(positive)), "otsu on log10 gaps"
    else:
        threshold_ns, rule = gap_threshold_ms * NS_PER_MS, "given"
    new_period = np.concatenate([[True], ~same_pair | (gap_ns > threshold_ns)])
    first = np.flatnonzero(new_period)
    on_start = start[first]
    on_end = np.maximum.reduceat(end, first)
    on_pair = pair[first]
    follows = on_pair[1:] == on_pair[:-1]
    off_ns = (on_start[1:] - on_end[:-1])[follows]
    cards = np.bincount(np.concatenate([np.unique(pair) // messages.processes, np.unique(pair) % messages.processes]),
                        minlength=messages.processes)
    return Periods(gap_threshold_ms=threshold_ns / NS_PER_MS, threshold_rule=rule,
                   on_ms=(on_end - on_start) / NS_PER_MS, off_ms=off_ns / NS_PER_MS,
                   lookups_per_on=np.add.reduceat(lookups, first), sessions_per_card=cards,
                   sessions=int(np.unique(pair).size))


# ---- fits --------------------------------------------------------------------------------------------------

def ks_distance(sample_sorted: np.ndarray, dist: Distribution) -> float:
    n = sample_sorted.size
    cdf = dist.cdf(sample_sorted)
    return float(max(np.max(np.arange(1, n + 1) / n - cdf), np.max(cdf - np.arange(n) / n)))


def fit_weibull(x: np.ndarray) -> Distribution:
    """MLE: the shape k solves sum x^k ln x / sum x^k - 1/k = mean ln x (x scaled by its geometric mean)."""
    logs = np.log(x)
    centred = logs - logs.mean()

    def score(k: float) -> float:
        w = np.exp(k * centred - np.max(k * centred))
        return float(np.sum(w * centred) / np.sum(w) - 1 / k)

    shape = optimize.brentq(score, 1e-3, 1e3)
    scale = math.exp(logs.mean()) * float(np.mean(np.exp(shape * centred))) ** (1 / shape)
    return Distribution("weibull", (shape, scale))


def fit_hyperexponential(x: np.ndarray, iterations: int = 300) -> Distribution:
    """EM for a mixture of two exponentials, started from the means of the lower and upper halves."""
    ordered = np.sort(x)
    half = ordered.size // 2
    p, m1, m2 = 0.5, float(ordered[:max(half, 1)].mean()), float(ordered[half:].mean())
    for _ in range(iterations):
        a = p / m1 * np.exp(-x / m1)
        b = (1 - p) / m2 * np.exp(-x / m2)
        resp = a / np.maximum(a + b, 1e-300)
        new_p = float(resp.mean())
        if not 1e-9 < new_p < 1 - 1e-9:
            break
        new_m1, new_m2 = float((resp * x).sum() / resp.sum()), float(((1 - resp) * x).sum() / (1 - resp).sum())
        done = abs(new_p - p) < 1e-9 and abs(new_m1 - m1) < 1e-9 * m1 and abs(new_m2 - m2) < 1e-9 * m2
        p, m1, m2 = new_p, new_m1, new_m2
        if done:
            break
    if not (1e-9 < p < 1 - 1e-9 and m1 > 0 and m2 > 0):  # one phase is enough: the exponential
        mean = float(x.mean())
        return Distribution("hyperexp", (0.5, mean, mean))
    return Distribution("hyperexp", (p, m1, m2))


def fit_all(x: np.ndarray) -> dict[str, dict]:
    """Each family's fit and its KS distance to `x` (ms, positive)."""
    x = np.sort(x[x > 0])
    if x.size < 2:
        raise IbsecError(f"only {x.size} period(s) to fit: the trace is too short or the gap threshold too large")
    logs = np.log(x)
    fits = {
        "exp": Distribution("exp", (float(x.mean()),)),
        "lognormal": Distribution("lognormal", (float(logs.mean()), max(float(logs.std()), 1e-9))),
        "weibull": fit_weibull(x),
        "hyperexp": fit_hyperexponential(x),
    }
    return {name: {**dist.as_dict(), "spec": dist.spec(), "ks": ks_distance(x, dist)} for name, dist in fits.items()}


@dataclass
class FitResult:
    trace: str
    processes: int
    origin: str
    periods: Periods
    on_fits: dict = field(default_factory=dict)
    off_fits: dict = field(default_factory=dict)

    def best(self, which: str) -> str:
        """The family of smallest KS distance to the `which` ("on" or "off") lengths; the first on a tie."""
        fits = self.on_fits if which == "on" else self.off_fits
        return min(fits, key=lambda name: fits[name]["ks"])

    def flagged(self, which: str) -> dict:
        """The `which` fits, each with `best` saying whether it is the one of smallest KS distance."""
        fits, best = (self.on_fits if which == "on" else self.off_fits), self.best(which)
        return {family: {**fit, "best": family == best} for family, fit in fits.items()}

    def markov_inputs(self) -> dict:
        p = self.periods
        on_mean, off_mean = float(p.on_ms.mean()), float(p.off_ms.mean())
        return {
            "sessions_per_card_mean": float(p.sessions_per_card.mean()),
            "sessions_per_card_max": int(p.sessions_per_card.max()),
            "on_mean_ms": on_mean,
            "off_mean_ms": off_mean,
            "duty_cycle": on_mean / (on_mean + off_mean),
            "lookups_per_on_mean": float(p.lookups_per_on.mean()),
            "access_rate_per_ms": float(p.lookups_per_on.sum() / p.on_ms.sum()),
        }

    def as_dict(self) -> dict:
        p = self.periods
        return {
            "trace": self.trace, "processes": self.processes, "origin": self.origin,
            "session": "a pair of processes; one process per card",
            "gap_threshold_ms": p.gap_threshold_ms, "gap_threshold_rule": p.threshold_rule,
            "sessions": p.sessions, "on_periods": int(p.on_ms.size), "off_periods": int(p.off_ms.size),
            "sessions_per_card": p.sessions_per_card.tolist(),
            "markov": self.markov_inputs(),
            "on_fits": self.flagged("on"), "off_fits": self.flagged("off"),
            "best_on": self.best("on"), "best_off": self.best("off"),
        }

    def rows(self) -> list[dict]:
        """One CSV row per (period kind, family); `best` marks the family of smallest KS distance of each kind."""
        rows = []
        for which in ("on", "off"):
            for family, fit in self.flagged(which).items():
                rows.append({"trace": Path(self.trace).name, "period": which, "family": family, "spec": fit["spec"],
                             "mean_ms": fit["mean_ms"], "ks": fit["ks"], "best": fit["best"],
                             "gap_threshold_ms": self.periods.gap_threshold_ms, **self.markov_inputs()})
        return rows


def fit_trace(path: str | Path, gap_threshold_ms: float | None = None,
              link_bytes_per_ns: float = LINK_BYTES_PER_NS) -> FitResult:
    messages = read_messages(path)
    periods = session_periods(messages, gap_threshold_ms, link_bytes_per_ns)
    if periods.off_ms.size < 2:
        raise IbsecError(f"{path}: fewer than two OFF periods at a gap threshold of {periods.gap_threshold_ms:.6g} ms:"
                         " no ON/OFF process to fit")
    return FitResult(str(path), messages.processes, messages.origin, periods, fit_all(periods.on_ms),
                     fit_all(periods.off_ms))
