"""How many sessions each card serves: from a trace's communication graph, or the benchmark's decomposition at
any number of ranks.

A session is a pair of processes (docs/cic.md). The card of a node serves every session one of its processes
takes part in with a process on another node (a pair inside one node crosses no card). So the sessions of a
card are the distinct (own process, remote process) pairs of its processes' peers.

Peers come from:
- a trace of exactly the ranks asked for: its messages and collectives (models/onoff_fit.read_messages);
- otherwise the benchmark's decomposition at that many ranks, from ibsec's own NAS generators
  (workloads/): the point-to-point partners the generator's program gives each rank, and, for collectives on
  the world, the binomial-tree partners (ranks differing in one bit) the replay's usual algorithms use, or
  every other rank for the all-to-all kinds (FT's transposes). CG's
  partners come straight from its process grid (workloads/cg.Layout: the row-reduction partners and the
  transpose partner), which costs O(ranks) and answers 4 096 ranks at once; the others build the generator's
  program at class A and the smallest scale, seconds at a few hundred ranks.

Placement of ranks on nodes: `block` (ranks k*i .. k*i+k-1 on node i, Open MPI's --map-by core) or `cyclic`
(rank r on node r mod N, --map-by node).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..errors import ConfigError
from .names import PLACEMENTS


def node_of(rank: int, nodes: int, per_node: int, placement: str) -> int:
    if placement == "block":
        return rank // per_node
    if placement == "cyclic":
        return rank % nodes
    raise ConfigError("placement", f"unknown placement {placement!r} (known: {', '.join(PLACEMENTS)})")


def per_card(pairs: Iterable[tuple[int, int]], nodes: int, per_node: int, placement: str) -> np.ndarray:
    """Sessions per card (node) from the communicating pairs of ranks."""
    seen: set[tuple[int, int]] = set()
    counts = np.zeros(nodes, dtype=np.int64)
    for a, b in pairs:
        key = (min(a, b), max(a, b))
        if a == b or key in seen:
            continue
        seen.add(key)
        node_a, node_b = node_of(a, nodes, per_node, placement), node_of(b, nodes, per_node, placement)
        if node_a != node_b:
            counts[node_a] += 1
            counts[node_b] += 1
    return counts


def tree_pairs(ranks: int) -> list[tuple[int, int]]:
    """Binomial-tree / recursive-doubling partners of world collectives: ranks that differ in one bit."""
    pairs = []
    for r in range(ranks):
        bit = 1
        while bit < ranks:
            if (r ^ bit) < ranks and r < (r ^ bit):
                pairs.append((r, r ^ bit))
            bit <<= 1
    return pairs


def cg_pairs(ranks: int) -> list[tuple[int, int]]:
    from ..workloads.cg import Layout, procs_problem

    problem = procs_problem(ranks)
    if problem:
        raise ConfigError("nodes", f"{problem}, got {ranks} ranks")
    pairs = []
    for me in range(ranks):
        layout = Layout(me, ranks, na=ranks)  # the partners do not depend on the matrix order
        pairs += [(me, layout.partner(step)) for step in range(1, layout.steps + 1)]
        if layout.steps:
            pairs.append((me, layout.transpose_partner))
    return pairs


def generator_pairs(bench: str, ranks: int) -> list[tuple[int, int]]:
    """The point-to-point pairs of ibsec's generator for `bench` at `ranks`, plus world-collective tree pairs."""
    if bench.upper() == "CG":
        return cg_pairs(ranks) + tree_pairs(ranks)
    from ..workloads import make_params
    from ..workloads.compare import summarize_workload
    from .onoff_fit import PAIRWISE

    summary = summarize_workload(make_params(bench, ranks, "A", 1e-9, 1))
    pairs = list(summary.pairs)
    world = [op.removeprefix("i") for op, comm in summary.collectives if comm in ("world", "all")]
    if any(op in PAIRWISE for op in world):  # all-to-all: every pair
        return [(a, b) for a in range(ranks) for b in range(a + 1, ranks)]
    if world:
        pairs += tree_pairs(ranks)
    return pairs


def benchmark_of(origin: str) -> str | None:
    """The NAS benchmark a trace's origin line names (`program=cg.A.x` of a capture, `CG` of a generator)."""
    from ..workloads import BENCHMARKS

    text = origin.lower()
    for name in BENCHMARKS:
        if f"program={name.lower()}." in text or f" {name.lower()} " in f" {text} ":
            return name
    return None
