"""The exact per-trace sizing path: the key look-ups each card really makes, and the hit rate of every SKC size.

The trace is replayed cycle by cycle at its own rank count, with an SKC that holds every session of a card
(so only first look-ups miss) and `nic.lookup.stack_distances` on: every card keeps an LRU stack of the keys
it looks up, send and receive side in the order the card makes them, collectives expanded by the replay's
own algorithms, and the result gives the histogram of stack distances (Mattson et al. 1970). hit(x), the hit
rate of a fully associative LRU SKC of x entries on that look-up order, is then read off for every x at once.

What it does not know: with a small SKC, misses stall a card's look-up stage and can reorder the look-ups of
its two directions; docs/sizing.md shows how far that moves the replayed hit rate. FIFO and random have no stack
property: for them the same replay feeds each card's look-ups to the card's own KeyCache at every size
(`nic.lookup.shadow_policies`). Set-associative caches are left to the ON/OFF answers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..engine.binary import EngineError
from .trace_replays import SHADOW_CACHES_SECTION, STACK_DISTANCES_SECTION, ReplaySetup

MODEL = "exact"
# Policies of the exact path: LRU by stack distances, the others by shadow caches of every size.
POLICIES = ("lru", "fifo", "random")


@dataclass(frozen=True)
class LookupProfile:
    """The hit rate of every size of one replacement policy, pooled over the cards of one replay."""

    policy: str
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
    if policy not in POLICIES or ways != 0:
        return (f"the exact path is for fully associative SKCs ({', '.join(POLICIES)}); a set-associative one's "
                "size comes from the ON/OFF predictor")
    return None


def session_bound(trace_ranks: int, per_node: int) -> int:
    """Keys a card can look up: each of its processes has a session with each of the other ranks."""
    return max(1, per_node * (trace_ranks - 1))


def measure(setup: ReplaySetup, trace_ranks: int, per_node: int, policy: str = "lru",
            quiet: bool = True) -> LookupProfile:
    """Replay the trace with every session on the card and the stack distances kept, and for another policy
    than LRU its shadow caches (or read the replay back)."""
    entries = session_bound(trace_ranks, per_node)
    shadows = [] if policy == "lru" else [f"nic.lookup.shadow_policies={json.dumps([policy])}"]
    point = setup.point(f"SKC-{entries}", "nic.skc.ways=0", "nic.lookup.stack_distances=true", *shadows)
    record = setup.run([point], "look-up profile", quiet)[0]
    stack = _section(record, STACK_DISTANCES_SECTION)
    if len(stack["histogram"]) > entries:
        raise EngineError(f"a card looked up more than the {entries} keys its sessions allow: the profile's SKC "
                          "did not hold every session")
    if policy == "lru":
        rates = stack["lru_hit_rate_by_entries"]
    else:
        rates = _section(record, SHADOW_CACHES_SECTION)["policies"][policy]["hit_rate_by_entries"]
    return LookupProfile(policy, stack["lookups"], stack["cold_lookups"], tuple(rates), entries)


def _section(record: dict, name: str) -> dict:
    if name not in record:
        raise EngineError(f"{record.get('result_file')}: the result has no '{name}' (an older ibsec-engine without "
                          "nic.lookup.stack_distances and nic.lookup.shadow_policies?)")
    return record[name]


def answer(profile: LookupProfile, target: float, entry_bytes: int, other_sizes: dict[str, int]) -> dict:
    """The exact path's size for `target`, as `ibsec analytic size` reports it, and its hit rate at the sizes
    other models chose (`other_sizes`: model -> entries)."""
    entries = profile.entries_for(target)
    reachable = entries is not None
    if not reachable:
        entries = profile.entries_for(max(profile.hit_rates, default=0.0)) or 1  # the smallest with the best rate
    return {"policy": profile.policy, "entries": entries, "bytes": entries * entry_bytes,
            "target_reachable": reachable,
            "predicted_hit_rate_at_entries": profile.hit_rate(entries), "hit_rate_ceiling": profile.ceiling,
            "lookups": profile.lookups, "cold_lookups": profile.cold_lookups,
            "hit_rate_by_entries": list(profile.hit_rates),
            "recorded_with": f"SKC-{profile.replayed_entries} (every session of a card on it)",
            **{f"hit_rate_at_{model}_entries": profile.hit_rate(x) for model, x in other_sizes.items()}}
