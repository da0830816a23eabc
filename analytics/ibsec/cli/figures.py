"""`ibsec figures`: the paper's cache figures (Fig. 3, 8, 9), the Markov cross-check and the security figure."""

from __future__ import annotations

from pathlib import Path

from ..numeric import count_option
from .options import output_folder

FIGURE_NAMES = ["fig3", "fig8", "fig9", "xval", "security", "predictor", "predictor-fitted", "consistency"]


def execute(args) -> None:
    from ..paper.figures import FIGURES

    names = list(FIGURES) if "all" in args.names else args.names
    for name in names:
        df = FIGURES[name](Path(args.out), accesses=args.accesses, jobs=args.jobs, quiet=args.quiet)
        if not args.quiet:
            print(f"{name}: {len(df)} rows written under {args.out}/")


def add_parser(commands) -> None:
    figs = commands.add_parser("figures", help="regenerate the paper's cache figures (CSV + PNG)")
    figs.add_argument("names", nargs="+", choices=[*FIGURE_NAMES, "all"], help="figures to make")
    figs.add_argument("--out", type=output_folder, default="results", help="output folder (default: %(default)s)")
    figs.add_argument("--accesses", type=count_option, default=4_000_000,
                      help="look-ups per simulated point (default: %(default)s)")
    figs.add_argument("--jobs", type=count_option, default=2, help="points run at once (default: %(default)s)")
    figs.add_argument("--quiet", action="store_true", help="no progress output")
    figs.set_defaults(func=execute)
