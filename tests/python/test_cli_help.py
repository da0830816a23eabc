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


def groups(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()):
    """(words naming a command group, its subcommands): `ibsec`, `ibsec analytic`, `ibsec trace`."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield words, set(action.choices)
            for name, sub in action.choices.items():
                yield from groups(sub, (*words, name))


@pytest.mark.parametrize("words, subcommands", list(groups(build_parser())), ids=lambda v: " ".join(v) or "ibsec"
                         if isinstance(v, tuple) else None)
def test_a_group_without_a_subcommand_lists_its_subcommands(words, subcommands, capsys):
    from ibsec.cli.main import main

    assert main(list(words)) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: {' '.join(('ibsec', *words))} ")
    assert all(name in out for name in subcommands), out


@pytest.mark.parametrize("command, words", [("ibsec run", ("run", "--frobnicate")),
                                            ("ibsec analytic fit", ("analytic", "fit", "t.trace", "--frobnicate")),
                                            ("ibsec trace info", ("trace", "info", "t.trace", "--frobnicate"))])
def test_an_unknown_option_gets_the_usage_of_its_subcommand(command, words, capsys):
    from ibsec.cli.main import main

    assert main(list(words)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: {command} ") and f"{command}: error: unrecognized arguments: --frobnicate" in err
