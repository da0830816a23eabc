"""The default workload set: the seven traces the main job replays.

Class A on 16 processes, as in the paper, with each benchmark's iteration
count scaled so that a trace holds roughly 50 000 - 300 000 packets of 256
bytes: enough to warm the key caches and see steady behaviour, small enough
for the cycle-level model. Every trace holds the benchmark's whole run (input
bcasts, set-up, the untimed warm-up iteration, verification) around its
scaled time steps. FT and MG are the exceptions: one class-A transpose alone
is about 490 000 packets, and MG's class-A run without any timed iteration
(set-up, two zran3, the warm-up V-cycle) already about 410 000, so both use
class W, whole (the paper, too, ran FT on a full-system simulator, not at
class A on the real machine).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..output.files import write_text_output
from . import GenerationResult, generate, make_params

PROCS = 16


@dataclass(frozen=True)
class DefaultTrace:
    bench: str
    cls: str
    scale: float

    @property
    def file_name(self) -> str:
        return f"{self.bench.lower()}.trace.gz"


DEFAULT_SET = (
    DefaultTrace("CG", "A", 0.07),  # 1 of 15 iterations
    DefaultTrace("MG", "W", 1.0),  # all 4 iterations of class W
    DefaultTrace("LU", "A", 0.02),  # 5 of 250
    DefaultTrace("SP", "A", 0.005),  # 2 of 400
    DefaultTrace("BT", "A", 0.01),  # 2 of 200
    DefaultTrace("FT", "W", 1.0),  # all 6 iterations of class W
    DefaultTrace("JBB", "A", 0.02),  # 300 of 15 000 transactions per warehouse
)

INDEX_NAME = "workloads.csv"
INDEX_COLUMNS = ["file", "bench", "procs", "class", "scale", "seed", "iterations", "full_iterations", "events",
                 "application_messages", "self_messages", "message_bytes", "collective_calls", "packets_256B",
                 "original_s"]


def index_row(result: GenerationResult) -> dict:
    p, s = result.params, result.stats
    return {"file": result.path.name, "bench": p.bench, "procs": p.procs, "class": p.cls, "scale": f"{p.scale:g}",
            "seed": p.seed, "iterations": result.iterations, "full_iterations": result.full_iterations,
            "events": s.events, "application_messages": s.application_messages, "self_messages": s.self_messages,
            "message_bytes": s.message_bytes, "collective_calls": s.collective_calls, "packets_256B": s.packets,
            "original_s": f"{result.original_seconds:.6f}"}


def generate_default(out_dir: str | Path, seed: int = 1,
                     progress: Callable[[GenerationResult], None] | None = None) -> list[GenerationResult]:
    """Write the default set and its index (workloads.csv) into out_dir."""
    out = Path(out_dir)
    results = []
    for item in DEFAULT_SET:
        result = generate(make_params(item.bench, PROCS, item.cls, item.scale, seed), out / item.file_name)
        results.append(result)
        if progress:
            progress(result)
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=INDEX_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(index_row(r) for r in results)
    write_text_output(out / INDEX_NAME, text.getvalue())
    return results
