"""JSON that a user wrote (sweep specs, configuration files): a key given twice in one object is an error.

Python's json keeps the last of repeated keys without a word; ibsec-engine refuses them, and so does this.
"""

from __future__ import annotations

import json


class DuplicateKeyError(ValueError):
    """A key appears twice in one JSON object."""


def _unique(pairs: list[tuple[str, object]]) -> dict:
    seen: dict = {}
    for key, value in pairs:
        if key in seen:
            raise DuplicateKeyError(f"{key!r} is given twice in one object (JSON keys must be unique)")
        seen[key] = value
    return seen


def loads(text: str):
    """json.loads, refusing repeated keys (DuplicateKeyError); JSONDecodeError and RecursionError as json's."""
    return json.loads(text, object_pairs_hook=_unique)
