"""A figure as ibsec writes it: its table (CSV), its plot (PNG) and the command that made them (.meta.json)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..version import __version__
from .files import write_json_output, write_output

if TYPE_CHECKING:
    import pandas as pd


def command_line(argv: list[str] | None = None) -> str:
    """The ibsec command that made an output, as a shell would take it."""
    return "ibsec " + " ".join(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))


def save_figure(df: pd.DataFrame, fig, out: Path, name: str, parameters: dict,
                argv: list[str] | None = None) -> list[Path]:
    """Write out/name.csv (the table), out/name.png (the plot) and out/name.meta.json (command, parameters)."""
    csv_path = write_output(out / f"{name}.csv", lambda tmp: df.to_csv(tmp, index=False, float_format="%.6g"))
    png_path = write_output(out / f"{name}.png", lambda tmp: fig.savefig(tmp, format="png", dpi=120))
    import matplotlib.pyplot as plt  # only when there is a figure: `ibsec hwcost` needs command_line alone

    plt.close(fig)
    meta = {
        "figure": name,
        "command": command_line(argv),
        "ibsec_version": __version__,
        "parameters": parameters,
        "files": [csv_path.name, png_path.name],
    }
    write_json_output(out / f"{name}.meta.json", meta)
    return [csv_path, png_path]
