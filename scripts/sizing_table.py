#!/usr/bin/env python3
"""The tables of docs/sizing.md: for each class A NPB trace, the SKC size each model of `ibsec analytic size`
chooses for a target hit rate, the hit rate it predicts there and what the cycle-level replay gives at that
size; then `--target-overhead` on the benchmarks named. Every replay is kept in --out's resumable store, so a
re-run (e.g. after the traces are captured again) runs only what changed.

    .venv/bin/python scripts/sizing_table.py --write docs/sizing.md

replaces the text between the markers `<!-- sizing-table:begin -->` and `<!-- sizing-table:end -->` of that
file; without --write the tables go to standard output.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ibsec.api import analytic
from ibsec.errors import ConfigError, IbsecError
from ibsec.output.files import write_text_output

ROOT = Path(__file__).resolve().parents[1]
NPB = ROOT / "analytics" / "ibsec" / "data" / "npb"
BEGIN, END = "<!-- sizing-table:begin -->", "<!-- sizing-table:end -->"


def hit_rate_table(traces: list[Path], nodes: int, target: float, folder: Path) -> tuple[list[str], int]:
    """The rows of the hit-rate table, and how many benchmarks miss target - 0.03 at the chosen size."""
    lines = ["| benchmark | model | entries | predicted hit rate | replayed hit rate | execution time over "
             "NoSecurity |", "|---|---|---:|---:|---:|---:|"]
    short = 0
    for trace in traces:
        answer = analytic.size(nodes, target, trace=str(trace), confirm=True, folder=str(folder))
        chosen = answer["chosen"]["model"]
        for row in answer["models"]:
            mark = " (chosen)" if row["model"] == chosen else ""
            lines.append(f"| {trace.name.split('.trace')[0]} | {row['model']}{mark} | {row['entries']} | "
                         f"{row['predicted_hit_rate']:.3f} | {row['replayed_hit_rate']:.3f} | "
                         f"{row['replayed_overhead_pct']:+.1f} % |")
            if row["model"] == chosen and row["replayed_hit_rate"] < target - 0.03:
                short += 1
    return lines, short


def overhead_table(traces: list[Path], nodes: int, percent: float, folder: Path) -> list[str]:
    lines = ["| benchmark | SKC entries | execution time over NoSecurity | SKC hit rate | sizes replayed "
             "(entries: overhead) | monotone |", "|---|---:|---:|---:|---|---|"]
    for trace in traces:
        found = analytic.size(nodes, trace=str(trace), target_overhead=percent, folder=str(folder))["target_overhead"]
        replays = ", ".join(f"{r['entries']}: {r['overhead_pct']:+.1f} %" for r in found["replays"])
        if found["entries"] is None:
            lines.append(f"| {trace.name.split('.trace')[0]} | none | | | {replays} | |")
            continue
        lines.append(f"| {trace.name.split('.trace')[0]} | {found['entries']} | {found['overhead_pct']:+.2f} % | "
                     f"{found['skc_hit_rate']:.4f} | {replays} | {'yes' if found['monotone'] else 'no'} |")
    return lines


def replace_between_markers(path: Path, text: str) -> None:
    document = path.read_text()
    if BEGIN not in document or END not in document:
        raise ConfigError("--write", f"{path} has no {BEGIN} ... {END} markers to replace between")
    head, rest = document.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    write_text_output(path, f"{head}{BEGIN}\n{text}{END}{tail}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", nargs="*", type=Path, default=sorted(NPB.glob("*.A.16.trace.zst")),
                        help="traces to size (default: every class A trace in analytics/ibsec/data/npb)")
    parser.add_argument("--nodes", type=int, default=16, help="nodes, one rank each (default: %(default)s)")
    parser.add_argument("--target", type=float, default=0.9, help="target hit rate (default: %(default)s)")
    parser.add_argument("--overhead", type=float, default=5.0,
                        help="--target-overhead in %% (default: %(default)s)")
    parser.add_argument("--overhead-benchmarks", default="cg,ft",
                        help="benchmarks whose class A trace gets --target-overhead (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "sizing",
                        help="the replays' folder and store (default: %(default)s)")
    parser.add_argument("--write", type=Path, help="replace the tables between the markers of this file")
    args = parser.parse_args()
    try:
        rows, short = hit_rate_table(args.traces, args.nodes, args.target, args.out)
        wanted = set(args.overhead_benchmarks.split(","))
        costly = [t for t in args.traces if t.name.split(".")[0] in wanted]
        text = "\n".join([*rows, "", f"`--target-overhead {args.overhead:g}`:", "",
                          *overhead_table(costly, args.nodes, args.overhead, args.out)]) + "\n"
        if args.write:
            replace_between_markers(args.write, text)
        else:
            sys.stdout.write(text)
    except IbsecError as error:
        print(f"sizing_table: {error}", file=sys.stderr)
        return 2
    if short:
        print(f"sizing_table: {short} benchmark(s) replay more than 0.03 below the target at the chosen size",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
