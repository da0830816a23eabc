"""Generated NAS traces against real captures: structure, original time and the cost of security.

For every benchmark and class with a capture in --real (BENCH.CLASS.trace or
.trace.gz, 16 processes), writes the full generated trace of the same
benchmark and class (scale 1) into --out, compares the two
(ibsec.workloads.compare: messages, bytes, collectives, original time) and
replays both on --config with NoSecurity, NoSKC and SKC-2 cards; the
slowdown of a card is its simulated execution time over NoSecurity's, less
one. Prints the markdown table of docs/workloads.md and writes
--out/results.json.

Run: .venv/bin/python bench/bench_workloads_vs_real.py --real DIR [--out DIR] [--engine build/ibsec-engine]
     [--bench CG MG ...] [--classes S W A]
The replays run one at a time.
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "analytics"))

from ibsec.workloads import generate, make_params  # noqa: E402
from ibsec.workloads.calibrate import BENCHES, find_capture  # noqa: E402
from ibsec.workloads.compare import compare_with_real  # noqa: E402

SECURITY = ("NoSecurity", "NoSKC", "SKC-2")


def replay_seconds(engine: str, config: Path, trace: Path, security: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        subprocess.run([engine, "run", str(config), "--trace", str(trace), "--quiet", "--out", str(out),
                        "--set", f"nic.security={security}"], check=True)
        replay = json.loads(out.read_text())["replay"]
    if not replay["completed"]:
        raise RuntimeError(f"{trace}: the replay with {security} did not complete")
    return replay["simulated_execution_time_ns"] * 1e-9


def slowdowns(engine: str, config: Path, trace: Path) -> dict:
    times = {s: replay_seconds(engine, config, trace, s) for s in SECURITY}
    base = times["NoSecurity"]
    return {"simulated_s": times, **{s: times[s] / base - 1 for s in SECURITY[1:]}}


def one_case(bench: str, cls: str, real: Path, out: Path, engine: str, config: Path) -> dict:
    generated = out / f"{bench.lower()}.{cls}.trace.gz"
    if not generated.exists():
        generate(make_params(bench, 16, cls, 1.0, 1), generated)
    comparison = compare_with_real(generated, real)
    g, r = comparison.generated, comparison.real
    return {
        "bench": bench, "class": cls, "problems": comparison.problems,
        "same_call_sequences": comparison.same_call_sequences(),
        "messages": [g.messages, r.messages], "bytes": [g.message_bytes, r.message_bytes],
        "collectives": [sum(g.collectives.values()), sum(r.collectives.values())],
        "original_s": [g.duration_s, r.duration_s],
        "generated": slowdowns(engine, config, generated), "real": slowdowns(engine, config, real),
    }


def percent(x: float) -> str:
    return f"{100 * x:.1f} %" if x < 0.1 else f"{100 * x:.0f} %"


def table(rows: list[dict]) -> str:
    lines = ["| bench | class | messages gen / real | bytes gen / real | collectives gen / real | "
             "original s gen / real | NoSKC gen / real | SKC-2 gen / real |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        (gm, rm), (gb, rb), (gc, rc), (gs, rs) = row["messages"], row["bytes"], row["collectives"], row["original_s"]
        g, r = row["generated"], row["real"]
        lines.append(f"| {row['bench']} | {row['class']} | {gm} / {rm} | {gb} / {rb} | {gc} / {rc} | "
                     f"{gs:.3f} / {rs:.3f} | {percent(g['NoSKC'])} / {percent(r['NoSKC'])} | "
                     f"{percent(g['SKC-2'])} / {percent(r['SKC-2'])} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--real", type=Path, required=True, help="folder of captures BENCH.CLASS.trace[.gz]")
    parser.add_argument("--out", type=Path, default=Path("workloads-vs-real"))
    parser.add_argument("--engine", default=str(ROOT / "build" / "ibsec-engine"))
    parser.add_argument("--config", type=Path, default=ROOT / "configs" / "paper-16.json")
    parser.add_argument("--bench", nargs="*", default=list(BENCHES))
    parser.add_argument("--classes", nargs="*", default=["S", "W", "A"])
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for bench in args.bench:
        for cls in args.classes:
            real = find_capture(args.real, bench, cls)
            if real is None:
                continue
            rows.append(one_case(bench, cls, real, args.out, args.engine, args.config))
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    (args.out / "results.json").write_text(json.dumps(rows, indent=1) + "\n")
    print(table(rows))


if __name__ == "__main__":
    main()
