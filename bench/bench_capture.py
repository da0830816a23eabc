"""The capture library's cost on real programs: NPB's own timed section ("Time in seconds", which excludes
start-up and MPI_Finalize, where the library writes the trace) with and without libibsec_capture preloaded,
run back to back in alternation so that both see the same machine.

Run: .venv/bin/python bench/bench_capture.py [--bench cg --bench mg ...] [--class A] [--procs 2] [--repeat 5]
     .venv/bin/python bench/bench_capture.py --cpu-clock ...   # the library without CPU times against with them

--cpu-clock compares two runs under the library: IBSEC_CAPTURE_CPU_CLOCK=none (wall clock only, as before
trace format version 3) against the default thread CPU-time clock, read at every recorded call.

The processes should not outnumber the cores, or the host's time slicing swamps the difference.
"""

import argparse
import re
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analytics"))

TIMED = re.compile(r"Time in seconds\s*=\s*([0-9.]+)")


def timed_seconds(npb, bench: str, cls: str, procs: int, workdir: Path, env: dict[str, str] | None) -> float:
    from ibsec.capture.npb import run

    done = run(npb, bench, cls, procs, workdir, env=env)
    if not done.verification:
        raise SystemExit(f"{bench}.{cls}: NPB did not verify its result")
    return float(TIMED.search(done.stdout).group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", action="append", help="NPB benchmarks (default: cg mg ft is lu)")
    parser.add_argument("--class", dest="cls", default="A", help="problem class (default: %(default)s)")
    parser.add_argument("--procs", type=int, default=2, help="MPI processes (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each, alternating (default: %(default)s)")
    parser.add_argument("--cache", default="build/npb", help="NPB build cache (default: %(default)s)")
    parser.add_argument("--cpu-clock", action="store_true",
                        help="compare the library without CPU times (none) against with them (thread)")
    args = parser.parse_args()
    from ibsec.capture.mpi import capture_library
    from ibsec.capture.npb import build

    benches = args.bench or ["cg", "mg", "ft", "is", "lu"]
    library = capture_library()
    npb = build([(b, args.cls) for b in benches], Path(args.cache))
    before, after = ("capture, no CPU times", "capture, thread CPU time") if args.cpu_clock else \
        ("without", "with capture")
    print(f"| NPB {args.cls}, {args.procs} processes | {before} (s, min / median) | {after} (s, min / median) "
          f"| overhead (median) |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for bench in benches:
            plain, captured = [], []
            for i in range(args.repeat):
                env = {"LD_PRELOAD": library, "IBSEC_TRACE": str(Path(tmp) / f"{bench}.{i}.trace.zst")}
                baseline = {**env, "IBSEC_CAPTURE_CPU_CLOCK": "none"} if args.cpu_clock else None
                plain.append(timed_seconds(npb, bench, args.cls, args.procs, Path(tmp) / "plain", baseline))
                captured.append(timed_seconds(npb, bench, args.cls, args.procs, Path(tmp) / "captured", env))
            a, b = statistics.median(plain), statistics.median(captured)
            print(f"| {bench.upper()} | {min(plain):.3f} / {a:.3f} | {min(captured):.3f} / {b:.3f} | "
                  f"{(b / a - 1) * 100:+.1f} % |", flush=True)


if __name__ == "__main__":
    main()
