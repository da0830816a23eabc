"""The canonical text encoding of a trace (docs/trace-format.md), optionally gzipped.

The bytes depend only on the content: a gzip stream is written with no file
name and time 0 in its header, so the same arguments always give the same file.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from ..errors import ConfigError
from ..output.files import write_output

FORMAT_LINE = "ibsec-trace 2"
BATCH_LINES = 8192


def header_text(processes: int, origin: str, notes: Sequence[str] = (),
                comms: Mapping[int, Sequence[int]] | None = None) -> str:
    """Everything up to and including the `events` line."""
    lines = [FORMAT_LINE, f"processes {processes}", "time_unit ns", origin]
    lines += [f"note {note}" for note in notes]
    lines += [f"comm {cid} {' '.join(map(str, members))}" for cid, members in sorted((comms or {}).items())]
    lines.append("events")
    for line in lines:
        if "\n" in line:
            raise ValueError(f"header line contains a newline: {line!r}")
    return "\n".join(lines) + "\n"


def check_output_name(path: str | Path) -> None:
    """The generators write text; a binary or zstd name would promise something else."""
    name = str(path)
    if name.endswith(".ibtb") or ".ibtb." in name or name.endswith(".zst"):
        raise ConfigError("--out", f"{name}: the generator writes the text encoding (FILE or FILE.gz); "
                                   "use `ibsec trace convert` for binary or zstd")


def write_trace(path: str | Path, header: str, lines: Iterable[str]) -> int:
    """Write header, event lines and the `end N` trailer; return N.

    The file appears only once complete (written beside it, then renamed).
    """
    check_output_name(path)
    count = 0

    def write_body(stream: io.BufferedIOBase) -> None:
        nonlocal count
        stream.write(header.encode("ascii"))
        batch: list[str] = []
        for line in lines:
            batch.append(line)
            if len(batch) >= BATCH_LINES:
                stream.write(("\n".join(batch) + "\n").encode("ascii"))
                count += len(batch)
                batch.clear()
        if batch:
            stream.write(("\n".join(batch) + "\n").encode("ascii"))
            count += len(batch)
        stream.write(f"end {count}\n".encode("ascii"))

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as raw:
            if str(path).endswith(".gz"):
                with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6) as zipped:
                    write_body(zipped)
            else:
                buffered = io.BufferedWriter(raw, buffer_size=1 << 20)
                write_body(buffered)
                buffered.flush()
                buffered.detach()

    write_output(path, write)
    return count
