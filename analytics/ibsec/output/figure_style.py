"""One look for every ibsec figure, and the one call that writes a figure: `save_figure`.

Adopting it in a plotting module::

    from ..output import figure_style as style

    fig, ax = style.subplots()                      # the house style, constrained layout
    ax.plot(x, y, label="SKC-6", **style.config_style("SKC-6"))
    style.legend_outside(ax)                        # never over the data
    style.save_figure(table, fig, out, "fig_name", parameters)   # CSV + Parquet, PDF + SVG + 300-dpi PNG, meta

What the style fixes, and why:

- colours from Okabe and Ito's palette (Okabe & Ito 2008, "Color Universal
  Design"), told apart under the common colour-vision deficiencies and in
  grey print, each with its own marker, so series differ by shape as well;
  a card configuration keeps one colour and marker in every figure
  (`config_style`), and the key comparison is never red against green;
- legends outside the axes (`legend_outside`), so they cover no data;
- hit rates mostly above 0.9 drawn as miss rates (1 - hit rate) on a log axis
  (`hit_rate_axis`): 0.98, 0.99 and 0.999 are a factor 10 apart there and
  invisible on a 0-1 axis;
- a log axis where the values span more than a decade (`log_scale_if_wide`);
- µs, not "us" (`MICROSECONDS`);
- vector PDF and SVG (text kept as text) beside a 300-dpi PNG, written
  reproducibly (no creation date, a fixed SVG id salt);
- titles that fit (`fitted_title`): details such as long `--set` lists go to
  the figure's .meta.json, which records every parameter.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from cycler import cycler  # noqa: E402

from ..version import __version__  # noqa: E402
from .figures import command_line  # noqa: E402
from .files import write_json_output, write_output  # noqa: E402
from .provenance import provenance  # noqa: E402
from .tables import write_csv_and_parquet  # noqa: E402

if TYPE_CHECKING:
    import pandas as pd

# Okabe & Ito (2008), in the order series take them; yellow (weak on white) comes last.
OKABE_ITO = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "bluish green": "#009E73",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
    "sky blue": "#56B4E9",
    "black": "#000000",
    "yellow": "#F0E442",
}
PALETTE = list(OKABE_ITO.values())
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
LINE_STYLES = ["-", "--", "-.", ":"]

# One colour and marker per card configuration across every figure. NoSecurity (the reference) is black,
# the configurations compared with it are blue (SKC) against orange (prefetch) and vermillion (no cache).
CONFIG_STYLES = {
    "NoSecurity": (OKABE_ITO["black"], "o"),
    "NoSKC": (OKABE_ITO["vermillion"], "s"),
    "SKC": (OKABE_ITO["blue"], "^"),
    "Prefetch": (OKABE_ITO["orange"], "D"),
    "SKC-2": (OKABE_ITO["sky blue"], "v"),
    "SKC-4": (OKABE_ITO["bluish green"], "P"),
    "SKC-6": (OKABE_ITO["blue"], "^"),
    "SKC-10": (OKABE_ITO["reddish purple"], "X"),
    "SKC-16": (OKABE_ITO["orange"], "D"),
}

DPI = 300
FORMATS = ("pdf", "svg", "png")
MICROSECONDS = "µs"
# A hit rate whose every value is above this is drawn as a miss rate on a log axis.
HIGH_HIT_RATE = 0.9
# Values spanning more than this factor get a log axis.
DECADE = 10.0
TITLE_CHARACTERS = 90

RC = {
    "axes.prop_cycle": cycler(color=PALETTE) + cycler(marker=MARKERS),
    "figure.dpi": 100,
    "savefig.dpi": DPI,
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.5,
    "lines.linewidth": 1.4,
    "lines.markersize": 4.5,
    "pdf.fonttype": 42,  # TrueType in the PDF, so journals' checks pass and text stays editable
    "svg.fonttype": "none",  # text as text in the SVG
    "svg.hashsalt": "ibsec",  # the same figure gives the same SVG
}
plt.rcParams.update(RC)


def subplots(nrows: int = 1, ncols: int = 1, width: float = 6.4, height: float = 3.6, **options):
    """plt.subplots in the house style: `width` x `height` inches per figure, constrained layout (which leaves
    room for legends outside the axes)."""
    options.setdefault("layout", "constrained")
    return plt.subplots(nrows, ncols, figsize=(width, height), **options)


def series_style(index: int) -> dict:
    """Colour and marker of the `index`-th series of a plot."""
    return {"color": PALETTE[index % len(PALETTE)], "marker": MARKERS[index % len(MARKERS)]}


def config_style(name: str, index: int = 0) -> dict:
    """Colour and marker of a card configuration ('NoSKC', 'SKC-6', ...), the same in every figure; a name
    without its own style takes the `index`-th series style."""
    if name in CONFIG_STYLES:
        colour, marker = CONFIG_STYLES[name]
        return {"color": colour, "marker": marker}
    return series_style(index)


def bar_style(name: str, index: int = 0) -> dict:
    """A configuration's bars: its colour (bars take no marker)."""
    return {"color": config_style(name, index)["color"], "edgecolor": "white", "linewidth": 0.3}


def grouped_bars(ax, table: pd.DataFrame, group: str, series: str, value: str, transform=None,
                 order: Iterable[str] | None = None) -> None:
    """One group of bars per value of `group` (x axis), one bar per value of `series` in each, `value` as the
    height (through `transform`, e.g. a unit change or hit_rate_axis's); a configuration keeps its colour.
    Where several rows share a bar (one per seed), the bar is their mean and an error bar their range."""
    transform = transform or (lambda heights: heights)
    groups = list(dict.fromkeys(table[group]))
    names = list(order) if order is not None else list(dict.fromkeys(table[series]))
    width = 0.8 / max(1, len(names))
    for i, name in enumerate(names):
        values = table[table[series] == name].groupby(group, sort=False)[value]
        mean, low, high = (getattr(values, how)().reindex(groups).to_numpy(dtype=float)
                           for how in ("mean", "min", "max"))
        heights = np.asarray(transform(mean), dtype=float)
        spread = None
        if np.nan_to_num(high - low).any():
            spread = [np.abs(heights - np.asarray(transform(low), dtype=float)),
                      np.abs(np.asarray(transform(high), dtype=float) - heights)]
        xs = [g + (i - (len(names) - 1) / 2) * width for g in range(len(groups))]
        ax.bar(xs, heights, width, yerr=spread, capsize=2, label=name, **bar_style(name, i))
    ax.set_xticks(range(len(groups)), groups)


def line_over_seeds(ax, table: pd.DataFrame, x: str, y: str, transform=None, **line) -> None:
    """y against x; where several rows share an x (one per seed), their mean with the range as error bars."""
    transform = transform or (lambda values: values)
    grouped = table.groupby(x, sort=True)[y]
    mean = np.asarray(transform(grouped.mean().to_numpy(dtype=float)), dtype=float)
    low = np.asarray(transform(grouped.min().to_numpy(dtype=float)), dtype=float)
    high = np.asarray(transform(grouped.max().to_numpy(dtype=float)), dtype=float)
    xs = grouped.mean().index
    if np.nan_to_num(high - low).any():
        ax.errorbar(xs, mean, yerr=[np.abs(mean - low), np.abs(high - mean)], capsize=2, **line)
    else:
        ax.plot(xs, mean, **line)


def legend_outside(ax, where: str = "right", **options):
    """The axes' legend beside them (`right`) or under them (`below`), never over the data."""
    if where == "right":
        return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **options)
    options.setdefault("ncol", 4)
    return ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), borderaxespad=0.0, **options)


def figure_legend(fig, ax, where: str = "outside right upper", **options):
    """One legend for the whole figure, from `ax`'s series, outside every axes (constrained layout makes room)."""
    handles, labels = ax.get_legend_handles_labels()
    return fig.legend(handles, labels, loc=where, **options)


def _finite(values: Iterable) -> np.ndarray:
    array = np.asarray([float(v) for v in values if v is not None], dtype=float)
    return array[np.isfinite(array)]


def high_hit_rates(values: Iterable) -> bool:
    """Whether most hit rates (the median) are above HIGH_HIT_RATE: then they are drawn as miss rates on a log
    axis, which also shows the few lower ones (a miss rate of 0.2 beside 0.002)."""
    finite = _finite(values)
    return len(finite) > 0 and bool(np.median(finite) > HIGH_HIT_RATE)


def hit_rate_axis(ax, values: Iterable, what: str = "SKC hit rate"):
    """Set `ax`'s y axis for these hit rates; the function that turns a hit rate into what is drawn.

    Mostly above HIGH_HIT_RATE: miss rate (1 - hit rate) on a log axis (a miss rate of 0 is drawn at half
    the smallest one, and the table keeps the exact value); else the hit rate on a 0-1 axis."""
    finite = _finite(values)
    if high_hit_rates(finite):
        misses = 1.0 - finite
        floor = misses[misses > 0].min() / 2 if (misses > 0).any() else 1e-6
        ax.set_yscale("log")
        plain_numbers(ax, minor=misses.max() / floor < DECADE ** 2)
        ax.set_ylabel(f"{what.replace('hit rate', 'miss rate')} (1 − hit rate, log)")
        return lambda hit: np.maximum(1.0 - np.asarray(hit, dtype=float), floor)
    ax.set_ylim(0, 1.02)
    ax.set_ylabel(what)
    return lambda hit: np.asarray(hit, dtype=float)


def log_scale_if_wide(ax, values: Iterable, axis: str = "y") -> bool:
    """A log scale (plain tick labels) on `axis` when the positive values span more than a decade; whether it set
    one."""
    finite = _finite(values)
    positive = finite[finite > 0]
    wide = len(positive) > 1 and positive.max() / positive.min() > DECADE
    if wide:
        (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
        plain_numbers(ax, axis, minor=positive.max() / positive.min() < DECADE ** 2)
    return wide


def plain_numbers(ax, axis: str = "y", minor: bool = True) -> None:
    """Tick labels of a log axis as plain numbers (0.5, 2, 40), not powers of ten; `minor` also labels the 2s
    and 5s between decades, which helps where the values span a decade or two and crowds a wider axis."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    if minor:
        target.set_minor_formatter(FuncFormatter(lambda value, _: f"{value:g}" if f"{value:.0e}"[0] in "25" else ""))
    else:
        target.set_minor_formatter(NullFormatter())


def fitted_title(text: str, limit: int = TITLE_CHARACTERS) -> str:
    """`text` if it fits on a line, else cut at a word before `limit` with '…' (the whole is in the meta file)."""
    if len(text) <= limit:
        return text
    cut = text[:limit - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return f"{cut}…"


def spread(values: Iterable) -> tuple[float, float]:
    """(mean, half-width of the min-max range) of a point's values over seeds; (mean, 0) for one value."""
    finite = _finite(values)
    if len(finite) == 0:
        return math.nan, 0.0
    return float(finite.mean()), float((finite.max() - finite.min()) / 2)


def write_picture(fig, path: str | Path) -> Path:
    """The figure as one file, its format from the suffix (one of FORMATS), written atomically and reproducibly
    (no date inside a PDF or SVG)."""
    fmt = Path(path).suffix.lower().lstrip(".")
    metadata = {"CreationDate": None} if fmt == "pdf" else {"Date": None} if fmt == "svg" else None
    return write_output(path, lambda tmp: fig.savefig(tmp, format=fmt, dpi=DPI, metadata=metadata))


def write_plot(fig, out: Path, name: str) -> list[Path]:
    """out/name.pdf, .svg and .png (300 dpi), written atomically and reproducibly; the figure is closed."""
    written = [write_picture(fig, out / f"{name}.{fmt}") for fmt in FORMATS]
    plt.close(fig)
    return written


def figure_files(out: Path, name: str) -> list[Path]:
    """The files save_figure wrote for figure `name` in `out`, as its meta file lists them, and the meta file."""
    from ..input_files import read_input_text

    meta = Path(out) / f"{name}.meta.json"
    return [Path(out) / file for file in json.loads(read_input_text(meta, "a figure's meta file"))["files"]] + [meta]


def save_figure(df: pd.DataFrame, fig, out: Path, name: str, parameters: dict,
                argv: list[str] | None = None, engine_made: bool = True) -> list[Path]:
    """Write a figure as ibsec writes every figure: out/name.csv and .parquet (the table the plot is drawn
    from), .pdf, .svg and .png (the plot), and .meta.json (the command, every parameter, the files, when it was
    written and the engine that made it; `engine_made` False for a table computed in Python alone)."""
    out = Path(out)
    tables = write_csv_and_parquet(df, out / name)
    plots = write_plot(fig, out, name)
    meta = {
        "figure": name,
        "command": command_line(argv),
        "ibsec_version": __version__,
        **provenance(engine_made),
        "parameters": parameters,
        "files": [path.name for path in [*tables, *plots]],
    }
    write_json_output(out / f"{name}.meta.json", meta)
    return [*tables, *plots]
