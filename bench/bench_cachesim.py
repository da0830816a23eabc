"""ibsec-engine cachesim end to end (generator + cache): look-ups per second and peak memory.

Run: .venv/bin/python bench/bench_cachesim.py [--accesses 100000000] [--engine build/ibsec-engine]
"""

import argparse
import json
import resource
import subprocess
import time

CASES = [
    ("16 KB FA LRU (1024 entries), BT/origin2000",
     ["--size", "16KB", "--ways", "0", "--on-mean", "2", "--off-mean", "19.0526"]),
    ("16 KB 16-way LRU, BT/origin2000", ["--size", "16KB", "--ways", "16", "--on-mean", "2", "--off-mean", "19.0526"]),
    ("16 KB FA LRU, LU/origin2000 (short periods)",
     ["--size", "16KB", "--ways", "0", "--on-mean", "0.08", "--off-mean", "1.52"]),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--accesses", type=int, default=100_000_000)
    parser.add_argument("--keys", type=int, default=10_000)
    parser.add_argument("--engine", default="build/ibsec-engine")
    args = parser.parse_args()
    for name, extra in CASES:
        command = [args.engine, "cachesim", "--keys", str(args.keys), "--accesses", str(args.accesses),
                   "--warmup", "0", "--json", "--quiet", *extra]
        start = time.perf_counter()
        out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        seconds = time.perf_counter() - start
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        hit_rate = json.loads(out)["hit_rate"]
        print(f"{name:<48} {args.accesses / seconds / 1e6:7.1f} M look-ups/s  {seconds:6.2f} s  "
              f"hit rate {hit_rate:.4f}  peak RSS so far {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
