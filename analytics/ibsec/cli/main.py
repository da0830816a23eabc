"""The `ibsec` command: the parser of every command, and running the one asked for."""

from __future__ import annotations

import argparse
import signal
import sys

from .. import __version__
from ..errors import IbsecError
from . import (
    analytic,
    cachesim,
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
    trace,
)

# In the order `ibsec --help` lists them.
COMMANDS = (analytic, cachesim, run, params, presets, figures, study, reproduce, trace, compare_schedulers,
            prefetch_sweep, hwcost, sweep)


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


def main(argv: list[str] | None = None) -> int:
    if hasattr(signal, "SIGPIPE"):  # `ibsec presets | head` ends quietly, as other tools do
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return args.func(args) or 0
    except IbsecError as error:
        print(f"ibsec: error: {error}", file=sys.stderr)
        return getattr(error, "exit_code", 2)
    except KeyboardInterrupt:
        print("ibsec: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
