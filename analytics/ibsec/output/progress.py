"""Progress of work whose size is known (points of a sweep, replays): tqdm, with its ETA.

On a terminal, tqdm's bar rewrites one line in place. Into a file or pipe (a batch job's log, CI) a bar would
leave hundreds of carriage-return updates in one line; there it prints a plain line instead, at most every
PLAIN_PERIOD_S seconds and at the end: 'load sweep: 12/40 pt (30%), 1:02 elapsed, ETA 2:25'.
"""

from __future__ import annotations

import sys
from typing import TextIO

from tqdm import tqdm

# Seconds between two plain progress lines (not on a terminal).
PLAIN_PERIOD_S = 30.0
PLAIN_FORMAT = "{desc}: {n_fmt}/{total_fmt} {unit} ({percentage:.0f}%), {elapsed} elapsed, ETA {remaining}{postfix}"


class _Lines:
    """A stream for tqdm that turns each in-place update into one plain line."""

    def __init__(self, stream: TextIO):
        self.stream = stream

    def write(self, text: str) -> None:
        line = text.replace("\r", "").replace("\x1b[A", "").strip()
        if line:
            self.stream.write(line + "\n")

    def flush(self) -> None:
        self.stream.flush()


def progress(total: int, desc: str, unit: str, initial: int = 0, quiet: bool = False,
             stream: TextIO | None = None) -> tqdm:
    """A tqdm progress bar on standard error (or `stream`), or plain periodic lines when that is no terminal."""
    stream = stream or sys.stderr
    if quiet or stream.isatty():
        return tqdm(total=total, initial=initial, desc=desc, unit=unit, disable=quiet, file=stream,
                    dynamic_ncols=True)
    return tqdm(total=total, initial=initial, desc=desc, unit=unit, file=_Lines(stream), mininterval=PLAIN_PERIOD_S,
                maxinterval=float("inf"), miniters=1, bar_format=PLAIN_FORMAT, ascii=True)
