"""The configurations shipped with ibsec (the repository's configs/, which the package holds as ibsec/configs, a
link in a checkout and copied files in a wheel): `ibsec run paper-16` finds configs/paper-16.json from any folder.

There is one list: the files in that folder. A name that is not a file is looked up there, with or without its
suffix; an unknown name is an error that lists the shipped ones and the closest match.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from .errors import ConfigError

SHIPPED = Path(__file__).resolve().parent / "configs"
CONFIG_SUFFIXES = (".json", ".toml", ".yaml", ".yml")
# What each option names, and where its shipped files are.
FOLDERS = {"config": "", "attack": "attacks", "spec": "sweeps"}


def shipped_names(kind: str) -> list[str]:
    """The shipped files of one kind, by name without suffix, sorted."""
    folder = SHIPPED / FOLDERS[kind]
    if not folder.is_dir():
        return []
    return sorted(path.stem for path in folder.iterdir() if path.is_file() and path.suffix in CONFIG_SUFFIXES)


def shipped_path(kind: str, name: str) -> Path | None:
    folder = SHIPPED / FOLDERS[kind]
    for candidate in (name, *(name + suffix for suffix in CONFIG_SUFFIXES)):
        path = folder / candidate
        if "/" not in name and path.is_file():
            return path
    return None


def resolve(kind: str, given: str | None, field: str) -> str | None:
    """A file the user named: itself if it exists, else the shipped file of that name; ConfigError otherwise."""
    if given is None or Path(given).exists():
        return given
    found = shipped_path(kind, given)
    if found is not None:
        return str(found)
    names = shipped_names(kind)
    close = difflib.get_close_matches(Path(given).stem, names, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise ConfigError(field, f"{given!r} does not exist, and no shipped {kind} has that name ({hint}shipped: "
                             f"{', '.join(names)})")
