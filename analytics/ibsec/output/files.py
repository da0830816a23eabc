"""Writing results so that a crash or a kill never leaves a half-written file."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def _default_file_mode() -> int:
    """rw for whoever the umask allows, as open() would create the file (mkstemp makes it 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_FILE_MODE = _default_file_mode()


def write_atomically(path: str | Path, write: Callable[[Path], None]) -> Path:
    """Call write(tmp) on a temporary file beside `path`, then rename it into place."""
    path = Path(path)
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
    return path


def write_text_atomically(path: str | Path, text: str) -> Path:
    return write_atomically(path, lambda tmp: tmp.write_text(text))


def write_json_atomically(path: str | Path, data) -> Path:
    return write_text_atomically(path, json.dumps(data, indent=2, sort_keys=False) + "\n")


def append_line_durably(path: str | Path, line: str) -> None:
    """Append one line and fsync, so a finished sweep point survives a kill."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(line.rstrip("\n") + "\n")
        handle.flush()
        os.fsync(handle.fileno())
