"""What the per-component statistics (sim.detail) cost: instructions and wall time of one run.

Compares this engine with sim.detail=none (the default), the same with
sim.detail=all, and optionally a baseline engine built from a commit without
the per-component counters (--baseline), on the same configuration and seed.
Instructions are counted by valgrind's callgrind (exact and repeatable: the
figure to compare); wall time is the engine's own --perf-json figure
(simulation only), the median of --repeat runs.

Run: .venv/bin/python bench/bench_detail_cost.py [--baseline OTHER/ibsec-engine] [--messages 20000] [--set KEY=VALUE]
"""

import argparse
import json
import re
import statistics
import subprocess
import tempfile
from pathlib import Path


def instructions(command: list[str]) -> int:
    """Instructions the command executes, as callgrind counts them."""
    completed = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
                               capture_output=True, text=True, check=True)
    return int(re.search(r"Collected : (\d+)", completed.stderr).group(1))


def wall_seconds(command: list[str], perf: Path, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        subprocess.run([*command, "--perf-json", str(perf)], check=True)
        times.append(json.loads(perf.read_text())["wall_seconds"])
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", default="build/ibsec-engine")
    parser.add_argument("--baseline", help="an engine without the per-component counters, to compare with")
    parser.add_argument("--config", default="configs/paper-16.json")
    parser.add_argument("--messages", type=int, help="traffic.messages (default: the config's)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override (repeatable)")
    parser.add_argument("--repeat", type=int, default=5, help="wall-time runs per case, median (default: %(default)s)")
    args = parser.parse_args()
    overrides = [] if args.messages is None else ["--set", f"traffic.messages={args.messages}"]
    for item in args.set:
        overrides += ["--set", item]
    cases = [("this engine, sim.detail=none", args.engine, []),
             ("this engine, sim.detail=all", args.engine, ["--set", "sim.detail=all"])]
    if args.baseline:
        cases.insert(0, ("baseline engine", args.baseline, []))
    print(f"{'case':<32} {'instructions':>15} {'vs first':>9} {'wall s':>8}")
    first = None
    with tempfile.TemporaryDirectory() as tmp:
        for name, engine, extra in cases:
            command = [engine, "run", args.config, "--quiet", "--out", str(Path(tmp) / "run.json"), *overrides, *extra]
            counted = instructions(command)
            first = first or counted
            wall = wall_seconds(command, Path(tmp) / "perf.json", args.repeat)
            print(f"{name:<32} {counted:>15,} {counted / first:>9.4f} {wall:>8.3f}", flush=True)


if __name__ == "__main__":
    main()
