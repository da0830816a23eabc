"""cachesim's defaults are the engine's: Python reads them from `ibsec-engine params --command cachesim` and
writes none of its own (issue 26: a default written in two places had drifted, 4 000 000 look-ups in Python
against 10 000 000 in the engine)."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import subprocess

import pytest

import ibsec
from ibsec.cli.main import main
from ibsec.models import cachesim

pytestmark = pytest.mark.unit


def engine_listing(engine) -> dict[str, dict]:
    done = subprocess.run([engine, "params", "--command", "cachesim", "--json"], capture_output=True, text=True,
                          check=True)
    return {p["key"]: p for p in json.loads(done.stdout)}


def test_every_cachesim_option_is_listed_with_unit_description_and_flag(engine):
    listing = engine_listing(engine)
    assert listing["accesses"]["default"] == 10_000_000 and listing["accesses"]["unit"] == "look-ups"
    assert listing["warmup"]["default"] is None and "a tenth" in listing["warmup"]["description"]
    assert listing["entry_bytes"]["option"] == "--entry-bytes"
    assert all(p["description"] for p in listing.values())
    help_text = subprocess.run([engine, "cachesim", "--help"], capture_output=True, text=True, check=True).stdout
    assert all(p["option"] in help_text for p in listing.values())


def test_python_reads_the_engines_defaults(engine):
    listing = engine_listing(engine)
    assert cachesim.parameters() == listing
    assert {name: cachesim.default(name) for name in listing} == {k: p["default"] for k, p in listing.items()}


def test_a_point_that_sets_nothing_runs_with_the_engines_defaults(engine):
    arguments = cachesim.engine_arguments({"keys": 10})
    assert arguments == ["cachesim", "--keys", "10"]  # no default of Python's own on the command line
    row = cachesim.run_point({"keys": 10, "accesses": 1000})
    assert row["access_rate"] == cachesim.default("access_rate") and row["entries"] == 1024  # 16KB / 16 B


def test_help_shows_the_engines_default(engine, capsys):
    assert main(["cachesim", "--help"]) == 0
    shown = capsys.readouterr().out
    accesses = engine_listing(engine)["accesses"]["default"]
    assert f"measured look-ups (default {accesses})" in " ".join(shown.split())


# Parameters that mean a cachesim parameter wherever a Python function takes them.
CACHESIM_ARGUMENTS = ("accesses", "access_rate")


def python_functions():
    for module_info in pkgutil.walk_packages(ibsec.__path__, "ibsec."):
        if module_info.name.endswith(".__main__"):  # runs the command when imported
            continue
        module = importlib.import_module(module_info.name)
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if function.__module__ == module.__name__:
                yield f"{module.__name__}.{name}", function


def test_no_python_function_has_a_cachesim_default_of_its_own():
    """A function may take `accesses` or `access_rate`, required or None (the engine's), never with a number: a
    number there is a second copy of the engine's default, free to drift from it."""
    own = [f"{where}({name}={parameter.default!r})" for where, function in python_functions()
           for name, parameter in inspect.signature(function).parameters.items()
           if name in CACHESIM_ARGUMENTS and parameter.default not in (inspect.Parameter.empty, None)]
    assert own == []


def test_the_python_command_line_has_no_cachesim_default_of_its_own():
    from ibsec.cli.main import build_parser

    own = []

    def walk(parser, where):
        for action in parser._actions:
            if action.dest in CACHESIM_ARGUMENTS and action.default is not None:
                own.append(f"{where} --{action.dest}={action.default}")
            for name, sub in getattr(action, "choices", None).items() if isinstance(
                    getattr(action, "choices", None), dict) else ():
                walk(sub, f"{where} {name}")

    walk(build_parser(), "ibsec")
    assert own == []
