"""What the package needs from a Python newer than the oldest it supports (3.10, pyproject.toml).

tomllib is in the standard library from 3.11; on 3.10 the same parser is the `tomli` package (a dependency there).
"""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

__all__ = ["tomllib"]
