"""What functional cryptography costs in wall time: the same run in
nic.crypto.mode = timing and = functional (real AES-GCM on every packet,
key unwrap on every key memory read), median of a few repetitions each, and
their ratio. Also checks that the two runs' timing statistics are identical.

Run: .venv/bin/python bench/bench_crypto_mode.py [--messages 200000] [--engine build/ibsec-engine]
         [--config configs/paper-16.json] [--repeat 3] [--set key=value ...]
Wall time comes from the engine's --perf-json (simulation only).
"""

import argparse
import json
import statistics
import subprocess
import tempfile
from pathlib import Path

CRYPTO_ONLY = {"packets_sealed", "packets_opened", "packets_dropped_auth", "packets_dropped_replay",
               "packets_dropped_key", "key_unwraps", "key_unwrap_failures", "payload_mismatches", "statistics_meta"}


def run_once(engine: str, config: str, overrides: list[str]) -> tuple[dict, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        result, perf = Path(tmp) / "result.json", Path(tmp) / "perf.json"
        command = [engine, "run", config, "--quiet", "--out", str(result), "--perf-json", str(perf)]
        for item in overrides:
            command += ["--set", item]
        subprocess.run(command, check=True)
        return json.loads(result.read_text())["statistics"], json.loads(perf.read_text())


def timed(engine: str, config: str, overrides: list[str], repeat: int) -> tuple[dict, float, float]:
    walls, rates, stats = [], [], {}
    for _ in range(repeat):
        stats, perf = run_once(engine, config, overrides)
        walls.append(perf["wall_seconds"])
        rates.append(perf["packets_per_second"])
    return stats, statistics.median(walls), statistics.median(rates)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=200_000, help="messages offered (default: %(default)s)")
    parser.add_argument("--engine", default="build/ibsec-engine")
    parser.add_argument("--config", default="configs/paper-16.json")
    parser.add_argument("--repeat", type=int, default=3, help="runs per mode; the median counts (default: %(default)s)")
    parser.add_argument("--set", dest="extra", action="append", default=[], help="further key=value overrides")
    args = parser.parse_args()
    base = [f"traffic.messages={args.messages}", "traffic.sizes_bytes=[256]"] + args.extra
    results = {}
    print(f"{'mode':<12} {'wall s':>8} {'packets/s':>11} {'delivered':>10}")
    for mode in ("timing", "functional"):
        stats, wall, rate = timed(args.engine, args.config, base + [f"nic.crypto.mode={mode}"], args.repeat)
        results[mode] = (stats, wall)
        print(f"{mode:<12} {wall:>8.2f} {rate:>11.0f} {stats['packets_delivered']:>10}", flush=True)
    (timing, timing_wall), (functional, functional_wall) = results["timing"], results["functional"]
    print(f"functional / timing wall time: {functional_wall / timing_wall:.2f}x")
    differing = [k for k in timing if k not in CRYPTO_ONLY and timing[k] != functional.get(k)]
    print("timing statistics identical" if not differing else f"timing statistics DIFFER: {differing}")
    print(f"payload_mismatches {functional['payload_mismatches']}, packets_opened {functional['packets_opened']}")


if __name__ == "__main__":
    main()
