"""The one Python reader of ibsec traces (docs/trace-format.md): header and events, streamed.

    with open_trace(path) as trace:
        trace.header.processes
        for event in trace.events():
            event.rank, event.start, event.end, event.op.role, event.value("peer")

Text traces, plain or gzip, are read directly; zstd text and the binary encoding come through the engine
(`ibsec-engine trace convert FILE -` writing text into a pipe), so there is no second binary or zstd parser to keep
in step with the engine's. So do other tools' traces (an OTF2 anchor, a DUMPI .meta file or its folder), through the
import the engine makes of them once (traces/imported.py). Memory is bounded whatever the file holds: one line of at
most 1 MiB at a time, a header of at most 64 MiB with at most 65 536 notes, the limits the engine applies.

What is checked here is what a reader needs to make sense of the lines (the header's shape, each event's
rank, times, op and number of arguments, the `end` trailer); `ibsec trace validate` checks the rest (matching,
ordering, requests). Every problem is a TraceError naming the file, the line and the field, as the engine's
errors do: `ring.trace:118: field 'peer': 'x' is not a number`.
"""

from __future__ import annotations

import gzip
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..engine.binary import engine_message, engine_path
from ..input_files import InputError
from .ops import TraceOp, TraceOps, trace_ops

MAX_LINE_BYTES = 2**20
CHUNK_BYTES = 2**18  # at most MAX_LINE_BYTES (_bounded_lines)
MAX_HEADER_BYTES = 64 * 2**20
MAX_NOTES = 65536
MAX_PROCESSES = 2**20
FORMAT_WORD = "ibsec-trace"
VERSIONS = (1, 2, 3)
GZIP_MAGIC = b"\x1f\x8b"


class TraceError(InputError):
    """A trace that cannot be read: `FILE:LINE: field 'NAME': problem`, or `FILE: end of trace: problem`."""

    def __init__(self, path: str | Path, problem: str, line: int | None = None, field: str | None = None):
        super().__init__(path, problem, line, f"field '{field}'" if field else None)
        self.field = field

    def __reduce__(self):
        return TraceError, (self.path, self.problem, self.line, self.field)

    @classmethod
    def from_engine(cls, path: str | Path, message: str) -> TraceError:
        """The engine's own error about the trace, which names the file, line or record and field already."""
        error = cls(path, message)
        error.args = (message if message.startswith(str(path)) else f"{path}: {message}",)
        return error


@dataclass(frozen=True)
class TraceHeader:
    """The header of a trace, up to and including its `events` line."""

    version: int
    processes: int
    origin: str
    cpu_time: str | None  # version 3: the clock of compute events' CPU time, `thread` or `process`
    notes: tuple[str, ...]
    comms: dict[int, tuple[int, ...]]  # communicator id -> members (world ranks); the world (0) left out
    lines: int  # header lines, `events` included: the first event is on line lines + 1

    def members(self, comm: int) -> tuple[int, ...]:
        """A communicator's members as world ranks, in communicator-rank order; 0 is the world."""
        return tuple(range(self.processes)) if comm == 0 else self.comms[comm]


class TraceEvent:
    """One event line: RANK START END OP and the op's arguments as text, read by name."""

    __slots__ = ("args", "end", "line", "op", "rank", "start", "_trace")

    def __init__(self, trace: TraceFile, line: int, rank: int, start: int, end: int, op: TraceOp, args: list[str]):
        self._trace, self.line, self.rank, self.start, self.end, self.op, self.args = (
            trace, line, rank, start, end, op, args)

    def value(self, name: str) -> str:
        """The text of argument `name` (as the engine's op table names it); a version-1 line's missing
        `comm` and `posted` read as the world and `exact`, as the format says."""
        try:
            return self.args[self._trace.arguments(self.op).index(name)]
        except ValueError:
            if name in self.op.arguments:
                return "exact" if name == "posted" else "0"
            raise KeyError(f"{self.op.name} has no argument {name!r}") from None

    def number(self, name: str) -> int:
        """Argument `name` as a whole number; TraceError naming the line and the field if it is not one."""
        return self._trace.number(self.value(name), self.line, name)

    def counts(self) -> list[int]:
        """COUNTS of an op that has them: one byte count per member of the communicator."""
        text = self.value("counts")
        return [self._trace.number(count, self.line, "counts") for count in text.split(",")]

    def error(self, problem: str, field: str | None = None) -> TraceError:
        """A TraceError about this event's line, naming `field`."""
        return self._trace.error(problem, self.line, field)

    def values(self) -> dict[str, str]:
        """Every argument the line carries, by name."""
        return dict(zip(self._trace.arguments(self.op), self.args, strict=True))


class TraceFile:
    """An open trace: its header, then its events once, in file order."""

    def __init__(self, path: Path, lines: Iterator[str], ops: TraceOps):
        self.path, self._lines, self.ops = path, lines, ops
        self._number = 0
        self.header = self._read_header()
        self._arguments = {op.name: op.arguments_in(self.header.version) for op in ops.values()}
        self.complete = False

    # ---- errors and fields ----

    def error(self, problem: str, line: int | None = None, field: str | None = None) -> TraceError:
        return TraceError(self.path, problem, line, field)

    def number(self, text: str, line: int, field: str) -> int:
        if not text.isdigit():
            raise self.error(f"{text!r} is not a whole number", line, field)
        return int(text)

    def arguments(self, op: TraceOp) -> tuple[str, ...]:
        return self._arguments[op.name]

    # ---- lines ----

    def _next_line(self) -> str | None:
        """The next line, comments skipped; None at the end of the file."""
        for line in self._lines:
            self._number += 1
            if type(line) is LineProblem:
                raise self.error(line.problem, self._number)
            if not line.startswith("#"):
                return line
        return None

    # ---- header ----

    def _read_header(self) -> TraceHeader:
        first = self._next_line()
        if first is None:
            raise TraceError(self.path, "is empty, not a trace")
        version = self._version(first)
        fields = {"processes": 0, "origin": "", "cpu_time": None}
        notes, comms, size = [], {}, len(first)
        while (line := self._next_line()) != "events":
            if line is None:
                raise self.error("end of trace: truncated: the header has no 'events' line")
            size += len(line) + 1
            if size > MAX_HEADER_BYTES:
                raise self.error(f"header longer than {MAX_HEADER_BYTES} bytes", self._number)
            self._header_line(line, fields, notes, comms)
        if fields["processes"] == 0:
            raise self.error("the header has no 'processes' line", self._number, "processes")
        return TraceHeader(version, fields["processes"], fields["origin"], fields["cpu_time"], tuple(notes), comms,
                           self._number)

    def _version(self, line: str) -> int:
        word, _, version = line.partition(" ")
        if word != FORMAT_WORD or not version.isdigit():
            raise self.error(f"not an ibsec trace (the first line must be '{FORMAT_WORD} {VERSIONS[-1]}', "
                             f"found {line[:40]!r})", 1)
        if int(version) not in VERSIONS:
            raise self.error(f"{version} is not a version this reader knows ({', '.join(map(str, VERSIONS))})",
                             1, "version")
        return int(version)

    def _header_line(self, line: str, fields: dict, notes: list[str], comms: dict) -> None:
        word, _, rest = line.partition(" ")
        if word == "processes":
            processes = self.number(rest, self._number, "processes")
            if not 1 <= processes <= MAX_PROCESSES:
                raise self.error(f"{processes} is not 1 to {MAX_PROCESSES}", self._number, "processes")
            fields["processes"] = processes
        elif word in ("origin", "cpu_time"):
            fields[word] = rest
        elif word == "note":
            if len(notes) == MAX_NOTES:
                raise self.error(f"more than {MAX_NOTES} note lines", self._number, "note")
            notes.append(rest)
        elif word == "comm":
            comm, *members = (self.number(text, self._number, "comm") for text in rest.split(" "))
            comms[comm] = tuple(members)
        elif word != "time_unit":
            raise self.error(f"{word!r} is not a header line", self._number, word)

    # ---- events ----

    def events(self, roles: frozenset[str] | None = None) -> Iterator[TraceEvent]:
        """Every event in file order, or only those whose op has one of `roles` (the lines of the others are
        checked for their op and number of arguments only: a fast reader skips most lines); then the `end`
        trailer is checked against their number."""
        events, arguments, ops = 0, self._arguments, self.ops
        while (line := self._next_line()) is not None:
            if line.startswith("end"):
                self._trailer(line, events)
                return
            events += 1
            fields = line.split(" ")
            op = ops.get(fields[3]) if len(fields) >= 4 else None
            if op is None or len(fields) - 4 != len(arguments[op.name]):
                self._refuse(fields)
            if roles is None or op.role in roles:
                yield self._event(fields, op)
        raise self.error(f"end of trace: truncated: no 'end' line after {events} events")

    def _refuse(self, fields: list[str]) -> None:
        """Raises the error of an event line whose op is unknown or whose number of fields is wrong."""
        if len(fields) < 4:
            raise self.error(f"an event has RANK START END OP; found {len(fields)} fields", self._number,
                             ("rank", "start", "end", "op")[len(fields)])
        op = self.ops.get(fields[3])
        if op is None:
            raise self.error(f"{fields[3]!r} is not an op of the engine's table (`ibsec-engine registries`)",
                             self._number, "op")
        expected = self.arguments(op)
        given = len(fields) - 4
        if given < len(expected):
            raise self.error(f"missing (a {op.name} line has {len(expected)} arguments)", self._number,
                             expected[given])
        raise self.error(f"{given - len(expected)} fields too many for {op.name} "
                         f"({' '.join(expected) or 'no arguments'})", self._number, op.name)

    def _event(self, fields: list[str], op: TraceOp) -> TraceEvent:
        """The event of a line whose op and number of fields are right."""
        if not (fields[0] + fields[1] + fields[2]).isdigit():  # one test for the three, the common case
            for text, name in zip(fields, ("rank", "start", "end"), strict=False):
                self.number(text, self._number, name)
        rank = int(fields[0])
        if rank >= self.header.processes:
            raise self.error(f"{rank} is not a rank (the trace has {self.header.processes} processes)",
                             self._number, "rank")
        return TraceEvent(self, self._number, rank, int(fields[1]), int(fields[2]), op, fields[4:])

    def _trailer(self, line: str, events: int) -> None:
        _, _, count = line.partition(" ")
        if self.number(count, self._number, "end") != events:
            raise self.error(f"says {count} events, the trace has {events}", self._number, "end")
        if self._next_line() is not None:
            raise self.error("text after the 'end' line", self._number)
        self.complete = True


# ---- opening ---------------------------------------------------------------------------------------------------

def _open_file(path: Path) -> BinaryIO:
    """The file, refused with the reason when it is not one (a folder, a missing path): what the engine checks."""
    try:
        raw = open(path, "rb")  # noqa: SIM115 (closed by the caller's context)
    except IsADirectoryError:
        raise TraceError(path, "is a directory, not a trace") from None
    except OSError as error:
        raise TraceError(path, error.strerror or str(error)) from None
    return raw


class LineProblem(str):
    """In place of a line that cannot be read (too long, not ASCII, cut short): what is wrong with it. The reader,
    which counts lines, raises it with the line's number."""

    problem: str

    @staticmethod
    def of(problem: str) -> LineProblem:
        marker = LineProblem()
        marker.problem = problem
        return marker


def _bounded_lines(stream: BinaryIO) -> Iterator[str]:
    """The lines of STREAM without their ends, read a chunk at a time (so that splitting and decoding run in C),
    never holding more than a chunk and one line of at most MAX_LINE_BYTES."""
    rest = b""
    while chunk := stream.read(CHUNK_BYTES):
        lines = (rest + chunk).split(b"\n")
        rest = lines.pop()
        # Every line but the first lies within the chunk, which is no longer than a line may be.
        if len(lines[0] if lines else rest) > MAX_LINE_BYTES:
            yield LineProblem.of(f"line longer than {MAX_LINE_BYTES} bytes")
            return
        yield from _decoded(lines)
    if rest:
        yield LineProblem.of("truncated: the last line has no end of line")


def _decoded(lines: list[bytes]) -> Iterator[str]:
    try:
        yield from b"\n".join(lines).decode("ascii").split("\n") if lines else ()
    except UnicodeDecodeError:  # find the line, one at a time
        for line in lines:
            try:
                yield line.decode("ascii")
            except UnicodeDecodeError as error:
                yield LineProblem.of(f"not ASCII text (byte {error.start + 1} of the line)")
                return


def _is_direct_text(raw: BinaryIO) -> bool:
    """Whether Python reads this file itself: text, plain or gzip. Anything else goes through the engine."""
    head = raw.read(len(FORMAT_WORD))
    if head[:2] == GZIP_MAGIC:
        raw.seek(0)
        with gzip.GzipFile(fileobj=raw) as unzipped:
            try:
                head = unzipped.read(len(FORMAT_WORD))
            except (OSError, EOFError):
                head = b""  # corrupt: the engine names the problem
    raw.seek(0)
    return head == FORMAT_WORD.encode()


@contextmanager
def _direct_lines(path: Path, raw: BinaryIO) -> Iterator[Iterator[str]]:
    if raw.read(2) != GZIP_MAGIC:
        raw.seek(0)
        yield _bounded_lines(raw)
        return
    raw.seek(0)
    with gzip.GzipFile(fileobj=raw) as unzipped:
        try:
            yield _bounded_lines(unzipped)
        except (OSError, EOFError) as error:
            raise TraceError(path, f"cannot be decompressed: {error}") from None


@contextmanager
def _converted_lines(path: Path) -> Iterator[Iterator[str]]:
    """The text the engine converts the trace to, streamed through a pipe; the engine's error if it fails."""
    with subprocess.Popen([engine_path(), "trace", "convert", str(path), "-"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as converter:
        try:
            yield _bounded_lines(converter.stdout)
        finally:
            # A reader that stops before the end (or fails) leaves text in the pipe: the conversion is ended,
            # not waited for. A conversion that failed is the cause of whatever the reader then saw (an empty or
            # cut text), so its error is the one raised.
            if converter.stdout.read(1) != b"":
                converter.kill()
            elif converter.wait() != 0:
                error = converter.stderr.read().decode("utf-8", "replace")
                raise TraceError.from_engine(path, engine_message(error, converter.returncode)) from None


@contextmanager
def trace_lines(path: str | Path) -> Iterator[Iterator[str]]:
    """The text lines of a trace in any encoding, without their ends: direct when text (plain or gzip), else from
    the engine's conversion to text. A line that cannot be read is a LineProblem in its place."""
    path = Path(path)
    if path.is_dir():  # may hold a DUMPI run, which the engine imports (docs/importing.md) or refuses
        with _converted_lines(path) as lines:
            yield lines
        return
    with _open_file(path) as raw:
        if _is_direct_text(raw):
            with _direct_lines(path, raw) as lines:
                yield lines
            return
    with _converted_lines(path) as lines:
        yield lines


@contextmanager
def open_trace(path: str | Path, ops: TraceOps | None = None) -> Iterator[TraceFile]:
    """The trace at `path` (any encoding the engine reads) with its header read; its events are streamed by
    `.events()`. `ops`: the engine's op table, when the caller has it already."""
    with trace_lines(path) as lines:
        yield TraceFile(Path(path), lines, ops if ops is not None else trace_ops())


def read_header(path: str | Path) -> TraceHeader:
    """Only the header of a trace."""
    with open_trace(path) as trace:
        return trace.header
