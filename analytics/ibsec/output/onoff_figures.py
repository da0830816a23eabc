"""Figures of the fitted ON/OFF traffic and the hit-rate predictor: one function per figure, each drawing
from a table it is given and returning the matplotlib figure (save_figure writes it)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ..models.renewal import parse  # noqa: E402
from . import figure_style as style  # noqa: E402

# The x axis ends at this quantile when the longest periods lie more than a decade beyond it: a handful of
# outliers would otherwise squeeze the body of the distribution, where the laws differ, into a corner.
TAIL_QUANTILE = 0.99
FITTED_WIDTH = 1.3
BEST_WIDTH = 2.8  # the law nearest the measured CDF (smallest KS distance) stands out in the figure


def fit_cdfs(name: str, on_ms: np.ndarray, off_ms: np.ndarray, fits: pd.DataFrame):
    """Empirical CDFs of the ON and OFF lengths (steps) with a line per fitted law over them; the law of smallest
    KS distance (the table's `best` row) is drawn bold and called best in the legend, under each panel."""
    fig, axes = style.subplots(1, 2, width=11, height=5.0)
    families = list(dict.fromkeys(fits.family))
    for ax, (period, sample) in zip(axes, (("on", on_ms), ("off", off_ms)), strict=True):
        ordered = np.sort(sample[sample > 0])
        low, high = shown_range(ordered)
        draw_measured(ax, ordered)
        grid = np.geomspace(low, high, 400) if style.log_scale_if_wide(ax, [low, high], "x") else \
            np.linspace(low, high, 400)
        for row in fits[fits.period == period].itertuples():
            draw_law(ax, grid, row, style.PALETTE[(families.index(row.family) + 1) % len(style.PALETTE)])
        ax.set_xlim(low, high)
        ax.set_xlabel(f"{period.upper()} period length (ms)" + cut_note(ordered, high))
        ax.set_ylabel("cumulative fraction of periods")
        ax.set_ylim(0, 1.01)
        style.legend_outside(ax, "below", ncol=2)
    fig.suptitle(f"{name}: session ON/OFF periods per card, measured (steps) and fitted laws; bold: best by KS")
    return fig


def shown_range(ordered: np.ndarray) -> tuple[float, float]:
    """The x range: from the shortest period to the longest, or to the TAIL_QUANTILE one when the longest lie
    more than a decade beyond it."""
    tail = float(np.quantile(ordered, TAIL_QUANTILE))
    high = float(ordered[-1]) if ordered[-1] <= tail * style.DECADE else tail
    low = float(ordered[0])
    return low, high if high > low else low * 2


def cut_note(ordered: np.ndarray, high: float) -> str:
    """What the x axis leaves out on the right, if anything (the table and the KS distances keep every period)."""
    beyond = int(np.count_nonzero(ordered > high))
    if beyond == 0:
        return ""
    return f"\n{beyond} longer periods ({100 * beyond / ordered.size:.2g} %, up to {ordered[-1]:.4g} ms) lie beyond " \
           "the axis"


def draw_measured(ax, ordered: np.ndarray) -> None:
    """The empirical CDF as a step line from 0 at the shortest period (no marker: one per sample would hide it)."""
    xs = np.concatenate([[ordered[0]], ordered])
    ys = np.concatenate([[0.0], np.arange(1, ordered.size + 1) / ordered.size])
    ax.step(xs, ys, where="post", color=style.OKABE_ITO["black"], marker="", lw=1.6,
            label=f"measured ({ordered.size} periods)", zorder=3)


def draw_law(ax, grid: np.ndarray, row, colour: str) -> None:
    """One fitted law's CDF over the grid: bold and labelled best when its row is the best."""
    label = f"{row.family} (KS {row.ks:.3f})" + (", best" if row.best else "")
    ax.plot(grid, parse(row.spec).cdf(grid), color=colour, marker="", lw=BEST_WIDTH if row.best else FITTED_WIDTH,
            ls="-" if row.best else "--", label=label, zorder=4 if row.best else 2)
