"""`ibsec analytic size`: the SKC entries a card needs for a target hit rate, three ways.

1. **Markov F_n(x)** (paper §3.2): the fewest entries x with F_n(x) >= target, n the sessions of the busiest
   card, q the sessions' duty cycle. It asks "do all ON sessions fit", not "does a look-up hit".
2. **Predictor** (models/hitrate.py): the fewest entries whose characteristic-time hit rate reaches the
   target, from the sessions' ON/OFF laws and look-up rate.
3. **cachesim** (`simulate`): the synthetic simulation at both sizes, n keys, the same laws; and, when the
   cluster has more than one card, every card with its own sessions and cache (the pooled hit rate and the
   spread over cards).
4. **Exact** (models/lookup_profile.py, a trace at its own rank count only): the hit rate of every size from
   the look-ups each card makes in a cycle-level replay (LRU by stack distances; FIFO and random by the card's
   own cache at every size). The ON/OFF answers take
   sessions as independent; a card's send and receive sides share its SKC and a collective switches many
   sessions ON together, which only the replay sees (docs/sizing.md). Where it applies, its size is the one
   chosen; elsewhere the predictor's.

The traffic comes from a trace (`ibsec analytic fit`: the measured ON/OFF periods by default, or one fitted
family) or from a NAS preset (exponential, the paper's model); the sessions per card from models/sessions.py.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.stats import binom

from ..errors import ConfigError
from ..numeric import count, hit_rate, non_negative_real, one_of, optional, positive_real, text, whole
from . import cachesim, hitrate, markov, onoff_fit, presets, renewal, sessions
from .names import SIZE_FAMILIES as FAMILIES
from .renewal import Distribution

# The check of each argument of `ibsec analytic size` (option --NAME, with '-' for '_') and
# `ibsec.analytic.size(NAME=...)`: both refuse a bad value through the same one, naming it.
ARGUMENTS = {
    "nodes": count,
    "processes_per_node": count,
    "target": hit_rate,
    "preset": optional(text),
    "machine": text,
    "placement": one_of(sessions.PLACEMENTS),
    "family": one_of(FAMILIES),
    "gap_threshold_ms": optional(positive_real),
    "policy": one_of(hitrate.POLICIES),
    "ways": whole,
    "entry_bytes": count,
    "accesses": optional(count),
    "target_overhead": optional(non_negative_real),
}


@dataclass
class Traffic:
    """What the three answers need: the sessions of each card and one session's ON/OFF behaviour."""

    source: str
    sessions_per_card: np.ndarray
    sessions_rule: str
    on: Distribution
    off: Distribution
    access_rate: float  # look-ups per ms while ON
    trace_ranks: int | None = None  # the trace's own rank count; None for a preset

    @property
    def busiest(self) -> int:
        return int(self.sessions_per_card.max())

    @property
    def duty_cycle(self) -> float:
        return self.on.mean / (self.on.mean + self.off.mean)

    @property
    def lookups_per_on(self) -> float:
        return self.access_rate * self.on.mean


def _sessions(bench: str | None, ranks: int, nodes: int, per_node: int, placement: str,
              trace_messages: onoff_fit.Messages | None) -> tuple[np.ndarray, str]:
    if trace_messages is not None and trace_messages.processes == ranks:
        pairs = zip(trace_messages.sender.tolist(), trace_messages.receiver.tolist(), strict=True)
        return sessions.per_card(pairs, nodes, per_node, placement), f"the trace's own {ranks} ranks"
    if bench is None:
        raise ConfigError("nodes", f"the trace has {trace_messages.processes} ranks, not {ranks}, and names no NAS "
                                   "benchmark whose decomposition could scale it; give a trace of that many ranks")
    return (sessions.per_card(sessions.generator_pairs(bench, ranks), nodes, per_node, placement),
            f"{bench}'s decomposition at {ranks} ranks (ibsec's generator)")


def from_trace(path: str | Path, nodes: int, per_node: int, placement: str, family: str,
               gap_threshold_ms: float | None, periods_folder: Path) -> Traffic:
    if family not in FAMILIES:
        raise ConfigError("family", f"unknown family {family!r} (known: {', '.join(FAMILIES)})")
    messages = onoff_fit.read_messages(path)
    periods = onoff_fit.session_periods(messages, gap_threshold_ms)
    result = onoff_fit.FitResult(str(path), messages.processes, messages.origin, periods,
                                 onoff_fit.fit_all(periods.on_ms), onoff_fit.fit_all(periods.off_ms))
    if family == "empirical":
        laws = []
        for which, lengths in (("on", periods.on_ms), ("off", periods.off_ms)):
            file = periods_folder / f"{which}.periods"
            file.write_text("".join(f"{v:.9g}\n" for v in lengths))
            laws.append(renewal.empirical(file))
        on, off = laws
    else:
        on, off = renewal.parse(result.on_fits[family]["spec"]), renewal.parse(result.off_fits[family]["spec"])
    per_card, rule = _sessions(sessions.benchmark_of(messages.origin), nodes * per_node, nodes, per_node, placement,
                               messages)
    return Traffic(f"{path} ({family} ON/OFF laws, gap threshold {periods.gap_threshold_ms:.4g} ms)", per_card,
                   rule, on, off, result.markov_inputs()["access_rate_per_ms"], messages.processes)


def from_preset(bench: str, machine: str, nodes: int, per_node: int, placement: str) -> Traffic:
    preset = presets.get(bench, machine)
    per_card, rule = _sessions(preset.benchmark, nodes * per_node, nodes, per_node, placement, None)
    return Traffic(f"preset {preset.name} (exponential ON/OFF, estimates)", per_card, rule,
                   renewal.exponential(preset.on_mean_ms), renewal.exponential(preset.off_mean_ms),
                   float(cachesim.default("access_rate")))


def markov_entries(target: float, sessions_count: int, duty_cycle: float) -> int:
    """The fewest x with F_n(x) >= target (F rises with x)."""
    return max(1, int(binom.ppf(target, sessions_count, duty_cycle)))


def _simulate(traffic: Traffic, entries: int, accesses: int, policy: str, ways: int,
              card_sessions: Path | None = None) -> dict:
    """cachesim at `entries`: the busiest card's keys, or with `card_sessions` every card, each its own cache."""
    point = {"entries": entries, "access_rate": traffic.access_rate, "accesses": accesses, "policy": policy,
             "ways": ways}
    if card_sessions is None:
        point["keys"] = traffic.busiest
    else:
        point["card_sessions"] = str(card_sessions)
    for which, law in (("on", traffic.on), ("off", traffic.off)):
        if law.kind == "exp":
            point[f"{which}_mean"] = law.mean
        else:
            point[f"{which}_period"] = law.spec()
    return cachesim.run_point(point)


def _simulate_cards(traffic: Traffic, x_markov: int, x_predicted: int, accesses: int, policy: str,
                    ways: int) -> dict:
    """cachesim of every card with its own sessions and cache, at both sizes; the look-ups are shared among the
    cards by their sessions, so this costs what the busiest card's runs cost."""
    with tempfile.TemporaryDirectory(prefix="ibsec-size-cards-") as folder:
        counts = cachesim.card_sessions_file(traffic.sessions_per_card, Path(folder) / "card_sessions.txt")
        at_markov = _simulate(traffic, x_markov, accesses, policy, ways, counts)
        at_predictor = _simulate(traffic, x_predicted, accesses, policy, ways, counts)
    return {"cards": int(at_markov["cards"]), "hit_rate_at_markov_entries": at_markov["hit_rate"],
            "hit_rate_at_predictor_entries": at_predictor["hit_rate"],
            "card_hit_rate_min_at_predictor_entries": at_predictor["card_hit_rate_min"],
            "card_hit_rate_max_at_predictor_entries": at_predictor["card_hit_rate_max"]}


def whole_sets(entries: int, ways: int) -> int:
    """`entries` rounded up to a whole number of sets of `ways` (0: fully associative, unchanged)."""
    return entries if ways == 0 else -(-entries // ways) * ways


def size(traffic: Traffic, target: float, entry_bytes: int = 16, simulate: bool = False,
         accesses: int | None = None, policy: str = "lru", ways: int = 0) -> dict:
    """The three answers for the busiest card (`accesses`: cachesim's look-ups per point, None: the engine's
    default). `policy` and `ways` are the predictor's and cachesim's; F_n(x)
    knows neither (its x is rounded up to whole sets of `ways`)."""
    if ways < 0 or ways & (ways - 1):
        # The card and cachesim index sets by the key's low bits; the predictor alone would accept any count.
        raise ConfigError("ways", f"{ways}: expected 0 (fully associative) or a power of two")
    n = traffic.busiest
    group = hitrate.SessionGroup(n, traffic.on, traffic.off, traffic.access_rate)
    predictor = hitrate.Predictor([group], policy)
    x_markov = whole_sets(markov_entries(target, n, traffic.duty_cycle), ways)
    x_predicted = hitrate.entries_for_target(target, [group], policy, ways=ways)
    answers = {
        "markov": {"entries": x_markov, "bytes": x_markov * entry_bytes,
                   "f_at_entries": markov.hit_rate_estimate(x_markov, n, traffic.on.mean, traffic.off.mean),
                   "predicted_hit_rate_at_entries": predictor.predict(x_markov, ways).hit_rate,
                   "sessions_supported": markov.capacity(x_markov, traffic.on.mean, traffic.off.mean, target)},
        "predictor": {"entries": x_predicted, "bytes": x_predicted * entry_bytes,
                      "predicted_hit_rate_at_entries": predictor.predict(x_predicted, ways).hit_rate,
                      "f_at_entries": markov.hit_rate_estimate(x_predicted, n, traffic.on.mean, traffic.off.mean)},
    }
    if simulate:
        answers["cachesim"] = {"hit_rate_at_markov_entries":
                               _simulate(traffic, x_markov, accesses, policy, ways)["hit_rate"],
                               "hit_rate_at_predictor_entries":
                               _simulate(traffic, x_predicted, accesses, policy, ways)["hit_rate"],
                               "keys": n,
                               "accesses": cachesim.default("accesses") if accesses is None else accesses}
        if np.count_nonzero(traffic.sessions_per_card) > 1:
            answers["cachesim"]["all_cards"] = _simulate_cards(traffic, x_markov, x_predicted, accesses, policy,
                                                                ways)
    ceiling = traffic.lookups_per_on / (1 + traffic.lookups_per_on)
    return {
        "target": target, "source": traffic.source, "sessions_rule": traffic.sessions_rule,
        "sessions_per_card_mean": float(traffic.sessions_per_card.mean()), "sessions_per_card_max": n,
        "on_mean_ms": traffic.on.mean, "off_mean_ms": traffic.off.mean, "duty_cycle": traffic.duty_cycle,
        "access_rate_per_ms": traffic.access_rate, "lookups_per_on": traffic.lookups_per_on,
        "entry_bytes": entry_bytes, "policy": policy, "ways": ways, **answers,
        "why_they_differ": why(x_markov, x_predicted, n, ceiling, target),
    }


def choose(answer: dict, exact: dict | None, exact_refusal: str | None) -> dict:
    """`answer` with the exact path's answer (or why there is none), the size chosen and which model chose it,
    and each model's size with the hit rate it predicts there."""
    models = [{"model": "markov", "entries": answer["markov"]["entries"],
               "predicted_hit_rate": answer["markov"]["f_at_entries"], "what": "F_n(x), all ON sessions fit"},
              {"model": "predictor", "entries": answer["predictor"]["entries"],
               "predicted_hit_rate": answer["predictor"]["predicted_hit_rate_at_entries"],
               "what": "characteristic-time hit rate of independent ON/OFF sessions"}]
    if "cachesim" in answer:
        models.append({"model": "cachesim", "entries": answer["predictor"]["entries"],
                       "predicted_hit_rate": answer["cachesim"]["hit_rate_at_predictor_entries"],
                       "what": "synthetic ON/OFF simulation at the predictor's size (it chooses no size)"})
    if exact is None:
        chosen = {"model": "predictor", "entries": answer["predictor"]["entries"],
                  "why": f"the ON/OFF predictor's size: {exact_refusal}"}
        return {**answer, "exact": {"refused": exact_refusal}, "models": models, "chosen": chosen}
    models.append({"model": "exact", "entries": exact["entries"],
                   "predicted_hit_rate": exact["predicted_hit_rate_at_entries"],
                   "what": "each card's own look-ups in a cycle-level replay, every size at once"})
    why_exact = ("the exact path's size: the trace's own look-ups, card by card, send and receive sides in one "
                 "SKC")
    if not exact["target_reachable"]:
        why_exact += (f"; no size reaches {answer['target']} (first look-ups alone cap the hit rate at "
                      f"{exact['hit_rate_ceiling']:.4f}), so this is the smallest size with the best hit rate")
    return {**answer, "exact": exact, "models": models,
            "chosen": {"model": "exact", "entries": exact["entries"], "why": why_exact}}


def why(x_markov: int, x_predicted: int, n: int, ceiling: float, target: float) -> str:
    if x_markov == x_predicted:
        return "both criteria give the same size"
    parts = []
    if x_markov < x_predicted:
        parts.append("F_n(x) only asks that the ON sessions fit; a look-up also misses when its key was evicted "
                     "during the session's OFF period, so more entries are needed to keep keys across OFF periods")
        if ceiling < target:
            parts.append(f"with {ceiling / (1 - ceiling):.3g} look-ups per ON period a cache that loses keys in OFF "
                         f"periods cannot pass {ceiling:.3f}, below the target, so every one of the {n} sessions "
                         "needs an entry")
    else:
        parts.append("LRU keeps hitting when the ON sessions slightly exceed the cache (graceful overload), and "
                     "F_n(x) does not count that")
    return "; ".join(parts)


def fresh_periods_folder() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="ibsec-size-")

