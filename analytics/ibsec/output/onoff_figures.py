"""Figures of the fitted ON/OFF traffic and the hit-rate predictor: one function per figure, each drawing
from a table it is given and returning the matplotlib figure (save_figure writes it)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ..models.renewal import parse  # noqa: E402
from . import figure_style as style  # noqa: E402


def fit_cdfs(name: str, on_ms: np.ndarray, off_ms: np.ndarray, fits: pd.DataFrame):
    """Empirical CDFs of the ON and OFF lengths (log time axis) against each fitted family, KS in the legend."""
    fig, axes = style.subplots(1, 2, width=11, height=4.2)
    for ax, (period, sample) in zip(axes, (("on", on_ms), ("off", off_ms)), strict=True):
        ordered = np.sort(sample[sample > 0])
        ax.step(ordered, np.arange(1, ordered.size + 1) / ordered.size, where="post", color="black", lw=2,
                label=f"measured ({ordered.size} periods)")
        grid = np.geomspace(ordered[0], ordered[-1], 400)
        for row in fits[fits.period == period].itertuples():
            ax.plot(grid, parse(row.spec).cdf(grid), lw=1.2, label=f"{row.family} (KS {row.ks:.3f})")
        ax.set_xscale("log")
        ax.set_xlabel(f"{period.upper()} period length (ms)")
        ax.set_ylabel("cumulative fraction")
        ax.set_ylim(0, 1.01)
        ax.legend(fontsize=8, loc="lower right")
    fig.suptitle(f"{name}: session ON/OFF periods per card, measured and fitted")
    return fig
