"""Trace replay speed: simulated packets per wall-clock second for each shipped
workload trace (SKC-6 cards, 16 nodes, one switch), beside synthetic uniform
traffic on the same cluster with one 256-byte packet per message, so the
replay layer's cost (reading, matching, gaps, collectives) shows; with
--real-class, the shipped real NPB traces of that class too (--real-bench
picks some of them, e.g. `--real-class W --real-bench LU`).

Run: .venv/bin/python bench/bench_replay.py [--engine build/ibsec-engine] [--traces workloads] [--repeat 3]
                                            [--real-class W] [--real-bench LU] [--only-real]
Wall time and packets/s come from the engine's --perf-json (simulation only;
for a replay that includes checking the whole trace first).
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analytics"))


def run(engine: str, arguments: list[str]) -> tuple[dict, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        result, perf = Path(tmp) / "result.json", Path(tmp) / "perf.json"
        subprocess.run([engine, "run", "--quiet", "--out", str(result), "--perf-json", str(perf), *arguments],
                       check=True)
        return json.loads(result.read_text()), json.loads(perf.read_text())


def best_of(engine: str, arguments: list[str], repeat: int) -> tuple[dict, dict]:
    runs = [run(engine, arguments) for _ in range(repeat)]
    return min(runs, key=lambda r: r[1]["wall_seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", default="build/ibsec-engine")
    parser.add_argument("--traces", default="workloads", help="folder of the default traces (generated if missing)")
    parser.add_argument("--security", default="SKC-6")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; the fastest is reported")
    parser.add_argument("--real-class", action="append", default=[], help="also the shipped real traces of a class")
    parser.add_argument("--real-bench", action="append", default=[], help="only these real benchmarks (e.g. LU)")
    parser.add_argument("--only-real", action="store_true", help="leave out the synthetic traces and traffic")
    args = parser.parse_args()
    from ibsec.paper.real_workloads import shipped_real_traces
    from ibsec.paper.workload_study import default_traces

    print("| case | packets | trace events | wall s | packets/s | activations/packet |")
    print("|---|---|---|---|---|---|")
    cases = {} if args.only_real else {f"replay {b}": t for b, t in default_traces(Path(args.traces), True).items()}
    for (bench, cls), trace in shipped_real_traces(tuple(args.real_class)).items():
        if not args.real_bench or bench in args.real_bench:
            cases[f"replay real {bench} class {cls}"] = trace
    for case, trace in cases.items():
        result, perf = best_of(args.engine, ["--trace", str(trace), "--set", f"nic.security={args.security}"],
                               args.repeat)
        events = subprocess.run([args.engine, "trace", "info", "--json", str(trace)], check=True,
                                capture_output=True, text=True)
        print(f"| {case} | {perf['packets_delivered']} | {json.loads(events.stdout)['events']} | "
              f"{perf['wall_seconds']:.3f} | {perf['packets_per_second']:.0f} | "
              f"{perf['kernel_activations_per_packet']:.2f} |")
    if args.only_real:
        return
    for load in (0.02, 0.05):
        _, perf = best_of(args.engine, ["--set", f"nic.security={args.security}", "--set", f"traffic.load={load}",
                                        "--set", "traffic.messages=150000"], args.repeat)
        print(f"| synthetic uniform, load {load} | {perf['packets_delivered']} | - | {perf['wall_seconds']:.3f} | "
              f"{perf['packets_per_second']:.0f} | {perf['kernel_activations_per_packet']:.2f} |")


if __name__ == "__main__":
    main()
