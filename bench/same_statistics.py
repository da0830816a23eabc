"""Checks that a speed-up changes no result where the goldens do not look (tests/golden covers neither more than
two virtual lanes, virtual output queues, oldest-first arbitration, a crossbar speedup, a torus's lane classes,
nor adaptive routing under load): runs each case below with two engines and compares every statistic and the
latency histogram. Exits 1 on a difference, naming the case and the first statistics that differ.

Run: .venv/bin/python bench/same_statistics.py --before ENGINE --after ENGINE [--messages 20000]
(copy build/ibsec-engine aside before the change to have a `before`.) About 10 s.
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_model import built_fat_tree  # beside this script

K4_3_TREE = ["network.topology=fat-tree", "network.fat_tree.k=4", "network.fat_tree.n=3"]
CASES = {
    "k=4 3-tree, 4 lanes, VOQ, oldest-first, speedup 2, load 0.9": K4_3_TREE + [
        "traffic.load=0.9", "network.virtual_lanes=4", "network.switch_buffers=voq",
        "network.switch_arbitration=oldest-first", "network.switch_speedup=2"],
    "k=4 3-tree, 3 lanes, load 0.9": K4_3_TREE + ["traffic.load=0.9", "network.virtual_lanes=3"],
    "4x4x4 torus, 15 lanes, load 0.8": ["network.topology=torus", "network.torus.dims=4x4x4", "traffic.load=0.8",
                                        "network.virtual_lanes=15"],
    "3-level radix-16 tree, minimal adaptive, load 0.5": built_fat_tree(16, 3, 1024) + [
        "network.adaptive_routing=minimal", "traffic.load=0.5"],
    "dragonfly+, UGAL, SKC-6, load 0.7": ["network.topology=dragonfly-plus", "network.adaptive_routing=ugal",
                                          "network.virtual_lanes=2", "nic.security=SKC-6", "traffic.load=0.7"],
}


def run(engine: str, overrides: list[str], messages: int, out: Path) -> dict:
    command = [engine, "run", "--quiet", "--out", str(out), "--set", f"traffic.messages={messages}"]
    for item in overrides:
        command += ["--set", item]
    subprocess.run(command, check=True)
    result = json.loads(out.read_text())
    return {"statistics": result["statistics"], "latency_histogram_ns": result["latency_histogram_ns"]}


def differences(before: dict, after: dict) -> list[str]:
    names = sorted(set(before["statistics"]) | set(after["statistics"]))
    changed = [n for n in names if before["statistics"].get(n) != after["statistics"].get(n)]
    if before["latency_histogram_ns"] != after["latency_histogram_ns"]:
        changed.append("latency_histogram_ns")
    return changed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="the engine before the change")
    parser.add_argument("--after", default="build/ibsec-engine", help="the engine after it (default: %(default)s)")
    parser.add_argument("--messages", type=int, default=20_000, help="messages per run (default: %(default)s)")
    args = parser.parse_args()
    for engine in (args.before, args.after):
        if not Path(engine).is_file():
            raise SystemExit(f"same_statistics: no engine at {engine}")
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for name, overrides in CASES.items():
            before = run(args.before, overrides, args.messages, Path(tmp) / "before.json")
            after = run(args.after, overrides, args.messages, Path(tmp) / "after.json")
            changed = differences(before, after)
            print(f"{name}: {'the same' if not changed else 'DIFFERENT: ' + ', '.join(changed[:5])}"
                  f" ({len(before['statistics'])} statistics)")
            failed |= bool(changed)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
