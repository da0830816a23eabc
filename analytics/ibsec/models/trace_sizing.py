"""The parts of `ibsec analytic size` that replay the trace cycle by cycle: the exact path, the replays that
confirm each model's size (`confirm`) and the smallest SKC within an execution-time overhead
(`target_overhead_pct`). The ON/OFF answers (models/sizing.py) come first; this adds to them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError
from . import lookup_profile, overhead_sizing, sizing
from .trace_replays import ReplaySetup, execution_time_ns


@dataclass(frozen=True)
class ReplayRequest:
    """What the caller asks of the replays, and where they are kept."""

    trace: str | None
    nodes: int
    per_node: int
    placement: str
    config: str | None
    folder: Path
    confirm: bool = False
    target_overhead_pct: float | None = None
    scan: bool = False
    quiet: bool = True


def refusal(traffic: sizing.Traffic, request: ReplayRequest, policy: str, ways: int) -> str | None:
    if traffic.trace_ranks is None:
        return "a NAS preset has no look-ups to replay; the exact path needs a trace"
    return lookup_profile.refusal(traffic.trace_ranks, request.nodes, request.per_node, policy, ways)


def check(traffic: sizing.Traffic, request: ReplayRequest, ways: int) -> None:
    """Refuse what the replays cannot do before anything runs; ConfigError naming the option."""
    wanted = [name for name, on in (("confirm", request.confirm),
                                    ("target_overhead", request.target_overhead_pct is not None)) if on]
    if not wanted:
        return
    if traffic.trace_ranks is None:
        raise ConfigError(wanted[0], "needs a trace to replay (--trace), not a preset")
    if traffic.trace_ranks != request.nodes * request.per_node:
        raise ConfigError(wanted[0], lookup_profile.refusal(traffic.trace_ranks, request.nodes, request.per_node,
                                                            "lru", 0))
    if request.target_overhead_pct is not None and ways != 0:
        raise ConfigError("ways", "--target-overhead searches fully associative SKCs only (give --ways 0)")


def add_replays(answer: dict, traffic: sizing.Traffic, request: ReplayRequest, target: float, entry_bytes: int,
                policy: str, ways: int) -> dict:
    """`answer` (sizing.size's) with the exact path and the size chosen, and the replays asked for."""
    check(traffic, request, ways)
    why_not = refusal(traffic, request, policy, ways)
    setup = None if traffic.trace_ranks is None else ReplaySetup(
        str(request.trace), request.nodes, request.placement, request.config, Path(request.folder),
        (f"nic.skc.policy={json.dumps(policy)}", f"nic.skc.ways={ways}"))
    exact = None
    if why_not is None:
        profile = lookup_profile.measure(setup, traffic.trace_ranks, request.per_node, policy, request.quiet)
        exact = lookup_profile.answer(profile, target, entry_bytes,
                                      {"markov": answer["markov"]["entries"],
                                       "predictor": answer["predictor"]["entries"]})
    answer = sizing.choose(answer, exact, why_not)
    if request.confirm:
        answer["models"] = confirm(setup, answer["models"], request.quiet)
    if request.target_overhead_pct is not None:
        largest = lookup_profile.session_bound(traffic.trace_ranks, request.per_node)
        report = (lambda line: None) if request.quiet else None
        answer["target_overhead"] = overhead_sizing.smallest_within(setup, request.target_overhead_pct, largest,
                                                                    request.scan, report)
    if setup is not None:
        answer["replays_folder"] = str(setup.folder)
    return answer


def confirm(setup: ReplaySetup, models: list[dict], quiet: bool) -> list[dict]:
    """Each model's row with the replay at its size: the SKC hit rate and the overhead over NoSecurity."""
    sizes = sorted({row["entries"] for row in models})
    points = [setup.point("NoSecurity")] + [setup.point(f"SKC-{x}") for x in sizes]
    baseline, *replays = setup.run(points, "confirming replays", quiet)
    by_size = dict(zip(sizes, replays, strict=True))
    confirmed = []
    for row in models:
        replay = by_size[row["entries"]]
        overhead = 100.0 * (execution_time_ns(replay) / execution_time_ns(baseline) - 1.0)
        confirmed.append({**row, "replayed_hit_rate": replay["skc_hit_rate"], "replayed_overhead_pct": overhead})
    return confirmed
