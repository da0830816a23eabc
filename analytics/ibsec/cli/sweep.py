"""`ibsec sweep SPEC --out DIR`: every point of a sweep spec on Dask, resumable, into one table (docs/sweeps.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import ConfigError
from .options import add_cluster_options, cluster_options


def out_folder(out: str | None) -> Path:
    """The output folder, checked before anything runs: it and the files the sweep writes there can be made."""
    from ..output.files import check_output_file, check_output_folder
    from ..runs.spec_sweep import OUTPUTS

    if out is None:
        raise ConfigError("--out", "give the output folder: --out DIR")
    check_output_folder(out, "--out")
    for name in OUTPUTS:
        check_output_file(Path(out) / name, "--out")
    return Path(out)


def execute(args: argparse.Namespace) -> int:
    from ..engine.point import warnings_summary
    from ..runs.cluster import job_script
    from ..runs.spec import load_spec
    from ..runs.spec_sweep import (
        STORE,
        SweepFailed,
        describe,
        execute_points,
        summary,
        sweep_points,
        sweep_table,
        write_echo,
        write_table,
    )
    from ..runs.store import store_locked
    from ..shipped import resolve

    options = cluster_options(args)
    spec = load_spec(resolve("spec", args.spec, "SPEC")) if args.spec is not None else None
    if args.print_job_script:
        print(job_script(options), end="")
        return 0
    if spec is None:
        raise ConfigError("SPEC", "give the sweep spec file (docs/sweeps.md)")
    out = out_folder(args.out)
    points = sweep_points(spec)
    with store_locked(out / STORE):  # before anything is written or a cluster started: one sweep per folder
        write_echo(spec, points, out, args.argv)
        rows, errors, computed = execute_points(spec, points, out, options, args.quiet)
        table = sweep_table(spec, points, rows, errors)
        write_table(table, out)
    if not args.quiet:
        print(summary(spec, table, computed, len(errors), out))
        if "warnings" in table:
            summary = warnings_summary(table["warnings"])
            if summary is not None:
                print(f"ibsec: warning: {summary}", file=sys.stderr)
    if errors:
        first = min(errors)
        raise SweepFailed(f"{len(errors)} of {len(points)} points failed; first ({describe(points[first])}): "
                          f"{errors[first]}; the others are in {out / 'sweep.csv'}; run the same command again to "
                          "retry the failed ones")
    return 0


def add_parser(commands) -> None:
    sweep = commands.add_parser(
        "sweep", help="run a grid of points (engine runs, cachesim, analytic) on Dask into one table",
        description="Run every point of a sweep spec (docs/sweeps.md) on a Dask cluster: this machine by "
                    "default, SLURM or PBS batch jobs, or a running scheduler. Finished points are kept in "
                    "DIR/points.jsonl and not run again; the table is DIR/sweep.csv and DIR/sweep.parquet. "
                    "Exit codes: 0 every point done, 1 some points failed (the others are in the table), "
                    "2 a bad spec or option.")
    sweep.add_argument("spec", nargs="?", metavar="SPEC",
                       help="sweep spec, .toml or .json, or the name of a shipped one (skc-ways: configs/sweeps/)")
    sweep.add_argument("-o", "--out", metavar="DIR", help="output folder: sweep.csv, sweep.parquet, spec.json, "
                                                          "points.jsonl (the resumable store), runs/")
    sweep.add_argument("-q", "--quiet", action="store_true", help="no progress bar or summary")
    add_cluster_options(sweep)
    sweep.set_defaults(func=execute)
