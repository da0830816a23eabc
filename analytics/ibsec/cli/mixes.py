"""What compare-schedulers and prefetch-sweep share: the mix options, the study they describe, warnings."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..numeric import count_option
from ..output.files import DEFAULT_OUTPUT
from .options import output_folder


def add_study_options(parser: argparse.ArgumentParser, figure: str) -> None:
    """Options both coscheduling commands share."""
    parser.add_argument("--mix", default="nas15",
                        help="nas15 (CG, MG, LU, SP, BT x3), ft-jbb6 (FT, JBB x3) or a mix file: one job per line, "
                             "'TRACE [COUNT]', paths relative to the file (default: %(default)s)")
    parser.add_argument("--out", type=output_folder, default=f"{DEFAULT_OUTPUT}/schedulers",
                        help=f"output folder: {figure}_<mix>.csv/.parquet/.pdf/.svg/.png/.meta.json and the "
                             "resumable store <mix>.runs/ (default: %(default)s)")
    parser.add_argument("--traces", default="workloads/mixes",
                        help="folder of the built-in mixes' traces, generated there if missing (default: %(default)s)")
    parser.add_argument("--jobs", type=count_option, help="engine runs at once (default: CPUs, at most 8)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override one engine parameter in every run, e.g. --set scheduler.cpus_per_node=2 "
                             "(repeatable; not trace.jobs, trace.file, scheduler.policy or nic.security, "
                             "which the study sets)")
    parser.add_argument("--seeds", type=count_option, default=1, metavar="N",
                        help="run every point with seeds 1..N (the schedulers start jobs in random order) and draw "
                             "the mean with the range over the seeds as error bars; the printed tables are the "
                             "means (default: %(default)s)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress output")


def study_of(args):
    """The mix (generated first if built in and missing) and its resumable store."""
    from ..engine.config import parse_override
    from ..errors import ConfigError
    from ..paper.coschedule import Study, check_overrides
    from ..paper.mixes import load_mix
    from ..runs.store import default_jobs

    jobs = default_jobs() if args.jobs is None else args.jobs
    overrides = check_overrides(args.set)
    if args.seeds > 1 and any(parse_override(text)[0] == "seed" for text in overrides):
        raise ConfigError("--set", f"--seeds {args.seeds} runs seeds 1..{args.seeds}; drop --set seed=...")
    progress = None if args.quiet else (
        lambda r: print(f"generated {r.path}: {r.stats.packets} packets of 256 B (synthetic)", flush=True))
    mix = load_mix(args.mix, args.traces, progress)
    return Study(mix, Path(args.out), overrides, jobs, args.quiet, args.seeds)


def warn_unfinished(df) -> None:
    """Rows are kept when the network did not drain or a job did not finish, but the reader must know."""
    bad = df[(df["exit_code"] != 0) | (df["jobs_completed"] < df["jobs"])]
    for row in bad.itertuples():
        print(f"warning: {row.scheduler} {row.security}: {row.jobs_completed} of {row.jobs} jobs completed"
              f"{', network not drained' if row.exit_code == 3 else ''} (see {row.result_file})", file=sys.stderr)
