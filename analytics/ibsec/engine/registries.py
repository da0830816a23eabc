"""The names a configuration can choose from, as the engine registers them (`ibsec-engine registries --json`).

Replacement policies, schedulers, topologies, routings, card configurations (security
modes), link rates and trace operations, each with its description. Python
reads every such name here instead of keeping a copy: a scheduler or policy
registered in the engine is accepted by ibsec at once. The answer is read
once per engine binary (keyed on its digest).
"""

from __future__ import annotations

import functools
import json
import re
import subprocess

from ..errors import ConfigError, IbsecError
from .binary import EngineError, engine_message, engine_path, exit_code_of
from .digests import file_digest

SECTIONS = ("replacement_policies", "schedulers", "topologies", "routings", "security_modes", "link_rates", "trace_ops",
            "import_formats")
# A registered name with placeholders, e.g. "SKC-<n>+Prefetch-<m>": each <x> stands for a whole number.
PLACEHOLDER = re.compile(r"<[a-z]+>")


@functools.cache
def _read(path: str, digest: str) -> dict:
    completed = subprocess.run([path, "registries", "--json"], capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        message = engine_message(completed.stderr, completed.returncode)
        raise EngineError(f"{path} cannot list its registries ({message}): rebuild ibsec-engine",
                          exit_code_of(completed.returncode))
    try:
        data = json.loads(completed.stdout)
    except json.JSONDecodeError as error:
        raise IbsecError(f"ibsec-engine registries printed unreadable JSON ({error})") from None
    if not isinstance(data, dict):
        raise IbsecError("ibsec-engine registries printed something other than a JSON object")
    return data


def registries() -> dict:
    """Every registry of the engine ibsec runs: {section: [{"name", "description", ...}, ...]}."""
    path = engine_path()
    return _read(path, file_digest(path))


def entries(section: str) -> list[dict]:
    """The entries of one registry (a name of SECTIONS); EngineError if this engine does not list it."""
    data = registries()
    if section not in data:
        raise EngineError(f"this ibsec-engine lists no {section} in `registries --json`: rebuild it")
    return data[section]


def names(section: str) -> list[str]:
    """The registered names of one section, in the engine's order."""
    return [entry["name"] for entry in entries(section)]


def name_pattern(name: str) -> re.Pattern:
    """A registered name as a pattern: 'SKC-<n>' matches 'SKC-6'."""
    parts = PLACEHOLDER.split(name)
    return re.compile(r"[0-9]+".join(re.escape(part) for part in parts))


def is_registered(section: str, name: str) -> bool:
    """Whether `name` is one of the section's names (placeholders in them stand for whole numbers)."""
    return any(name_pattern(known).fullmatch(name) for known in names(section))


def require_registered(section: str, given: list[str], field: str) -> list[str]:
    """`given`, if every name is registered; else ConfigError naming the unknown ones and listing the known."""
    unknown = [name for name in given if not is_registered(section, name)]
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0], names(section), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise ConfigError(field, f"unknown {', '.join(map(repr, unknown))}{hint} (known: {', '.join(names(section))})")
    return given


def listed(section: str) -> str:
    """The section's names for a help text, or where to find them if the engine cannot say."""
    try:
        return ", ".join(names(section))
    except IbsecError:
        return "see `ibsec-engine registries`"
