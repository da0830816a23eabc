"""Synthetic NAS-style and SPECjbb2000-style traces in the ibsec trace format.

Every trace made here is synthetic and says so in its header (`origin
synthetic ...`). The NAS generators make the MPI calls of the NPB 3.4 programs
(docs/workloads.md); their compute gaps and times come from a machine model
calibrated on captures of those programs (machine.py), played by the
timeline (timeline.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from ..errors import ConfigError
from ..numeric import whole_number
from . import bt, cg, ft, jbb, lu, mg, sp
from .common import CLASSES, TABLE1_SECONDS, Params, Workload
from .timeline import Timeline, TimelineStats
from .writer import check_output_name, header_text, write_trace

# `processes N` of the trace format (docs/trace-format.md): the most ranks a trace can have.
MAX_PROCESSES = 1 << 20

BENCHMARKS: dict[str, ModuleType] = {m.NAME: m for m in (cg, mg, lu, sp, bt, ft, jbb)}

__all__ = ["BENCHMARKS", "CLASSES", "TABLE1_SECONDS", "Params", "Workload", "GenerationResult",
           "make_params", "build", "generate", "original_duration"]


def make_params(bench: str, procs: int = 16, cls: str = "A", scale: float = 1.0, seed: int = 1) -> Params:
    """Check the arguments of a generation; ConfigError names the option at fault."""
    name = str(bench).strip().upper()
    if name not in BENCHMARKS:
        raise ConfigError("BENCH", f"unknown benchmark {bench!r} (known: {', '.join(BENCHMARKS)})")
    cls = str(cls).strip().upper()
    if cls not in CLASSES:
        raise ConfigError("--class", f"unknown class {cls!r} (known: {', '.join(CLASSES)})")
    procs = whole_number(procs, "--procs", minimum=1, maximum=MAX_PROCESSES)
    problem = BENCHMARKS[name].procs_problem(procs) or _size_problem(name, procs, cls)
    if problem:
        raise ConfigError("--procs", f"{problem}, got {procs}")
    if not (0.0 < scale <= 1.0):
        raise ConfigError("--scale", f"must be in (0, 1], got {scale!r}")
    seed = whole_number(seed, "--seed")
    return Params(name, procs, cls, float(scale), seed)


def _size_problem(name: str, procs: int, cls: str) -> str | None:
    check = getattr(BENCHMARKS[name], "class_problem", None)
    return check(procs, cls) if check else None


def build(params: Params) -> Workload:
    return BENCHMARKS[params.bench].build(params)


@dataclass
class GenerationResult:
    path: Path
    params: Params
    iterations: int
    full_iterations: int
    stats: TimelineStats
    seconds: float

    @property
    def original_seconds(self) -> float:
        return self.stats.duration_ns * 1e-9


def generate(params: Params, out: str | Path) -> GenerationResult:
    """Write the trace for `params` to `out` (text; gzipped if it ends in .gz)."""
    check_output_name(out)
    began = time.perf_counter()
    workload = build(params)
    header = header_text(params.procs, f"origin synthetic {params.command()}", workload.notes, workload.comms)
    timeline = Timeline(workload.programs, machine=workload.machine, comms=workload.comms)
    write_trace(out, header, timeline.lines())
    return GenerationResult(Path(out), params, workload.iterations, workload.full_iterations, timeline.stats,
                            time.perf_counter() - began)


def original_duration(params: Params) -> TimelineStats:
    """Play the workload on the timeline without writing it: its statistics and duration."""
    workload = build(params)
    return Timeline(workload.programs, machine=workload.machine, comms=workload.comms, record=False).run()
