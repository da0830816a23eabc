"""`ibsec figures`: the paper's cache figures (Fig. 3, 8, 9), the Markov cross-check and the security figure."""

from __future__ import annotations

from pathlib import Path

from ..numeric import count_option
from ..output.files import DEFAULT_OUTPUT
from .options import output_folder

FIGURE_NAMES = ["fig3", "fig8", "fig9", "xval", "security", "predictor", "predictor-fitted", "consistency"]


def execute(args) -> None:
    from ..output.figure_style import figure_files
    from ..paper.figures import ALL_FIGURES, FIGURES
    from ..paper.reproduce import FULL

    names = list(ALL_FIGURES) if "all" in args.names else args.names
    accesses = FULL.accesses if args.accesses is None else args.accesses  # the committed tables' resolution
    for name in names:
        make, files = FIGURES[name]
        df = make(Path(args.out), accesses=accesses, jobs=args.jobs, quiet=args.quiet, seeds=args.seeds)
        if not args.quiet:
            print(f"{name}: {len(df)} rows")
            for path in figure_files(Path(args.out), files):
                print(f"wrote {path}")


def add_parser(commands) -> None:
    figs = commands.add_parser(
        "figures", help="regenerate the paper's cache figures (CSV + Parquet tables, PDF + SVG + PNG plots)",
        description="Regenerate the paper's cache figures: each writes NAME.csv and NAME.parquet (its table), "
                    "NAME.pdf, NAME.svg and NAME.png (300 dpi) and NAME.meta.json (the command and parameters). "
                    "fig3 is analytic; fig8, fig9, xval and security are simulated, once per seed with --seeds.")
    figs.add_argument("names", nargs="+", choices=[*FIGURE_NAMES, "all"],
                      help="figures to make; all = every one but predictor, predictor-fitted and consistency "
                           "(tens of minutes or more each)")
    figs.add_argument("--out", type=output_folder, default=DEFAULT_OUTPUT, help="output folder (default: %(default)s)")
    figs.add_argument("--accesses", type=count_option,
                      help="look-ups per simulated point (default: the full plan of `ibsec reproduce`'s, "
                           "docs/reproducing.md)")
    figs.add_argument("--jobs", type=count_option, default=2, help="points run at once (default: %(default)s)")
    figs.add_argument("--seeds", type=count_option, default=1,
                      help="run every simulated point with seeds 1..N and draw the mean with the range as error "
                           "bars (fig3 is analytic and has no seed; predictor-fitted runs at least 8 and adds seeds "
                           "until each reference's 95 %% interval is within 0.5 points; default: %(default)s)")
    figs.add_argument("--quiet", action="store_true", help="no progress output")
    figs.set_defaults(func=execute)
