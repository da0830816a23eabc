"""Text files a user wrote (configuration files in JSON, TOML or YAML, sweep specs): read alike in every format.

They go through the one bounded reader of side inputs (input_files.py: a folder refused, the size bounded
before the file is read, a FIFO or /dev/stdin the user named read as a stream), with a bound of their own: a
parser takes seconds and gigabytes on a file of megabytes (a YAML list of 9 MB took 253 s and 2.3 GB). Their
bytes must be UTF-8, and a leading byte-order mark is dropped (editors on Windows write one; TOML's parser
refuses it) while one anywhere else is refused.
"""

from __future__ import annotations

from pathlib import Path

from .errors import ConfigError
from .input_files import InputError, read_input_bytes

# A configuration is a few dozen keys and a sweep spec a few tables: 1 MiB is hundreds of times what either
# needs, and the same bound as the engine's on one line of its text inputs (traces, placement files). At this
# size the slowest parser (YAML, ~30 s per MiB in pure Python, ~4 s with libyaml) still answers.
MAX_USER_TEXT_BYTES = 1 << 20
BYTE_ORDER_MARK = "\ufeff"
# How much of a value an error message quotes.
EXCERPT_CHARACTERS = 60


def read_user_text(path: str | Path, what: str, max_bytes: int = MAX_USER_TEXT_BYTES) -> str:
    """The text of `path`, a `what` ("configuration file") a user wrote; ConfigError naming the file if it cannot be
    read (a folder, a missing file), is longer than `max_bytes`, or is not UTF-8. A leading byte-order mark is
    dropped; another is an error."""
    try:
        data = read_input_bytes(path, f"a {what}", max_bytes)
    except InputError as error:
        raise ConfigError(str(path), error.problem) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(str(path), f"not UTF-8 text (byte {error.start}: {error.reason})") from None
    text = text.removeprefix(BYTE_ORDER_MARK)
    stray = text.find(BYTE_ORDER_MARK)
    if stray >= 0:  # the parsers differ on these (libyaml skips one at the start of any line, PyYAML keeps it)
        line = text.count("\n", 0, stray) + 1
        column = stray - (text.rfind("\n", 0, stray) + 1) + 1
        raise ConfigError(str(path), f"a byte-order mark (U+FEFF) at line {line}, column {column}: only the first "
                                     "character of a file may be one")
    return text


def shortened(text: str, limit: int = EXCERPT_CHARACTERS) -> str:
    """`text` cut to its first `limit` characters, with its length said: an error message quotes a key or a value,
    not a megabyte of it."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def excerpt(value, limit: int = EXCERPT_CHARACTERS) -> str:
    """repr(value), shortened."""
    return shortened(repr(value), limit)
