"""The command that made an output, as its .meta.json records it (figures are written by figure_style.py)."""

from __future__ import annotations

import shlex
import sys


def command_line(argv: list[str] | None = None) -> str:
    """The ibsec command that made an output, as a shell would take it."""
    return "ibsec " + " ".join(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))
