"""Which files under a folder git tracks: an output folder holding them is a checkout's committed results.

`ibsec reproduce` rewrites every table of its output folder; pointed at the
committed `results/` it would replace the published numbers with those of
whatever plan ran, so it asks first (docs/reproducing.md).
"""

from __future__ import annotations

import subprocess
from pathlib import Path


def nearest_existing(path: Path) -> Path:
    """`path`, or the closest folder above it that exists (an output folder may not be made yet)."""
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def tracked_files(folder: str | Path) -> list[str]:
    """Files git tracks under `folder`, as paths relative to the current folder, sorted; [] when the folder is
    in no git checkout or git is not installed (then nothing is known to be committed there)."""
    folder = Path(folder).absolute()
    base = nearest_existing(folder)
    if not base.is_dir():
        base = base.parent
    try:
        done = subprocess.run(["git", "-C", str(base), "ls-files", "-z", "--full-name", "--",
                               str(folder)], capture_output=True, text=True, check=False)
        top = subprocess.run(["git", "-C", str(base), "rev-parse", "--show-toplevel"], capture_output=True,
                             text=True, check=False)
    except FileNotFoundError:  # no git on this machine
        return []
    if done.returncode != 0 or top.returncode != 0:  # not a checkout
        return []
    root = Path(top.stdout.strip())
    return sorted(_relative(root / name) for name in done.stdout.split("\0") if name)


def _relative(path: Path) -> str:
    """`path` relative to the current folder when it is under it (as the user named it), else absolute."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def listed(names: list[str], shown: int = 3) -> str:
    """'a, b, c and 31 more': a few names and how many others."""
    head = ", ".join(names[:shown])
    return head if len(names) <= shown else f"{head} and {len(names) - shown} more"
