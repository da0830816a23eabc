"""Cycle-level replays of one trace at chosen card settings, for the sizing paths of `ibsec analytic size`.

Every replay is an EnginePoint run through the package's resumable store (runs/store.py) in one folder: a
replay asked again (same engine, config, trace contents and overrides) is read back, not run again, so an
interrupted `--target-overhead` search picks up where it stopped. A record is the result's flat row
(EngineRun.row) and, when the run kept them, the cards' LRU stack distances and shadow caches.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from ..engine.point import EnginePoint, point_identity
from ..runs.store import run_points

STORE_NAME = "points.jsonl"
# The result sections nic.lookup.stack_distances and nic.lookup.shadow_policies add (nic/stack_distances.cpp,
# nic/shadow_caches.cpp).
STACK_DISTANCES_SECTION = "lookup_stack_distances"
SHADOW_CACHES_SECTION = "lookup_shadow_caches"


@dataclass(frozen=True)
class ReplaySetup:
    """What every replay of a sizing shares: the trace, the cluster and where the replays are kept."""

    trace: str
    nodes: int
    placement: str
    config: str | None
    folder: Path
    card: tuple[str, ...] = ()  # overrides of every SKC replay (the replacement policy)

    def point(self, security: str, *overrides: str) -> EnginePoint:
        """The trace replayed with `nic.security` = `security` (NoSecurity, SKC-<n>, ...) and more overrides."""
        name = Path(self.trace).name.split(".trace")[0]
        return EnginePoint(self.config, (f"trace.file={json.dumps(self.trace)}", f"network.nodes={self.nodes}",
                                         f"trace.placement={json.dumps(self.placement)}",
                                         f"nic.security={json.dumps(security)}", *self.card, *overrides),
                           label=f"{name}_{security}")

    def run(self, points: list[EnginePoint], label: str, quiet: bool = True) -> list[dict]:
        """Each point's record, run now or read back from the folder's store."""
        self.folder.mkdir(parents=True, exist_ok=True)
        return run_points(points, functools.partial(replay_record, str(self.folder)), store=self.folder / STORE_NAME,
                          quiet=quiet, label=label, key=point_identity)


def replay_record(folder: str, point: EnginePoint) -> dict:
    """Run one point into `folder`: its flat row, and its stack distances and shadow caches when it kept them
    (module level, so that it can be sent to another process)."""
    run = point.run(Path(folder))
    record = run.row()
    for section in (STACK_DISTANCES_SECTION, SHADOW_CACHES_SECTION):
        if section in run.result:
            record[section] = run.result[section]
    return record


def execution_time_ns(record: dict) -> float:
    return float(record["replay_simulated_execution_time_ns"])
