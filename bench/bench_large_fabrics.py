"""1 024 nodes on each fabric of docs/topology.md: a full fat tree, a 2:1 tapered fat tree as built, dragonfly+ and a
3-D torus, under uniform traffic and under the generator's NAS CG trace at 256 ranks, with NoSecurity and SKC-16
cards. Per case: mean packet latency, execution time (the simulated time of the run), out-of-order packets,
simulator packets per second of simulation wall time and peak memory (the engine's --perf-json), written as CSV
and printed as a Markdown table (docs/network.md, "1 024 nodes").

Run: .venv/bin/python bench/bench_large_fabrics.py [--messages 200000] [--cg-scale 0.05] [--out large-fabrics.csv]
     [--engine build/ibsec-engine] [--only torus]
The CG trace is written once by `ibsec trace gen CG --procs 256` into a temporary folder; its 256 ranks are placed
cyclically (rank r on node r) on the 1 024 nodes.
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_model import refuse_existing_output, run_case, write_new_csv  # beside this script

# Every fabric 1 024 nodes, as docs/topology.md names its keys.
TAPERED = ["network.topology=fat-tree-built", "network.nodes=1024", "network.fat_tree_built.radix=48",
           "network.fat_tree_built.levels=2", 'network.fat_tree_built.taper="2:1"']
DRAGONFLY = ["network.topology=dragonfly-plus", "network.dragonfly_plus.groups=8", "network.dragonfly_plus.leaves=8",
             "network.dragonfly_plus.spines=8", "network.dragonfly_plus.nodes_per_leaf=16",
             "network.dragonfly_plus.global_links=7"]
ADAPTIVE = ["network.adaptive_routing=minimal"]
FABRICS = {
    "full fat tree (32-ary 2-tree)": ["network.topology=fat-tree", "network.fat_tree.k=32", "network.fat_tree.n=2"],
    "2:1 tapered fat tree (radix 48, 2 levels)": TAPERED,
    "2:1 tapered fat tree, adaptive": TAPERED + ADAPTIVE,
    "dragonfly+ minimal (8 groups of 8+8)": DRAGONFLY,
    "dragonfly+ adaptive (minimal ports)": DRAGONFLY + ADAPTIVE,
    "dragonfly+ UGAL (2 lanes)": DRAGONFLY + ["network.adaptive_routing=ugal", "network.virtual_lanes=2"],
    "3-D torus (8x8x8, 2 nodes a switch)": ["network.topology=torus", 'network.torus.dims="8x8x8"',
                                            "network.torus.nodes_per_switch=2", "network.virtual_lanes=2"],
}
SECURITY = ["NoSecurity", "SKC-16"]
COLUMNS = ["fabric", "traffic", "security", "latency_mean_ns", "execution_us", "out_of_order_packets",
           "packets_delivered", "packets_per_second", "peak_rss_mib", "wall_seconds"]


def measure(engine: str, overrides: list[str]) -> dict:
    stats, timing = run_case(engine, overrides)
    return {"latency_mean_ns": stats["packet_latency_mean_ns"], "execution_us": stats["simulated_time_us"],
            "out_of_order_packets": stats["out_of_order_packets"], "packets_delivered": stats["packets_delivered"],
            "packets_per_second": timing["packets_per_second"], "peak_rss_mib": timing["peak_rss_mib"],
            "wall_seconds": timing["wall_seconds"]}


def cg_trace(folder: Path, scale: float) -> Path:
    trace = folder / "cg-256.trace.gz"
    ibsec = Path(sys.executable).parent / "ibsec"  # the CLI installed beside this interpreter
    subprocess.run([str(ibsec), "trace", "gen", "CG", "--procs", "256", "--class", "A",
                    "--scale", str(scale), "--out", str(trace)], check=True, stdout=subprocess.DEVNULL)
    return trace


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=200_000,
                        help="uniform traffic: messages offered over all nodes (default: %(default)s)")
    parser.add_argument("--load", default="0.1", help="uniform traffic: offered load (default: %(default)s)")
    parser.add_argument("--cg-scale", type=float, default=0.05,
                        help="the CG trace's share of class A's iterations (default: %(default)s)")
    parser.add_argument("--engine", default="build/ibsec-engine")
    parser.add_argument("--out", type=Path, help="CSV to write (default: none)")
    parser.add_argument("--only", help="run only the fabrics whose name contains this text")
    args = parser.parse_args()
    refuse_existing_output(args.out)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        cg = json.dumps(str(cg_trace(Path(tmp), args.cg_scale)))
        traffics = {
            f"uniform, load {args.load}": [f"traffic.load={args.load}", f"traffic.messages={args.messages}",
                                           "traffic.warmup_messages=0"],
            f"NAS CG class A x{args.cg_scale:g}, 256 ranks": [f"trace.file={cg}"],
        }
        for fabric, keys in FABRICS.items():
            if args.only and args.only not in fabric:
                continue
            for traffic, traffic_keys in traffics.items():
                for security in SECURITY:
                    row = {"fabric": fabric, "traffic": traffic, "security": security,
                           **measure(args.engine, keys + traffic_keys + [f"nic.security={security}"])}
                    rows.append(row)
                    print(" | ".join(f"{row[c]:.6g}" if isinstance(row[c], float) else str(row[c]) for c in COLUMNS),
                          file=sys.stderr, flush=True)
    if args.out:
        write_new_csv(args.out, rows, COLUMNS)
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for row in rows:
        print("| " + " | ".join(f"{row[c]:,.0f}" if isinstance(row[c], float) else str(row[c]) for c in COLUMNS) + " |")


if __name__ == "__main__":
    main()
