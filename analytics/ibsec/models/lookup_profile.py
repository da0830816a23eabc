"""The exact per-trace sizing path: the key look-ups each card really makes, and LRU's hit rate at every size.

The trace is replayed cycle by cycle at its own rank count, with an SKC that holds every session of a card
(so only first look-ups miss) and `nic.lookup.stack_distances` on: every card keeps an LRU stack of the keys
it looks up, send and receive side in the order the card makes them, collectives expanded by the replay's
own algorithms, and the result gives the histogram of stack distances (Mattson et al. 1970). hit(x), the hit
rate of a fully associative LRU SKC of x entries on that look-up order, is then read off for every x at once.

What it does not know: with a small SKC, misses stall a card's look-up stage and can reorder the look-ups of
its two directions; docs/sizing.md shows how far that moves the replayed hit rate. FIFO, random and
set-associative caches have no stack property; this path is LRU, fully associative, only.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.binary import EngineError
from .trace_replays import STACK_DISTANCES_SECTION, ReplaySetup

MODEL = "exact_lru"


@dataclass(frozen=True)
class LookupProfile:
    """The pooled stack distances of every card of one replay."""

    lookups: int
    cold_lookups: int
    hit_rates: tuple[float, ...]  # element x-1: hit(x)
    replayed_entries: int  # the SKC of the replay that recorded them

    @property
    def ceiling(self) -> float:
        """The best any SKC does on this look-up order: every look-up but the first of each key hits."""
        return 1.0 - self.cold_lookups / self.lookups if self.lookups else 0.0

    def hit_rate(self, entries: int) -> float:
        if entries < 1 or not self.hit_rates:
            return 0.0
        return self.hit_rates[min(entries, len(self.hit_rates)) - 1]

    def entries_for(self, target: float) -> int | None:
        """The fewest entries whose hit rate reaches `target`, or None when the cold look-ups alone forbid it."""
        return next((x for x, rate in enumerate(self.hit_rates, start=1) if rate >= target), None)


def refusal(trace_ranks: int, nodes: int, per_node: int, policy: str, ways: int) -> str | None:
    """Why the exact path cannot answer this question, or None when it can."""
    if trace_ranks != nodes * per_node:
        return (f"a replay runs the trace at its own {trace_ranks} ranks; {nodes} nodes x {per_node} "
                f"processes is {nodes * per_node} ranks (give --nodes and --processes-per-node that make "
                f"{trace_ranks})")
    if policy != "lru" or ways != 0:
        return "the exact path is for a fully associative LRU SKC (stack distances exist for LRU only)"
    return None


def session_bound(trace_ranks: int, per_node: int) -> int:
    """Keys a card can look up: each of its processes has a session with each of the other ranks."""
    return max(1, per_node * (trace_ranks - 1))


def measure(setup: ReplaySetup, trace_ranks: int, per_node: int, quiet: bool = True) -> LookupProfile:
    """Replay the trace with every session on the card and the stack distances kept (or read it back)."""
    entries = session_bound(trace_ranks, per_node)
    point = setup.point(f"SKC-{entries}", "nic.skc.ways=0", "nic.lookup.stack_distances=true")
    record = setup.run([point], "look-up profile", quiet)[0]
    section = record.get(STACK_DISTANCES_SECTION)
    if section is None:
        raise EngineError(f"{record.get('result_file')}: the result has no '{STACK_DISTANCES_SECTION}' (an older "
                          "ibsec-engine without nic.lookup.stack_distances?)")
    if len(section["histogram"]) > entries:
        raise EngineError(f"a card looked up more than the {entries} keys its sessions allow: the profile's SKC "
                          "did not hold every session")
    return LookupProfile(section["lookups"], section["cold_lookups"], tuple(section["lru_hit_rate_by_entries"]),
                         entries)


def answer(profile: LookupProfile, target: float, entry_bytes: int, other_sizes: dict[str, int]) -> dict:
    """The exact path's size for `target`, as `ibsec analytic size` reports it, and its hit rate at the sizes
    other models chose (`other_sizes`: model -> entries)."""
    entries = profile.entries_for(target)
    reachable = entries is not None
    if not reachable:
        entries = max(1, len(profile.hit_rates))  # every repeated key hits from here on
    return {"entries": entries, "bytes": entries * entry_bytes, "target_reachable": reachable,
            "predicted_hit_rate_at_entries": profile.hit_rate(entries), "hit_rate_ceiling": profile.ceiling,
            "lookups": profile.lookups, "cold_lookups": profile.cold_lookups,
            "hit_rate_by_entries": list(profile.hit_rates),
            "recorded_with": f"SKC-{profile.replayed_entries} (every session of a card on it)",
            **{f"hit_rate_at_{model}_entries": profile.hit_rate(x) for model, x in other_sizes.items()}}
