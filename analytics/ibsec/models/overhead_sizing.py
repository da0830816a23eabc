"""`ibsec analytic size --target-overhead P`: the smallest SKC whose cycle-level replay of a trace costs at most
P % execution time over NoSecurity.

One NoSecurity replay gives the baseline; an SKC that holds every session of a card (only first look-ups miss)
gives the least overhead any SKC can reach, since a larger one behaves the same. If even that costs more than
P %, no size does, and the answer says so. Otherwise bisection over the entries between 1 and that size, one
replay per step.

Overhead need not fall monotonically with entries: a smaller SKC stalls a card more often, which can reorder
its look-ups into a luckier order. Bisection returns a size that meets P % whose size minus one does not; a
smaller size could still meet it after a failing one. The answer lists every size replayed and says when the
replays it made were not monotone; `scan` replays every size below the bisection's answer instead, which
gives the smallest size for certain.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from .trace_replays import ReplaySetup, execution_time_ns


class OverheadSearch:
    """Replays at SKC sizes, each once (the store keeps them across runs), with their overhead over NoSecurity."""

    def __init__(self, setup: ReplaySetup, report: Callable[[str], None]):
        self.setup = setup
        self.report = report
        self.baseline = setup.run([setup.point("NoSecurity")], "NoSecurity replay")[0]
        self.report(f"NoSecurity: {execution_time_ns(self.baseline) * 1e-6:.6g} ms")
        self.replays: dict[int, dict] = {}

    def overhead_pct(self, entries: int) -> float:
        if entries not in self.replays:
            self.replays[entries] = self.setup.run([self.setup.point(f"SKC-{entries}")], f"SKC-{entries} replay")[0]
            record = self.replays[entries]
            self.report(f"SKC-{entries}: {self._pct(record):+.3f} % execution time, SKC hit rate "
                        f"{record['skc_hit_rate']:.4f}")
        return self._pct(self.replays[entries])

    def _pct(self, record: dict) -> float:
        return 100.0 * (execution_time_ns(record) / execution_time_ns(self.baseline) - 1.0)

    def table(self) -> list[dict]:
        return [{"entries": x, "overhead_pct": self._pct(r), "skc_hit_rate": r["skc_hit_rate"],
                 "simulated_execution_time_ns": execution_time_ns(r), "result_file": r["result_file"]}
                for x, r in sorted(self.replays.items())]


def smallest_within(setup: ReplaySetup, target_pct: float, largest: int, scan: bool = False,
                    report: Callable[[str], None] | None = None) -> dict:
    """The smallest SKC (entries) whose replay costs at most `target_pct` % over NoSecurity; `largest` holds every
    session of a card."""
    search = OverheadSearch(setup, report or (lambda line: print(line, file=sys.stderr)))
    summary = {"target_overhead_pct": target_pct, "nosecurity_execution_time_ns": execution_time_ns(search.baseline),
               "largest_entries": largest, "method": "scan" if scan else "bisection"}
    if search.overhead_pct(largest) > target_pct:
        return {**summary, "entries": None, "overhead_pct": None, "replays": search.table(),
                "monotone": None,
                "why": f"even SKC-{largest}, every session of a card on it, costs "
                       f"{search.overhead_pct(largest):.3f} % (first look-ups, GCM and the security bytes), above "
                       f"{target_pct:g} %: no SKC size reaches the target"}
    failing, passing = 0, largest  # overhead(passing) <= target; 0 entries stands for "fails"
    while passing - failing > 1:
        middle = (failing + passing) // 2
        if search.overhead_pct(middle) <= target_pct:
            passing = middle
        else:
            failing = middle
    if scan:
        passing = next(x for x in range(1, passing + 1) if search.overhead_pct(x) <= target_pct)
    table = search.table()
    return {**summary, "entries": passing, "overhead_pct": search.overhead_pct(passing),
            "skc_hit_rate": search.replays[passing]["skc_hit_rate"], "replays": table,
            "monotone": _monotone(table),
            "why": f"SKC-{passing} costs {search.overhead_pct(passing):.3f} % <= {target_pct:g} %"
                   + ("" if passing == 1 else f"; SKC-{passing - 1} costs {search.overhead_pct(passing - 1):.3f} %")}


def _monotone(table: list[dict]) -> bool:
    """Whether the overheads replayed never rise with more entries (beyond a picosecond's rounding)."""
    overheads = [row["overhead_pct"] for row in table]
    return all(later <= earlier + 1e-9 for earlier, later in zip(overheads, overheads[1:], strict=False))
