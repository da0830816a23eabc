"""Speed and memory at scale (docs/performance.md, "Speed at scale"), uniform traffic at load 0.1, 256-byte
messages, NoSecurity unless --security says otherwise:

- rates: packets per second of a 16-node single switch and of three 1 024-node fabrics (a 4-ary 5-tree, a
  dragonfly+ of 8 groups, a 3-level 2:1 tapered tree of 24-port switches), each 1 024-node rate also as a
  fraction of the 16-node rate measured in the same run;
- memory: peak memory per node of a 3-level fat tree and of a dragonfly+ at 1 024, 4 096, 16 384 and 65 536
  nodes, 200 000 messages each.

Run: .venv/bin/python bench/bench_scale.py [--only rates|memory] [--messages 200000] [--repeat 3]
     [--security NoSecurity] [--engine build/ibsec-engine] [--out scale.csv]
Each case is one `ibsec-engine run`; packets per second and peak memory are the engine's own (--perf-json:
simulation wall time after argument parsing; peak resident set). --repeat N runs the rate cases N times in turn
and keeps each one's median, so that machine load hits every case alike.
"""

import argparse
import statistics
from pathlib import Path

from bench_model import (  # beside this script
    TREE_4_ARY_5,
    built_fat_tree,
    refuse_existing_output,
    run_case,
    write_new_csv,
)

SINGLE_SWITCH_16 = []
TAPERED_3_LEVEL = ["network.topology=fat-tree-built", "network.nodes=1024", "network.fat_tree_built.radix=24",
                   "network.fat_tree_built.levels=3", 'network.fat_tree_built.taper="2:1"']


def dragonfly(groups: int, leaves: int, spines: int, per_leaf: int, global_links: int, nodes: int) -> list[str]:
    return ["network.topology=dragonfly-plus", f"network.dragonfly_plus.groups={groups}",
            f"network.dragonfly_plus.leaves={leaves}", f"network.dragonfly_plus.spines={spines}",
            f"network.dragonfly_plus.nodes_per_leaf={per_leaf}",
            f"network.dragonfly_plus.global_links={global_links}", f"network.nodes={nodes}"]


RATE_CASES = {
    "16 nodes, single switch": SINGLE_SWITCH_16,
    "1 024 nodes, 4-ary 5-tree": TREE_4_ARY_5,
    "1 024 nodes, dragonfly+ (8 groups of 8+8)": dragonfly(8, 8, 8, 16, 7, 1024),
    "1 024 nodes, 3-level 2:1 tapered tree (radix 24)": TAPERED_3_LEVEL,
}
# Radix-64 switches where the size allows (a 3-level tree of radix r holds r^3/4 nodes).
MEMORY_CASES = {
    "3-level fat tree": {1024: built_fat_tree(16, 3, 1024), 4096: built_fat_tree(26, 3, 4096),
                         16384: built_fat_tree(42, 3, 16384), 65536: built_fat_tree(64, 3, 65536)},
    "dragonfly+": {1024: dragonfly(8, 8, 8, 16, 7, 1024), 4096: dragonfly(17, 16, 16, 16, 1, 4096),
                   16384: dragonfly(17, 32, 32, 32, 1, 16384), 65536: dragonfly(65, 32, 32, 32, 32, 65536)},
}


def traffic(args) -> list[str]:
    return [f"nic.security={args.security}", "traffic.load=0.1", f"traffic.messages={args.messages}",
            "traffic.warmup_messages=0"]


def rates(args) -> list[dict]:
    runs = {name: [] for name in RATE_CASES}
    for _ in range(args.repeat):
        for name, fabric in RATE_CASES.items():
            _, perf = run_case(args.engine, fabric + traffic(args))
            runs[name].append(perf)
    base = statistics.median(p["packets_per_second"] for p in runs["16 nodes, single switch"])
    rows = []
    for name, perfs in runs.items():
        rate = statistics.median(p["packets_per_second"] for p in perfs)
        rows.append({"case": name, "packets_per_second": round(rate), "of_16_node_rate": round(rate / base, 3),
                     "peak_rss_mib": round(max(p["peak_rss_mib"] for p in perfs), 1)})
    return rows


def memory(args) -> list[dict]:
    rows = []
    for topology, sizes in MEMORY_CASES.items():
        for nodes, fabric in sizes.items():
            _, perf = run_case(args.engine, fabric + traffic(args))
            rows.append({"case": f"{topology}, {nodes} nodes", "packets_per_second": round(perf["packets_per_second"]),
                         "peak_rss_mib": round(perf["peak_rss_mib"], 1),
                         "kib_per_node": round(perf["peak_rss_mib"] * 1024 / nodes, 1),
                         "wall_seconds": round(perf["wall_seconds"], 2)})
            print(f"  {rows[-1]}", flush=True)
    return rows


def print_table(rows: list[dict]):
    columns = list(dict.fromkeys(key for row in rows for key in row))
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row.get(c, "")) for c in columns) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["rates", "memory"], help="run one of the two parts")
    parser.add_argument("--messages", type=int, default=200_000, help="messages per run (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each rate case (default: %(default)s)")
    parser.add_argument("--security", default="NoSecurity", help="card configuration (default: %(default)s)")
    parser.add_argument("--engine", default="build/ibsec-engine")
    parser.add_argument("--out", type=Path, help="CSV to write (default: none)")
    args = parser.parse_args()
    refuse_existing_output(args.out)
    rows = []
    if args.only != "memory":
        rows += rates(args)
    if args.only != "rates":
        rows += memory(args)
    print_table(rows)
    if args.out:
        write_new_csv(args.out, rows)


if __name__ == "__main__":
    main()
