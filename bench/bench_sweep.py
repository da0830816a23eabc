"""What `ibsec sweep` costs on top of the engine runs it makes.

Two cases, each timed end to end (the `ibsec sweep` command as a user runs
it: Python start, spec check, Dask cluster, store, tables) against the same
engine commands run bare, at equal parallelism:

(a) 100 cachesim points (short: a few ms to tens of ms each), the sweep on a
    local cluster of --cachesim-workers workers against the bare runs on a
    plain pool of as many threads (1: one after another);
(b) 8 `ibsec-engine run` points of a few seconds each, the sweep with
    --run-workers workers against bare runs as many at a time.

Also timed: the same sweep run again when every point is in the store (no
cluster starts): the fixed cost of the command itself.

Run: .venv/bin/python bench/bench_sweep.py [--engine build/ibsec-engine] [--repeat 3] [--json out.json]
A round runs bare, then the sweep, then the sweep again (all done); every
other round the bare runs come last. Wall
times are the fastest of --repeat rounds (other work on the machine only
slows a round down); CPU times (user + system of the whole process tree,
which other work does not inflate) are medians.
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "analytics"))


def cachesim_spec(accesses: int) -> dict:
    """100 points: 25 key counts x 4 associativities."""
    return {"kind": "cachesim", "set": {"entries": 64, "preset": "FT", "accesses": accesses},
            "grid": {"keys": list(range(100, 2600, 100)), "ways": [0, 1, 4, 16]}}


def run_spec(messages: int) -> dict:
    """8 points: 4 SKC sizes x 2 seeds."""
    return {"kind": "run", "config": str(REPO / "configs" / "paper-16.json"), "set": {"traffic.messages": messages},
            "grid": {"nic.security": ["SKC-2", "SKC-4", "SKC-6", "SKC-8"]}, "seeds": [1, 2]}


def bare_commands(spec_path: Path, engine: str, scratch: Path) -> list[list[str]]:
    """The engine commands the sweep makes for the points of a spec."""
    from ibsec.engine.binary import run_arguments
    from ibsec.models.cachesim import engine_arguments
    from ibsec.models.presets import with_preset
    from ibsec.runs.spec import load_spec

    spec = load_spec(spec_path)
    commands = []
    for i, parameters in enumerate(spec.parameter_sets()):
        for seed in spec.seeds:
            if spec.kind == "cachesim":
                arguments = engine_arguments({**with_preset(parameters), "seed": seed}) + ["--json", "--quiet"]
            else:
                overrides = [f"{k}={json.dumps(v)}" for k, v in parameters.items()] + [f"seed={seed}"]
                arguments = run_arguments(spec.config, overrides, out=scratch / f"bare-{i}-{seed}.json", quiet=True)
            commands.append([engine, *arguments])
    return commands


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(action) -> tuple[float, float]:
    """(wall s, CPU s of the processes `action` started and waited for)."""
    cpu, start = children_cpu(), time.perf_counter()
    action()
    return time.perf_counter() - start, children_cpu() - cpu


def time_bare(commands: list[list[str]], parallel: int) -> tuple[float, float]:
    def run(command):
        subprocess.run(command, check=True, capture_output=True)

    def run_all():
        with ThreadPoolExecutor(max_workers=parallel) as pool:
            list(pool.map(run, commands))

    return timed(run_all)


def time_sweep(spec_path: Path, out: Path, workers: int, env: dict) -> tuple[float, float]:
    command = [sys.executable, "-m", "ibsec.cli", "sweep", str(spec_path), "--out", str(out),
               "--workers", str(workers), "--quiet"]
    return timed(lambda: subprocess.run(command, check=True, env=env))


def measure(name: str, spec: dict, workers: int, repeat: int, engine: str, scratch: Path) -> dict:
    spec_path = scratch / f"{name}.json"
    spec_path.write_text(json.dumps(spec))
    env = {**os.environ, "IBSEC_ENGINE": engine}
    os.environ["IBSEC_ENGINE"] = engine
    commands = bare_commands(spec_path, engine, scratch)
    bare, swept, resumed = [], [], []
    for round_number in range(repeat):
        out = scratch / f"{name}-{round_number}"
        if round_number % 2 == 0:  # alternate the order, so a slow spell of the machine hits both alike
            bare.append(time_bare(commands, workers))
        swept.append(time_sweep(spec_path, out, workers, env))
        resumed.append(time_sweep(spec_path, out, workers, env))  # every point already in the store
        if round_number % 2 == 1:
            bare.append(time_bare(commands, workers))
        shutil.rmtree(out)
    bare_s, sweep_s = min(w for w, _ in bare), min(w for w, _ in swept)
    bare_cpu, sweep_cpu = statistics.median(c for _, c in bare), statistics.median(c for _, c in swept)
    return {"case": name, "points": len(commands), "parallel": workers, "bare_s": bare_s, "sweep_s": sweep_s,
            "overhead_per_point_ms": (sweep_s - bare_s) / len(commands) * 1e3,
            "overhead_percent": (sweep_s / bare_s - 1) * 100, "resume_all_done_s": min(w for w, _ in resumed),
            "bare_per_point_ms": bare_s / len(commands) * workers * 1e3, "bare_cpu_s": bare_cpu,
            "sweep_cpu_s": sweep_cpu, "cpu_overhead_per_point_ms": (sweep_cpu - bare_cpu) / len(commands) * 1e3,
            "cpu_overhead_percent": (sweep_cpu / bare_cpu - 1) * 100, "rounds": repeat,
            "all_wall_s": {"bare": [w for w, _ in bare], "sweep": [w for w, _ in swept]}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", default=os.environ.get("IBSEC_ENGINE", str(REPO / "build" / "ibsec-engine")))
    parser.add_argument("--repeat", type=int, default=3, help="rounds (fastest wall time, median CPU time)")
    parser.add_argument("--cachesim-accesses", type=int, default=200_000, help="look-ups per cachesim point")
    parser.add_argument("--cachesim-workers", type=int, default=1, help="(a): Dask workers = bare runs at a time")
    parser.add_argument("--run-messages", type=int, default=3_000_000,
                        help="messages per engine run (b): about 4 s each on an idle core")
    parser.add_argument("--run-workers", type=int, default=2, help="(b): Dask workers = bare runs at a time")
    parser.add_argument("--only", choices=["a", "b"], help="run one case only")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    engine = str(Path(args.engine).resolve())
    with tempfile.TemporaryDirectory(prefix="bench-sweep-") as tmp:
        cases = {"a": ("(a) cachesim x100", cachesim_spec(args.cachesim_accesses), args.cachesim_workers),
                 "b": ("(b) engine run x8", run_spec(args.run_messages), args.run_workers)}
        rows = [measure(name, spec, workers, args.repeat, engine, Path(tmp))
                for key, (name, spec, workers) in cases.items() if args.only in (None, key)]
    print("| case | points | at a time | bare s | bare ms/point | sweep s | overhead ms/point | overhead % "
          "| CPU bare s | CPU sweep s | CPU overhead ms/point | CPU overhead % | rerun, all done s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['case']} | {r['points']} | {r['parallel']} | {r['bare_s']:.2f} | {r['bare_per_point_ms']:.0f} | "
              f"{r['sweep_s']:.2f} | {r['overhead_per_point_ms']:.1f} | {r['overhead_percent']:.1f} | "
              f"{r['bare_cpu_s']:.2f} | {r['sweep_cpu_s']:.2f} | {r['cpu_overhead_per_point_ms']:.1f} | "
              f"{r['cpu_overhead_percent']:.1f} | {r['resume_all_done_s']:.2f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
