"""Side inputs as ibsec reads them: one bounded reader for every file a user gives or a folder scan finds.

Result files (`ibsec collect`), configuration files, sweep specs and the other files a command reads besides
its options go through `read_input_bytes` or `read_input_text`, which

- open what the path names and look at what was opened (fstat), so what is checked is what is read;
- refuse a folder;
- refuse a device, FIFO or socket that a folder scan found (`found_by_scan`): none of them can be the file the
  scan looks for, and reading one could block forever (a FIFO without a writer) or never end (/dev/zero). A
  scan opens without blocking, so a FIFO cannot hang the open either. One the user named is read as a stream,
  as `cat` would (process substitution `<(...)`, /dev/stdin);
- bound the bytes before reading them: a regular file larger than the bound is refused from its size, a
  stream after bound + 1 bytes, so a link to /dev/zero costs at most the bound; and, when asked, the bytes of
  one line;
- report every problem as an `InputError`, `FILE: problem`, `FILE:LINE: problem` or `FILE: FIELD: problem`.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import IbsecError

MIB = 2**20
# The default bound of one side input: far above any result or configuration the engine and ibsec write.
DEFAULT_MAX_BYTES = 64 * MIB
_CHUNK = MIB


class InputError(IbsecError):
    """A side input that cannot be used: `FILE[:LINE]: [FIELD: ]problem`."""

    def __init__(self, path: str | Path, problem: str, line: int | None = None, field: str | None = None):
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {field}: {problem}" if field else f"{where}: {problem}")
        self.path, self.problem, self.line, self.field = str(path), problem, line, field

    def __reduce__(self):  # crosses from Dask workers with its own constructor arguments
        return InputError, (self.path, self.problem, self.line, self.field)


class NotARegularFile(InputError):
    """A folder scan found a device, FIFO or socket: not read (the scan may skip it with a warning)."""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"


def _too_large(path: str | Path, what: str, limit: int, size: str) -> InputError:
    return InputError(path, f"{size}; {what} is at most {limit} bytes ({limit / MIB:g} MiB): is this the right file?")


def read_input_bytes(path: str | Path, what: str = "an input file", max_bytes: int = DEFAULT_MAX_BYTES,
                     found_by_scan: bool = False) -> bytes:
    """The bytes of the side input `path` (`what` it should be names it in errors), at most `max_bytes`;
    InputError otherwise. `found_by_scan`: a folder scan found it rather than the user naming it, so anything but
    a regular file is refused (NotARegularFile) without reading it."""
    flags = os.O_RDONLY | os.O_NOCTTY | os.O_CLOEXEC | (os.O_NONBLOCK if found_by_scan else 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise InputError(path, error.strerror or str(error)) from None
    try:
        status = os.fstat(fd)
        if stat.S_ISDIR(status.st_mode):
            raise InputError(path, f"a folder, not {what}")
        regular = stat.S_ISREG(status.st_mode)
        if not regular and found_by_scan:
            raise NotARegularFile(path, f"a {_kind(status.st_mode)}, not a regular file: not read")
        if regular and status.st_size > max_bytes:
            raise _too_large(path, what, max_bytes, f"{status.st_size} bytes")
        data = _read_at_most(fd, path, max_bytes + 1)
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise _too_large(path, what, max_bytes, f"more than {max_bytes} bytes")
    return data


def _read_at_most(fd: int, path: str | Path, limit: int) -> bytes:
    """Up to `limit` bytes from `fd`, in chunks, so that memory follows what is there, not the bound."""
    chunks, total = [], 0
    while total < limit:
        try:
            chunk = os.read(fd, min(_CHUNK, limit - total))
        except OSError as error:
            raise InputError(path, f"cannot read: {error.strerror or error}") from None
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def read_input_text(path: str | Path, what: str = "an input file", max_bytes: int = DEFAULT_MAX_BYTES,
                    max_line_bytes: int | None = None, found_by_scan: bool = False) -> str:
    """read_input_bytes decoded as UTF-8, every line at most `max_line_bytes` bytes when that is given; InputError
    naming the file (and line) otherwise."""
    data = read_input_bytes(path, what, max_bytes, found_by_scan)
    if max_line_bytes is not None:
        _check_line_lengths(path, data, max_line_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(path, f"not UTF-8 text (byte {error.start + 1}: {error.reason})", line=line) from None


def _check_line_lengths(path: str | Path, data: bytes, max_line_bytes: int) -> None:
    start = 0
    for number, end in enumerate(_line_ends(data), start=1):
        if end - start > max_line_bytes:
            raise InputError(path, f"a line of {end - start} bytes, longer than the {max_line_bytes} allowed",
                             line=number)
        start = end + 1


def _line_ends(data: bytes):
    """The offset of each line's end (its newline, or the end of the data)."""
    start = 0
    while start <= len(data):
        end = data.find(b"\n", start)
        if end < 0:
            if start < len(data):
                yield len(data)
            return
        yield end
        start = end + 1
