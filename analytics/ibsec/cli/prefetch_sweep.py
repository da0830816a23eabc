"""`ibsec prefetch-sweep`: SKC size and prefetch-buffer size sweeps on a job mix (Fig. 7)."""

from __future__ import annotations

from ..numeric import count_option
from .mixes import add_study_options, study_of, warn_unfinished
from .options import RegistryHelpFormatter


def execute(args) -> None:
    from ..paper.coschedule import fig7_tables, parse_schedulers, parse_sizes, prefetch_sweep

    schedulers = parse_schedulers(args.schedulers, "--schedulers")
    skc_sizes, pb_sizes = parse_sizes(args.skc_sizes, "--skc-sizes"), parse_sizes(args.pb_sizes, "--pb-sizes")
    skc_fixed = parse_sizes(args.skc_fixed, "--skc-fixed")
    pb_fixed = args.pb_fixed
    study = study_of(args)
    df = prefetch_sweep(study, schedulers, skc_sizes, pb_fixed, pb_sizes, skc_fixed, argv=args.argv)
    for title, wide in fig7_tables(df).items():
        print(f"\n{title}:")
        print(wide.to_string(float_format=lambda v: f"{v:.4g}"))
    warn_unfinished(df)
    print(f"wrote {study.out / f'fig7_{study.mix.name}.csv'} and {study.out / f'fig7_{study.mix.name}.png'}")


def add_parser(commands) -> None:
    sweep = commands.add_parser(
        "prefetch-sweep", formatter_class=RegistryHelpFormatter,
        help="SKC size and prefetch-buffer size sweeps on a job mix (Fig. 7)",
        description="For each scheduler: the SKC size swept with and without a prefetch buffer of --pb-fixed "
                    "entries, and the buffer size swept at each --skc-fixed SKC size. Prints the tables and "
                    "writes fig7_<mix>.csv/.parquet and .pdf/.svg/.png. Shares the resumable store with "
                    "compare-schedulers.")
    sweep.add_argument("--schedulers", default="dcs-sb,gang",
                       help="comma-separated, any of the engine's: {schedulers} (default: %(default)s)")
    sweep.add_argument("--skc-sizes", default="2,5,10,15,20,25,30", help="SKC entries to sweep (default: %(default)s)")
    sweep.add_argument("--pb-fixed", type=count_option, default=2,
                       help="buffer entries during the SKC sweep (default: %(default)s)")
    sweep.add_argument("--pb-sizes", default="1,2,4,8,16", help="buffer entries to sweep (default: %(default)s)")
    sweep.add_argument("--skc-fixed", default="5,20", help="SKC entries during the buffer sweep (default: %(default)s)")
    add_study_options(sweep, "fig7")
    sweep.set_defaults(func=execute)
