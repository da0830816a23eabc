"""`ibsec study`: the main job, cache capacity (Fig. 3) and the cost of security on the workloads (Fig. 5)."""

from __future__ import annotations

from pathlib import Path

from ..numeric import count_option
from ..output.files import DEFAULT_OUTPUT
from ..units import table_text
from .options import output_folder


def execute(args) -> None:
    if args.what == "line-rate":
        line_rate(args)
        return
    from ..paper.figures import fig3
    from ..paper.workload_study import fig5, fig5d, summary_tables
    from ..runs.store import default_jobs

    out, traces = Path(args.out), Path(args.traces)
    args.real_class = args.real_class or ["S"]
    jobs = default_jobs() if args.jobs is None else args.jobs
    df = fig3(out)
    wide = df.pivot(index=["machine", "benchmark"], columns="size_kb", values="capacity")
    wide.columns = [f"{c} KB ({c * 1024 // 16} entries)" for c in wide.columns]
    print("Session key cache capacity (sessions supported at hit-rate estimate >= 0.9), Markov ON/OFF model")
    print("ON/OFF means are estimates (docs/nas-onoff-presets.md)\n")
    print(wide.to_string())
    print(f"\nwrote {out / 'fig3_capacity.csv'} and {out / 'fig3_capacity.png'}\n")

    print("Cost of per-packet security on the card: each workload replayed on 16 nodes (cycle-level model)")
    print(f"Workloads: synthetic NAS/SPECjbb-style traces in {traces}/ (docs/workloads.md)\n")
    table = fig5(out, traces, jobs=jobs, quiet=args.quiet)
    for title, wide in summary_tables(table).items():
        title, text = table_text(wide, title)
        print(f"{title}:")
        print(text, "\n")
    overhead = table.groupby("configuration", sort=False)["latency_overhead_percent"].mean()
    print("latency overhead over NoSecurity, mean of the workloads (%): "
          + ", ".join(f"{c} {v:.0f}" for c, v in overhead.items() if c != "NoSecurity"))
    print(f"wrote {out / 'fig5_workloads.csv'}, {out / 'fig5_workloads.png'} and {out / 'table1_execution_time.csv'}")
    if not args.skip_real:
        real_study(out, traces, tuple(args.real_class), jobs, args.quiet)
    if not args.skip_packet_size:
        sizes = fig5d(out, traces, jobs=jobs, quiet=args.quiet)
        wide = sizes.pivot(index="mtu_bytes", columns="configuration", values="latency_overhead_percent")
        print("\nCG, latency overhead over NoSecurity (%) by payload per packet (bytes):")
        print(wide.drop(columns="NoSecurity").to_string(float_format=lambda v: f"{v:.0f}"))
        print(f"wrote {out / 'fig5d_packet_size.csv'} and {out / 'fig5d_packet_size.png'}")


def line_rate(args) -> None:
    """What a card needs at each link generation (docs/cic.md, "A card for today's links")."""
    import pandas as pd

    from ..paper import line_rate as study
    from ..paper.workload_study import default_traces
    from ..runs.store import default_jobs

    out = Path(args.out)
    trace = None if args.skip_real else default_traces(Path(args.traces), args.quiet)["CG"]
    grid = study.QUICK if args.quick else study.Grid()
    jobs = default_jobs() if args.jobs is None else args.jobs
    _, cheapest = study.study(out, trace, grid, jobs=jobs, quiet=args.quiet)
    print(f"Cheapest {study.SECURE_CARD} card per link generation (4x): fewest GCM engines per direction, then "
          f"fewest overlapped key reads, with throughput within {100 - 100 * study.MIN_THROUGHPUT_SHARE:.0f} % of "
          f"NoSecurity; its latency over NoSecurity (target {study.MAX_LATENCY_OVERHEAD_PERCENT:.0f} %)\n")
    cheapest = cheapest.assign(card=[
        "none in the grid" if pd.isna(r.engines_needed) else
        f"{r.engines_needed:.0f} engines, {r.overlap_needed:.0f} reads: +{r.latency_overhead_percent:.0f} %"
        for r in cheapest.itertuples()])
    table = cheapest.pivot(index=["workload", "mtu_bytes"], columns="generation", values="card")
    print(table[[g for g in study.GENERATIONS if g in table.columns]].to_string())
    print(f"\nwrote {out / 'line_rate.csv'}, {out / 'line_rate.png'} and {out / 'line_rate_runs.csv'}")


def real_study(out: Path, traces: Path, classes: tuple[str, ...], jobs: int, quiet: bool) -> None:
    """Real NPB traces (captured) beside the generators' (synthetic) for the same benchmark and class."""
    from ..paper.real_workloads import comparison_tables, real_vs_synthetic

    print("\nReal programs: NPB 3.4 captured at 16 processes (shipped, docs/real-traces.md) beside the generators'")
    print(f"synthetic traces of the same benchmark and class (in {traces}/), class {', '.join(classes)}\n")
    df = real_vs_synthetic(out, traces, classes, jobs=jobs, quiet=quiet)
    for title, table in comparison_tables(df).items():
        title, text = table_text(table, title)
        print(f"{title}:")
        print(text, "\n")
    print(f"wrote {out / 'real_workloads.csv'} and {out / 'real_workloads.png'}")


def add_parser(commands) -> None:
    study = commands.add_parser(
        "study", help="the main job: cache capacity (Fig. 3) and the cost of security on the workloads (Fig. 5)",
        description="Prints the Markov-model capacity table (Fig. 3), then replays every shipped workload trace "
                    "under NoSecurity, NoSKC and SKC-n on the 16-node cluster and prints latency, SKC hit rate "
                    "and completion time per benchmark (Fig. 5, Table 1), the shipped real NPB traces beside the "
                    "generators' traces of the same benchmark and class, and CG by packet size (Fig. 5d). "
                    "Missing traces are generated first; finished replays are kept and reused.")
    study.add_argument("what", nargs="?", choices=("main", "line-rate"), default="main",
                       help="main (default): the paper's study; line-rate: the GCM engines and overlapped key reads "
                            "a card needs at each InfiniBand generation, and what the SKC size buys there")
    study.add_argument("--quick", action="store_true",
                       help="line-rate: a small grid (SDR and QDR, 256 B, up to 4 engines), for a first look")
    study.add_argument("--out", type=output_folder, default=DEFAULT_OUTPUT, help="output folder (default: %(default)s)")
    study.add_argument("--traces", default="workloads",
                       help="folder of the workload traces, generated there if missing (default: %(default)s)")
    study.add_argument("--jobs", type=count_option, help="replays run at once (default: CPUs, at most 8)")
    study.add_argument("--skip-packet-size", action="store_true", help="leave out the packet-size sweep (Fig. 5d)")
    study.add_argument("--real-class", action="append", choices=("S", "W", "A"), default=None,
                       help="NPB class of the shipped real traces to replay beside their synthetic twins; "
                            "repeat for several (default: S)")
    study.add_argument("--skip-real", action="store_true",
                       help="leave out the real NPB traces (line-rate: leave out the CG replay, uniform traffic only)")
    study.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    study.set_defaults(func=execute)
