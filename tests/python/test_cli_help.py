"""Every command, subcommand and option of `ibsec` says what it does in --help."""

import argparse

import pytest

from ibsec.cli.main import build_parser

pytestmark = pytest.mark.unit


def walk(parser: argparse.ArgumentParser, path: str):
    """(where, what is missing) for the parser and every subparser under it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helped = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                if name not in helped and sub is not None:  # an alias shares its command's help
                    if not any(sub is action.choices[other] for other in helped):
                        yield f"{path} {name}", "no help line in its parent's list"
                elif not helped.get(name):
                    yield f"{path} {name}", "no help line in its parent's list"
                if not (sub.description or helped.get(name)):
                    yield f"{path} {name}", "no description"
                yield from walk(sub, f"{path} {name}")
        elif not isinstance(action, argparse._HelpAction):
            if action.help in (None, "", argparse.SUPPRESS):
                yield f"{path} {'/'.join(action.option_strings) or action.dest}", "no help text"


def test_every_subcommand_and_option_has_help():
    missing = [f"{where}: {what}" for where, what in walk(build_parser(), "ibsec")]
    assert not missing, "\n".join(missing)


def test_the_walk_finds_a_missing_help():
    parser = argparse.ArgumentParser(prog="x")
    commands = parser.add_subparsers()
    sub = commands.add_parser("quiet")
    sub.add_argument("--bare")
    assert {where for where, _ in walk(parser, "x")} == {"x quiet", "x quiet --bare"}
