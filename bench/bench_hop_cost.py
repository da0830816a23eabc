"""Cost of one switch hop in the cycle-level model: instructions and misses beyond a 1 MiB last-level cache per
hop, from two cachegrind runs of the same fabric (10 000 and 50 000 messages by default) and the difference over
the switch hops between them, so that building the fabric and writing the result cancel out
(docs/performance.md, "Speed at scale"). Needs valgrind; takes a few minutes.

Run: .venv/bin/python bench/bench_hop_cost.py [--engine build/ibsec-engine] [--messages 10000,50000]
     [--set network.topology=fat-tree --set network.fat_tree.k=4 ...]
Without --set: the 1 024-node 4-ary 5-tree, NoSecurity, load 0.1.
"""

import argparse
import json
import re
import subprocess
import tempfile
from pathlib import Path

from bench_model import TREE_4_ARY_5  # beside this script

TRAFFIC = ["nic.security=NoSecurity", "traffic.load=0.1", "traffic.warmup_messages=0"]
LAST_LEVEL = "--LL=1048576,16,64"  # 1 MiB, 16-way, 64-byte lines


def cachegrind(engine: str, overrides: list[str], messages: int, folder: Path) -> dict:
    result = folder / f"result-{messages}.json"
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", LAST_LEVEL,
               f"--cachegrind-out-file={folder / f'cg-{messages}.out'}", engine, "run", "--quiet",
               "--out", str(result), "--set", f"traffic.messages={messages}"]
    for item in overrides:
        command += ["--set", item]
    log = subprocess.run(command, check=True, capture_output=True, text=True).stderr

    def total(label: str) -> int:
        return int(re.search(label + r":\s+([\d,]+)", log).group(1).replace(",", ""))

    hops = json.loads(result.read_text())["statistics"]["switch_hops_total"]
    return {"instructions": total(r"I\s+refs"), "ll_misses": total("LL misses"), "hops": hops}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", default="build/ibsec-engine")
    parser.add_argument("--messages", default="10000,50000", help="the two message counts (default: %(default)s)")
    parser.add_argument("--set", action="append", default=[], dest="overrides",
                        help="key=value for both runs (repeatable); default: the 4-ary 5-tree")
    args = parser.parse_args()
    fewer, more = (int(m) for m in args.messages.split(","))
    overrides = TRAFFIC + (args.overrides or TREE_4_ARY_5)
    with tempfile.TemporaryDirectory() as tmp:
        small = cachegrind(args.engine, overrides, fewer, Path(tmp))
        large = cachegrind(args.engine, overrides, more, Path(tmp))
    hops = large["hops"] - small["hops"]
    if hops <= 0:
        raise SystemExit(f"no more switch hops at {more} messages than at {fewer}: nothing to divide by")
    print(f"switch hops {small['hops']} -> {large['hops']}")
    print(f"per hop: {(large['instructions'] - small['instructions']) / hops:.0f} instructions, "
          f"{(large['ll_misses'] - small['ll_misses']) / hops:.1f} misses beyond a 1 MiB LL")


if __name__ == "__main__":
    main()
