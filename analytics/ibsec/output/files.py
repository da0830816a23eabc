"""Writing outputs: never half-written, never replacing what is not a regular file, checked before a run.

Every file ibsec writes goes through `write_output`. An output is a regular
file or a new path, written to a temporary file beside it and renamed into
place, so a crash or a kill never leaves it half-written; `-` is standard
output. Anything else is refused and left as it was, as the engine and the
capture library refuse it: renaming over a device would destroy it (as root,
`--out /dev/null` would turn the machine's /dev/null into a regular file),
over a FIFO would cut off its reader, over a symlink would turn the link into
a file, and writing through one writes where the user did not look. To
discard an output or stream it into a pipe, write it to `-` and redirect
that.

`check_output_file` and `check_output_folder` say before a run whether its
outputs can be created, so an unwritable `--out` is not found only after
hours of simulation.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..errors import ConfigError

STDOUT = "-"
# Where commands write by default: an ignored folder, so that running them never changes a tracked file.
# The committed results/ is written only by `ibsec reproduce` (its default; docs/reproducing.md).
DEFAULT_OUTPUT = "out"


def _default_file_mode() -> int:
    """rw for whoever the umask allows, as open() would create the file (mkstemp makes it 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_FILE_MODE = _default_file_mode()


def _mode(path: Path) -> int | None:
    """The st_mode of what `path` names (a symlink followed), or None when nothing is there."""
    try:
        return os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # NotADirectoryError: under a regular file
        return None


def write_output(path: str | Path, write: Callable[[Path], None]) -> Path:
    """Have write(file) write the output `path` atomically (a regular file or a new path), or to standard output
    for '-'; a folder is an IsADirectoryError, a symlink, device, FIFO or socket a ConfigError, each left as it
    was."""
    if str(path) == STDOUT:
        _write_to_stdout(write)
        return Path(STDOUT)
    path = Path(path)
    kind = _unwritable_kind(path)
    if kind == "a folder":
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if kind is not None:
        raise ConfigError("output", _refusal(str(path), kind))
    _replace_atomically(path, write)
    return path


def is_stream(path: str | Path) -> bool:
    """Standard output: an output beside which no file belongs (a table's meta file beside it)."""
    return str(path) == STDOUT


def _unwritable_kind(path: Path) -> str | None:
    """What `path` is, when it is something an output may not be: None for a regular file or a new path."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"


def _refusal(given: str, kind: str) -> str:
    return (f"{given!r} is {kind}: an output is a regular file or a new path, never replaced or written through "
            f"(write to '-' and redirect standard output to stream or discard it)")


def _replace_atomically(path: Path, write: Callable[[Path], None]) -> None:
    """write(tmp) on a temporary file beside `path`, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    os.chmod(tmp, _FILE_MODE)
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _write_to_stdout(write: Callable[[Path], None]) -> None:
    """The writers write files (pandas, matplotlib), so '-' is a temporary file copied to standard output."""
    with tempfile.TemporaryDirectory(prefix="ibsec-stdout-") as folder:
        tmp = Path(folder) / "output"
        write(tmp)
        sys.stdout.flush()  # what was printed before comes first
        sys.stdout.buffer.write(tmp.read_bytes())
        sys.stdout.buffer.flush()


def write_text_output(path: str | Path, text: str) -> Path:
    return write_output(path, lambda file: file.write_text(text))


def write_json_output(path: str | Path, data) -> Path:
    return write_text_output(path, json.dumps(data, indent=2, sort_keys=False) + "\n")


def append_line_durably(path: str | Path, line: str) -> None:
    """Append one line and fsync, so a finished sweep point survives a kill."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(line.rstrip("\n") + "\n")
        handle.flush()
        os.fsync(handle.fileno())


# ---- before a run: can the outputs be created? ------------------------------------

def _check_folder_creatable(folder: Path, option: str, given: str) -> None:
    """`folder` exists and is a writable folder, or can be made under the nearest one that does."""
    existing = folder
    while _mode(existing) is None and existing != existing.parent:
        existing = existing.parent
    mode = _mode(existing)
    if mode is None or not stat.S_ISDIR(mode):
        raise ConfigError(option, f"{given!r}: {str(existing)!r} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(option, f"{given!r}: the folder {str(existing)!r} is not writable")


def check_output_file(path: str | Path, option: str) -> None:
    """ConfigError naming `option` unless the file `path` can be written (its folder made if missing)."""
    given = str(path)
    if given == STDOUT:
        return
    if not given:
        raise ConfigError(option, "an empty file name")
    kind = _unwritable_kind(Path(path))
    if kind == "a folder":
        raise ConfigError(option, f"{given!r} is a folder, not a file")
    if kind is not None:
        raise ConfigError(option, _refusal(given, kind))
    _check_folder_creatable(Path(path).parent, option, given)


def check_output_folder(path: str | Path, option: str) -> None:
    """ConfigError naming `option` unless the folder `path` exists and is writable or can be made."""
    given = str(path)
    if not given:
        raise ConfigError(option, "an empty folder name")
    mode = _mode(Path(path))
    if mode is not None and not stat.S_ISDIR(mode):
        raise ConfigError(option, f"{given!r} is a file, not a folder")
    _check_folder_creatable(Path(path), option, given)


# ---- before a run: outputs distinct from each other and from the inputs -------------

def file_identity(path: str | Path) -> tuple:
    """What `path` names, as writing or reading it would reach it: (device, inode) of an existing file (a symlink
    followed, so a link or a hard link is the file it shares), else the absolute path a new file would get."""
    try:
        status = os.stat(path)
        return ("inode", status.st_dev, status.st_ino)
    except OSError:
        return ("path", os.path.realpath(path))


def check_distinct_files(outputs: dict[str, str | Path], inputs: dict[str, str | Path]) -> None:
    """ConfigError naming the output (its option, the key of `outputs`) that is another output or an input (`inputs`:
    what each is, e.g. "the result file 'a.json'" -> its path), compared by device and inode, not by name: writing
    it would destroy the input, or one output would overwrite the other. Standard output ('-') is no file."""
    seen: dict[tuple, str] = {}
    for what, path in inputs.items():
        seen.setdefault(file_identity(path), what)
    for option, path in outputs.items():
        if str(path) == STDOUT:
            continue
        identity = file_identity(path)
        if identity in seen:
            raise ConfigError(option, f"{str(path)!r} is also {seen[identity]}: one file cannot be both (writing "
                                      "it would destroy the other); give another")
        seen[identity] = f"the output of {option}"
