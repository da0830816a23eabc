"""The cycle-level model end to end: delivered packets per wall-clock second,
kernel activations per packet and peak memory, for the cases of issue 3 (16
nodes on one switch; 1 024 nodes as a 4-ary 5-tree and as a 32-ary 2-tree;
uniform traffic at 10 % and 30 % load; SKC-6 cards), and a card for today's
links: 16 nodes on 4x NDR with SKC-16 cards of 8 GCM engines and 16
overlapped key reads.

Run: .venv/bin/python bench/bench_model.py [--messages 1000000] [--engine build/ibsec-engine] [--only 16]
     [--only NDR]
Each case is one `ibsec-engine run`; wall time and memory come from the
engine's --perf-json (simulation only, after argument parsing).
"""

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

# Fabrics the other benchmarks share (they import them from here).
TREE_4_ARY_5 = ["network.topology=fat-tree", "network.fat_tree.k=4", "network.fat_tree.n=5"]


def built_fat_tree(radix: int, levels: int, nodes: int) -> list[str]:
    """fat-tree-built of `radix`-port switches, `levels` levels, `nodes` nodes (taper 1:1)."""
    return ["network.topology=fat-tree-built", f"network.nodes={nodes}", f"network.fat_tree_built.radix={radix}",
            f"network.fat_tree_built.levels={levels}"]


TOPOLOGIES = {
    "16 nodes, single switch": [],
    "1024 nodes, 4-ary 5-tree": TREE_4_ARY_5,
    "1024 nodes, 32-ary 2-tree": ["network.topology=fat-tree", "network.fat_tree.k=32", "network.fat_tree.n=2"],
    "16 nodes, 4x NDR, 8 engines, 16 reads": ["network.link_rate=NDR", "network.link_width=4x", "nic.gcm.engines=8",
                                              "nic.key_memory.requests_in_flight=16",
                                              "nic.lookup.outstanding_misses=16"],
}
# A case that names its own card keeps it; the others take --security.
CARDS = {"16 nodes, 4x NDR, 8 engines, 16 reads": "SKC-16"}


def refuse_existing_output(path: Path | None):
    """Exits before a benchmark runs if its --out is already there: a result is never overwritten."""
    if path is not None and (path.exists() or path.is_symlink()):
        sys.exit(f"{path}: already exists; give another --out (results are never overwritten)")


def write_new_csv(path: Path, rows: list[dict], columns: list[str] | None = None):
    """Writes `rows` to a CSV at `path`, which must not exist yet (checked again: exclusive creation)."""
    columns = columns or list(dict.fromkeys(key for row in rows for key in row))
    with path.open("x", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def run_case(engine: str, overrides: list[str]) -> tuple[dict, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        result, perf = Path(tmp) / "result.json", Path(tmp) / "perf.json"
        command = [engine, "run", "--quiet", "--out", str(result), "--perf-json", str(perf)]
        for item in overrides:
            command += ["--set", item]
        subprocess.run(command, check=True)
        return json.loads(result.read_text())["statistics"], json.loads(perf.read_text())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=1_000_000,
                        help="messages offered per case (default: %(default)s)")
    parser.add_argument("--engine", default="build/ibsec-engine")
    parser.add_argument("--security", default="SKC-6", help="card configuration (default: %(default)s)")
    parser.add_argument("--loads", default="0.1,0.3", help="offered loads (default: %(default)s)")
    parser.add_argument("--only", help="run only the topologies whose name contains this text")
    args = parser.parse_args()
    print(f"{'case':<44} {'packets/s':>10} {'delivered':>10} {'act/pkt':>8} {'peak MiB':>9} {'wall s':>7}  "
          "hit rate  accepted")
    for name, topology in TOPOLOGIES.items():
        if args.only and args.only not in name:
            continue
        for load in args.loads.split(","):
            overrides = topology + [f"nic.security={CARDS.get(name, args.security)}", f"traffic.load={load}",
                                    f"traffic.messages={args.messages}", "traffic.warmup_messages=0"]
            stats, perf = run_case(args.engine, overrides)
            print(f"{name + ', load ' + load:<44} {perf['packets_per_second']:>10.0f} {perf['packets_delivered']:>10} "
                  f"{perf['kernel_activations_per_packet']:>8.1f} {perf['peak_rss_mib']:>9.0f} "
                  f"{perf['wall_seconds']:>7.2f}"
                  f"  {stats['skc_hit_rate']:.3f}     {stats['accepted_throughput']:.3f}", flush=True)


if __name__ == "__main__":
    main()
