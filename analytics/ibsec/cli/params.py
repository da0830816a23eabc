"""`ibsec params`: every `ibsec run` parameter with its default, unit and meaning (from ibsec-engine params)."""

from __future__ import annotations


def execute(args) -> int:
    from ..engine.binary import run_to_our_stdout

    return run_to_our_stdout(["params", *(["--json"] if args.json else [])])


def add_parser(commands) -> None:
    params = commands.add_parser("params", help="list the simulation parameters with defaults and units",
                                 description="Every configuration key of `ibsec run`, with its default, unit "
                                             "and meaning (from ibsec-engine params).")
    params.add_argument("--json", action="store_true", help="print JSON")
    params.set_defaults(func=execute)
