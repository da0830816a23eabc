"""Fitting the NAS generators' machine model (machine.py) to real captures.

A generator makes the same MPI calls as the NPB program, in the same order
(compare.py checks it), so the compute gap a capture recorded before each
call can be set against the work the generator puts before the same call.
With the generator's costs set to one unit at a time (jitter off), walking
both per process gives, for every call j, the real gap R_j, the iteration
work I_j and the set-up work S_j in the generator's units. Then

- call gap c: the mean R_j over the calls with no work before them
  (I_j = S_j = 0: an irecv right after a send, ...) that pay the gap (all
  but the second and later waits of a waitall, which a capture records
  back to back);
- iteration cost a: sum(R_j - c) / sum(I_j) over the calls preceded by
  iteration work only;
- set-up cost b: sum(R_j - c - a I_j) / sum(S_j) over the calls preceded by
  set-up work.

The gaps' spread (machine.GAP_NOISE): with those constants, the standard
deviation of log(R_j / model gap) over the calls whose model gap is not
zero, apart for model gaps shorter than machine.LONG_GAP_NS and longer; the
generators draw each gap's noise from a log-normal with that spread (the
medians over all captures).

Ratios of sums, not a least-squares fit: the gaps have a heavy tail (a
process descheduled in the middle of a gap), and a sum keeps that time where
it was spent. Each class keeps its own (a, b, c): on the two-core machine a
unit of work costs more in the larger classes (their phases outlast a
scheduler time slice, so they share the cores with the 15 other processes,
and their data leave the caches), by up to 15 times from S to A for MG.

The blocking-call delay (machine.BLOCK_NS): with those costs, each full
generated trace is played on the timeline with the shared-memory machine
and a few delays; its original duration grows almost linearly with the
delay, and the secant method finds the one at which it lasts as long as the
capture.

    python -m ibsec.workloads.calibrate DIR [--bench CG ...] [--classes S W A] [--block]

DIR holds the captures as BENCH.CLASS.trace (or .trace.gz; any case), 16
processes each.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from ..traces.reader import open_trace
from .machine import Costs
from .timeline import COMPUTE, Machine, Timeline

BENCHES = ("CG", "MG", "LU", "SP", "BT", "FT")
PROCS = 16


def find_capture(folder: Path, bench: str, cls: str) -> Path | None:
    for path in sorted(folder.iterdir()):
        name = path.name.lower()
        if name in (f"{bench.lower()}.{cls.lower()}.trace", f"{bench.lower()}.{cls.lower()}.trace.gz"):
            return path
    return None


# ---- gaps: real and generated ------------------------------------------------------------------

def real_gaps(path: Path, processes: int = PROCS) -> list[array]:
    """Per process: the compute before each MPI call, and after the last one (the final entry): the CPU time of
    the compute events where the capture measured it (trace format version 3), else their wall time."""
    gaps = [array("q") for _ in range(processes)]
    pending = [0] * processes
    with open_trace(path) as trace:
        for event in trace.events():
            rank = event.rank
            if event.op.role == "compute":
                pending[rank] += event.number("cpu") if event.args else event.end - event.start
            else:
                gaps[rank].append(pending[rank])
                pending[rank] = 0
    for rank in range(processes):
        gaps[rank].append(pending[rank])
    return gaps


def op_gaps(ops: Iterator[tuple]) -> array:
    """The same for one generated process's operations: compute (work units) before each call."""
    gaps = array("d")
    pending = 0.0
    for op in ops:
        if op[0] == COMPUTE:
            pending += op[1]
        else:
            gaps.append(pending)
            pending = 0.0
    gaps.append(pending)
    return gaps


UNIT = 1_000_000  # compute ops are whole ns: one unit of work is charged as this many, then scaled back


def generated_units(bench: str, cls: str, costs: Costs) -> list[array]:
    """Per process, the generator's work before each call, in units of the one cost set to 1."""
    from . import BENCHMARKS, make_params

    params = make_params(bench, PROCS, cls, 1.0, 1)
    scaled_costs = Costs(costs.iteration_ns * UNIT, costs.setup_ns * UNIT, costs.call_gap_ns * UNIT)
    workload = BENCHMARKS[bench].build(params, scaled_costs, jitter=0.0)
    out = []
    for program in workload.programs:
        gaps = op_gaps(program)
        out.append(array("d", (g / UNIT for g in gaps)))
    return out


# ---- the compute fit ----------------------------------------------------------------------------

@dataclass
class ComputeFit:
    bench: str
    cls: str
    call_gap_ns: float
    iteration_ns: float
    setup_ns: float
    calls: int  # that pay the call gap
    real_compute_ns: float  # mean per process
    iteration_units: float  # mean per process
    setup_units: float
    log_spread: float | None = None  # standard deviation of log(real gap / model gap), short gaps
    long_log_spread: float | None = None  # the same for gaps of machine.LONG_GAP_NS or more (None: no such gap)

    def model_compute_ns(self, costs: Costs) -> float:
        """Mean compute per process the generator gives with these costs."""
        return (costs.call_gap_ns * self.calls / PROCS + costs.iteration_ns * self.iteration_units
                + costs.setup_ns * self.setup_units)


def fit_compute(bench: str, cls: str, capture: Path) -> ComputeFit:
    real = real_gaps(capture)
    iteration = generated_units(bench, cls, Costs(1.0, 0.0))
    setup = generated_units(bench, cls, Costs(0.0, 1.0))
    paying = generated_units(bench, cls, Costs(0.0, 0.0, 1.0))
    for rank, (r, i) in enumerate(zip(real, iteration, strict=True)):
        if len(r) != len(i):
            raise ValueError(f"{capture}: process {rank} makes {len(r) - 1} MPI calls, the generator "
                             f"{len(i) - 1}: compare the traces first (python -m ibsec.workloads.compare)")
    def calls():
        for rr, ii, ss in zip(real, iteration, setup, strict=True):
            yield from zip(rr, ii, ss, strict=True)

    idle = [r for (r, i, s), g in zip(calls(), (g for gg in paying for g in gg), strict=True)
            if i == 0 and s == 0 and g > 0]
    c = sum(idle) / len(idle) if idle else 0.0
    work = sum(r - c for r, i, s in calls() if i > 0 and s == 0), sum(i for _, i, s in calls() if i > 0 and s == 0)
    a = max(0.0, work[0] / work[1]) if work[1] else 0.0
    started = (sum(r - c - a * i for r, i, s in calls() if s > 0), sum(s for *_, s in calls() if s > 0))
    b = max(0.0, started[0] / started[1]) if started[1] else 0.0
    count = int(sum(sum(g) for g in paying) + 0.5)
    real_total = sum(r for r, _, _ in calls())
    units = sum(i for _, i, _ in calls()), sum(s for *_, s in calls())
    from .machine import LONG_GAP_NS

    def gaps():
        pays = (g for gg in paying for g in gg)
        return ((r, c * g + a * i + b * s) for (r, i, s), g in zip(calls(), pays, strict=True))

    short = log_spread((r, m) for r, m in gaps() if m < LONG_GAP_NS)
    long = log_spread((r, m) for r, m in gaps() if m >= LONG_GAP_NS)
    return ComputeFit(bench, cls, c, a, b, count, real_total / PROCS, units[0] / PROCS, units[1] / PROCS,
                      short, long)


def log_spread(pairs) -> float | None:
    """Standard deviation of log(real / model) over (real, model) pairs both positive (Welford); None if none."""
    n, mean, m2 = 0, 0.0, 0.0
    for real, model in pairs:
        if real > 0 and model > 0:
            x = math.log(real / model)
            n += 1
            delta = x - mean
            mean += delta / n
            m2 += delta * (x - mean)
    return math.sqrt(m2 / n) if n else None


# ---- the blocking-call delay ----------------------------------------------------------------------

def played_seconds(bench: str, cls: str, costs: Costs, machine: Machine) -> float:
    """The original duration of a full generated trace (seed 1) with these costs on `machine`."""
    from . import BENCHMARKS, make_params

    workload = BENCHMARKS[bench].build(make_params(bench, PROCS, cls, 1.0, 1), costs)
    return Timeline(workload.programs, machine=machine, comms=workload.comms, record=False).run().duration_ns * 1e-9


def fit_block(bench: str, cls: str, costs: Costs, real_s: float, base: Machine, rounds: int = 3) -> tuple[int, float]:
    """The block_ns at which the generated run lasts as long as the real one, by the secant method
    (the duration grows almost linearly with it); and the generated duration there."""
    x0, y0 = 0, played_seconds(bench, cls, costs, replace(base, block_ns=0))
    x1 = 100_000
    y1 = played_seconds(bench, cls, costs, replace(base, block_ns=x1))
    for _ in range(rounds):
        if y1 == y0:
            break
        x2 = max(0, round(x1 + (real_s - y1) * (x1 - x0) / (y1 - y0), -2))
        x0, y0 = x1, y1
        x1, y1 = x2, played_seconds(bench, cls, costs, replace(base, block_ns=x2))
    return int(x1), y1


# ---- the command ---------------------------------------------------------------------------------

def real_seconds(capture: Path) -> float:
    from .compare import summarize

    return summarize(capture).duration_s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ibsec.workloads.calibrate",
                                     description="Fit the NAS generators' machine model to real captures.")
    parser.add_argument("folder", type=Path, help="captures named BENCH.CLASS.trace[.gz], 16 processes")
    parser.add_argument("--bench", nargs="*", default=list(BENCHES))
    parser.add_argument("--classes", nargs="*", default=["S", "W", "A"])
    parser.add_argument("--block", action="store_true",
                        help="also fit the blocking-call delay (plays every generated trace 4 times)")
    args = parser.parse_args(argv)
    costs: dict[tuple[str, str], Costs] = {}
    captures = {}
    print("| benchmark | class | calls | call gap (ns) | iteration (ns/unit) | set-up (ns/unit) | "
          "real compute / process (s) | spread of log gap: short, long |")
    print("|---|---|---|---|---|---|---|---|")
    spreads, long_spreads = [], []
    for bench in args.bench:
        for cls in args.classes:
            capture = find_capture(args.folder, bench, cls)
            if capture is None:
                continue
            captures[(bench, cls)] = capture
            f = fit_compute(bench, cls, capture)
            costs[(bench, cls)] = Costs(round(f.iteration_ns, 3), round(f.setup_ns, 3), round(f.call_gap_ns))
            spreads += [f.log_spread] if f.log_spread is not None else []
            long_spreads += [f.long_log_spread] if f.long_log_spread is not None else []
            shown = ", ".join("-" if x is None else f"{x:.2f}" for x in (f.log_spread, f.long_log_spread))
            print(f"| {bench} | {cls} | {f.calls} | {f.call_gap_ns:.0f} | {f.iteration_ns:.3f} | {f.setup_ns:.3f} | "
                  f"{f.real_compute_ns * 1e-9:.4f} | {shown} |", flush=True)
    if spreads and long_spreads:
        print(f"\nGAP_NOISE: jitter {statistics.median(spreads):.2f}, "
              f"long_jitter {statistics.median(long_spreads):.2f} (the medians)")
    print("\nfor machine.py:")
    for (bench, cls), c in costs.items():
        print(f'    ("{bench}", "{cls}"): Costs({c.iteration_ns}, {c.setup_ns}, {c.call_gap_ns}),')
    if args.block:
        from .machine import SHARED_MEMORY

        print("\nfor machine.py (BLOCK_NS):")
        for (bench, cls), capture in captures.items():
            real_s = real_seconds(capture)
            block, played = fit_block(bench, cls, costs[(bench, cls)], real_s, SHARED_MEMORY)
            print(f'    ("{bench}", "{cls}"): {block},  # real {real_s:.3f} s, generated {played:.3f} s', flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
