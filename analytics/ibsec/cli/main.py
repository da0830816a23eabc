"""The `ibsec` command: the parser of every command, and running the one asked for."""

from __future__ import annotations

import argparse
import os
import signal
import sys

from ..errors import IbsecError
from ..version import __version__
from . import (
    analytic,
    cachesim,
    collect,
    compare_schedulers,
    figures,
    hwcost,
    params,
    prefetch_sweep,
    presets,
    reproduce,
    run,
    study,
    sweep,
    topology,
    trace,
)

# In the order `ibsec --help` lists them.
COMMANDS = (analytic, cachesim, run, params, presets, figures, study, reproduce, trace, topology, compare_schedulers,
            prefetch_sweep, hwcost, sweep, collect)


class VersionAction(argparse.Action):
    """--version: the package's version, and the engine's path and digest (the engine is found only if asked)."""

    def __init__(self, option_strings, dest, help=None):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from ..engine.binary import describe_engine

        print(f"ibsec {__version__}\n{describe_engine()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ibsec",
                                     description="ibsec: secure InfiniBand card simulator and its cache models")
    parser.add_argument("--version", action=VersionAction, help="show the version and the engine ibsec runs, then exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(commands)
    return parser


def _subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:
    return next((action for action in parser._actions if isinstance(action, argparse._SubParsersAction)), None)


def deepest_parser(parser: argparse.ArgumentParser, words: list[str]) -> argparse.ArgumentParser:
    """The parser of the (sub)command `words` name: `ibsec analytic fit ...` -> the parser of `analytic fit`."""
    for word in words:
        subcommands = _subcommands(parser)
        if subcommands is None:
            break
        if word in subcommands.choices:
            parser = subcommands.choices[word]
    return parser


def _lacks_its_subcommand(parser: argparse.ArgumentParser, words: list[str]) -> bool:
    """A command group (`ibsec`, `ibsec trace`) given nothing after its name: no subcommand, no option."""
    named = len(parser.prog.split()) - 1  # the words that named the group: `ibsec trace` -> 1
    return _subcommands(parser) is not None and not words[named:]


# Set for the engines ibsec runs, so that their hints name the command the user typed (`ibsec params`, not
# `ibsec-engine params`; sim/config.cpp).
COMMAND_ENV = "IBSEC_COMMAND"

# Exit codes of every command (a command may add its own, e.g. `run`'s 3: the network did not drain).
EXIT_ERROR = 2  # a bad option, configuration or input; an output that cannot be written
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT


def main(argv: list[str] | None = None) -> int:
    if hasattr(signal, "SIGPIPE"):  # `ibsec presets | head` ends quietly, as other tools do
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    command_parser = deepest_parser(parser, words)
    if _lacks_its_subcommand(command_parser, words):  # `ibsec`, `ibsec trace`: what there is to run
        command_parser.print_help()
        return 0
    try:
        args, unknown = parser.parse_known_args(words)
        if unknown:  # `ibsec run --frobnicate`: the usage of `run`, not of `ibsec`
            command_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as done:  # --help, --version, or an option its type refused (argparse said why): exit 2
        return done.code or 0
    args.argv = words
    os.environ[COMMAND_ENV] = "ibsec"
    code = run_command(args)
    failed = stdout_failure()  # a result printed to a full disk is lost: say so
    if failed is not None:
        return fail(f"cannot write standard output: {failed.strerror or failed}", code or EXIT_ERROR)
    return code


def run_command(args) -> int:
    """The command's exit code. Every error a user can cause becomes one message on standard error; a traceback
    means a bug in ibsec."""
    try:
        return args.func(args) or 0
    except IbsecError as error:  # ConfigError, SpecError, EngineError, a failed sweep, ...
        return fail(str(error), getattr(error, "exit_code", EXIT_ERROR))
    except OSError as error:  # the system refused a file: an output under a regular file, a full disk, ...
        return fail(describe_os_error(error), EXIT_ERROR)
    except KeyboardInterrupt:
        return fail("interrupted", EXIT_INTERRUPTED)


def describe_os_error(error: OSError) -> str:
    """'afile/r.json: Not a directory': the system's reason, naming the file when the error does.
    A failed write names none (print() to a full standard output, pandas writing a CSV to a full disk)."""
    reason = error.strerror or str(error)
    if error.filename is None:
        return f"{reason} (writing standard output or an output file)"
    names = " -> ".join(str(name) for name in (error.filename, error.filename2) if name is not None)
    return f"{names}: {reason}"


def stdout_failure() -> OSError | None:
    """Flush standard output; the error if that failed. Standard output then points at /dev/null (opened,
    never replaced), so the interpreter's own flush at exit does not fail again with a message of its own."""
    try:
        sys.stdout.flush()
        return None
    except OSError as error:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return error


def fail(message: str, code: int) -> int:
    print(f"ibsec: error: {message}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
