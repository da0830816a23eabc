"""`ibsec reproduce`: every figure and table of the paper, then REPORT.md (docs/reproducing.md)."""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError
from .options import add_cluster_options, cluster_options, output_folder


def refuse_committed_results(out: str, update_results: bool) -> None:
    """ConfigError before anything runs when --out holds files git tracks (the committed results/) and
    --update-results was not given: a run of another plan, or of a rebuilt engine, would silently replace the
    published tables."""
    from ..output.tracked import listed, tracked_files

    tracked = [] if update_results else tracked_files(out)
    if tracked:
        raise ConfigError("--out", f"{out} holds {len(tracked)} files tracked by git ({listed(tracked)}), which "
                                   "this run would overwrite; give --update-results to regenerate the committed "
                                   "results, or another folder (e.g. --out out/reproduce)")


def execute(args) -> None:
    from ..paper.reproduce import FULL, QUICK, Context, reproduce
    from ..runs.cluster import job_script
    from ..runs.store import default_jobs

    options = cluster_options(args)
    if args.print_job_script:
        print(job_script(options), end="")
        return
    refuse_committed_results(args.out, args.update_results)
    reproduce(Context(Path(args.out), Path(args.traces), Path(args.mix_traces), QUICK if args.quick else FULL,
                      options.workers or default_jobs(), args.quiet, args.argv, options, tuple(args.skip)))


def add_parser(commands) -> None:
    repro = commands.add_parser(
        "reproduce", help="regenerate every figure and table of the paper and results/REPORT.md",
        description="Regenerates Fig. 3, 5, 6, 7, 8, 9, Table 1 and the 3.1 hardware-cost table from the shipped "
                    "workloads (CSV and Parquet tables, PDF, SVG and PNG plots) and writes REPORT.md, which puts "
                    "each number beside the paper's statement. Finished runs are kept in resumable stores under "
                    "--out and reused.")
    repro.add_argument("--quick", action="store_true",
                       help="fewer points and look-ups: a few minutes on 2 cores instead of the full plan")
    repro.add_argument("--out", type=output_folder, default="out/reproduce",
                       help="output folder (default: %(default)s)")
    repro.add_argument("--update-results", action="store_true",
                       help="allow --out to be a folder of files tracked by git (the committed results/), which "
                            "are then overwritten; without it such a folder is refused before anything runs")
    repro.add_argument("--traces", default="workloads",
                       help="folder of the workload traces, generated there if missing (default: %(default)s)")
    repro.add_argument("--mix-traces", default="workloads/mixes",
                       help="folder of the coscheduling mixes' traces, generated there if missing "
                            "(default: %(default)s)")
    repro.add_argument("-q", "--quiet", action="store_true", help="no progress bars (step titles are still printed)")
    repro.add_argument("--skip", action="append", default=[], metavar="STEP",
                       help="leave a step out by name, e.g. predictor-fitted; repeat for several. "
                            "An unknown name lists the plan's steps. REPORT.md reads a skipped step's tables as "
                            "they are in --out")
    add_cluster_options(repro)
    repro.set_defaults(func=execute)
