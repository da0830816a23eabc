"""Content digests of files: what identifies an engine binary, a config file or a trace, whatever its path."""

from __future__ import annotations

import functools
import hashlib
import os


@functools.cache
def _digest(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha1()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def file_digest(path: str | os.PathLike) -> str:
    """16 hex digits of the SHA-1 of the file's contents; each file is read once while it is unchanged."""
    real = os.path.realpath(path)
    stat = os.stat(real)
    return _digest(real, stat.st_size, stat.st_mtime_ns)


def text_digest(text: str) -> str:
    """16 hex digits of the SHA-1 of a text (a point's identity as JSON)."""
    return hashlib.sha1(text.encode()).hexdigest()[:16]
