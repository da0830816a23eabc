"""Time of `ibsec analytic fit` on one trace: reading it (the engine decodes binary/zstd into a pipe), cutting
the sessions into ON/OFF periods and fitting four families to each. The budget is 10 s for NPB LU class A on
16 processes (760 000 messages); the shipped traces stop at class W for LU (1.9 million events, 460 000
messages), so without an argument the bench fits that, the largest shipped trace. Capture class A with
`ibsec trace capture-npb lu --class A --procs 16 --compression zst` and pass it.

Wall time depends on what else the machine runs; CPU time (this process and the engine it starts) does not.

Run: PYTHONPATH=analytics .venv/bin/python bench/bench_fit.py [TRACE]
"""

import resource
import sys
import time
from pathlib import Path

from ibsec.models import onoff_fit

BUDGET_S = 10.0
LARGEST_SHIPPED = Path(__file__).resolve().parents[1] / "analytics/ibsec/data/npb/lu.W.16.trace.zst"


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> int:
    trace = Path(sys.argv[1]) if len(sys.argv) > 1 else LARGEST_SHIPPED
    wall, cpu = time.perf_counter(), cpu_seconds()
    result = onoff_fit.fit_trace(trace)
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    periods = result.periods
    print(f"{trace.name}: {periods.sessions} sessions, {periods.on_ms.size} ON and {periods.off_ms.size} OFF "
          f"periods, {int(periods.lookups_per_on.sum())} look-ups")
    print(f"fit: {wall:.2f} s wall, {cpu:.2f} s CPU (with the engine's decoding); budget {BUDGET_S:.0f} s: "
          f"{'within' if wall < BUDGET_S else 'over'} (wall), {'within' if cpu < BUDGET_S else 'over'} (CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
