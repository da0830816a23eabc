"""`ibsec compare-schedulers`: job mixes under node schedulers, with and without prefetch (Fig. 6)."""

from __future__ import annotations

from ..numeric import count_option
from ..units import table_text
from .mixes import add_study_options, study_of, warn_unfinished
from .options import RegistryHelpFormatter


def execute(args) -> None:
    from ..paper.coschedule import (
        CONFIGS,
        compare_schedulers,
        parse_names,
        parse_schedulers,
        prefetch_effect,
        security_mode,
        seed_means,
        summary_table,
    )

    # Every argument is checked before a trace is generated or the engine run.
    schedulers = parse_schedulers(args.schedulers, "--schedulers")
    configs = parse_names(args.configs, CONFIGS, "--configs")
    skc, pb = args.skc, args.pb
    study = study_of(args)
    df = compare_schedulers(study, schedulers, configs, skc, pb, argv=args.argv)
    print(f"\nMix {study.mix.name}: {len(study.mix.jobs)} jobs on 16 nodes; "
          + ", ".join(f"{c} = {security_mode(c, skc, pb)}" for c in configs))
    means = seed_means(df)
    print(table_text(summary_table(means), index=False)[1])
    effect = prefetch_effect(means)
    if len(effect):
        print(f"\nprefetch vs SKC (SKC-{skc}+Prefetch-{pb} against SKC-{skc}; the paper: about -5 % latency, "
              "+13 % hit rate):")
        for row in effect.itertuples():
            print(f"  {row.scheduler:<8} latency {row.latency_change_percent:+.1f} %, "
                  f"hit rate {row.hit_rate_change_points:+.1f} percentage points")
    warn_unfinished(df)
    print(f"wrote {study.out / f'fig6_{study.mix.name}.csv'} and {study.out / f'fig6_{study.mix.name}.png'}")


def add_parser(commands) -> None:
    compare = commands.add_parser(
        "compare-schedulers", formatter_class=RegistryHelpFormatter,
        help="job mixes under node schedulers, with and without prefetch (Fig. 6)",
        description="Run a job mix on the 16-node cluster under each node scheduler and each card "
                    "configuration (NoSKC, SKC-N, SKC-N+Prefetch-M), print latency, hit rates, mean job "
                    "completion time and context switches, and the effect of prefetching against SKC, and write "
                    "fig6_<mix>.csv/.parquet and .pdf/.svg/.png. Finished runs are kept in <out>/<mix>.runs/ and "
                    "reused.")
    compare.add_argument("--schedulers", default="local,sb,dcs-sb,pb,gang",
                         help="comma-separated, any of the engine's: {schedulers} (default: %(default)s)")
    compare.add_argument("--configs", default="NoSKC,SKC,Prefetch",
                         help="comma-separated: NoSecurity, NoSKC, SKC (SKC-N), Prefetch (SKC-N+Prefetch-M) "
                              "(default: %(default)s)")
    compare.add_argument("--skc", type=count_option, default=10,
                         help="session key cache entries N (default: %(default)s)")
    compare.add_argument("--pb", type=count_option, default=8, help="prefetch buffer entries M (default: %(default)s)")
    add_study_options(compare, "fig6")
    compare.set_defaults(func=execute)
