"""`ibsec topology show|draw`: a configuration's fabric without running it, as counts and JSON or as a picture
(links coloured by a run's utilization)."""

from __future__ import annotations

from .options import output_file, print_json


def _fabric(args) -> dict:
    from ..engine.fabric import describe_fabric

    return describe_fabric(args.config, args.set)


def show(args) -> None:
    fabric = _fabric(args)
    if args.json:
        print_json(fabric)
        return
    topology = fabric["topology"]
    for name, about in topology["topology_meta"].items():
        print(f"{name:>16}: {topology[name]} {about['unit']}  ({about['description']})")
    levels: dict[int, int] = {}
    for switch in fabric["switches"]:
        levels[switch["level"]] = levels.get(switch["level"], 0) + 1
    print("switches by level: " + ", ".join(f"{level}: {count}" for level, count in sorted(levels.items())))


def draw(args) -> None:
    from ..output.fabric_drawing import (
        RUN_LABEL,
        UNIFORM_LABEL,
        check_picture_path,
        link_utilization,
        uniform_utilization,
        write_drawing,
    )

    check_picture_path(args.out, "--out")
    fabric = _fabric(args)
    utilization, label = None, RUN_LABEL
    if args.run:
        utilization = link_utilization(args.run, fabric)
    elif args.uniform:
        utilization, label = uniform_utilization(fabric), UNIFORM_LABEL
    write_drawing(args.out, fabric, utilization, with_nodes=True if args.nodes else None, label=label)
    print(f"wrote {args.out}")


def _common(parser) -> None:
    parser.add_argument("config", nargs="?",
                        help="config file (JSON, TOML, YAML) or a shipped config's name; omitted: the defaults")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override one parameter, as `ibsec run --set` (repeatable)")


def add_parser(commands) -> None:
    topology = commands.add_parser(
        "topology", help="a configuration's fabric without running it: counts, JSON or a picture",
        description="The fabric `ibsec run` would build from the same config and --set: its switches and links "
                    "(docs/topology.md). `show` prints the counts (or --json: every switch and one-way link, in the "
                    "order a run's links table numbers them); `draw` writes a picture.")
    sub = topology.add_subparsers(dest="topology_command", required=True, metavar="TOPOLOGY")
    show_parser = sub.add_parser("show", help="the fabric's counts, or all of it as JSON",
                                 description="The fabric's counts with units and descriptions, or with --json its "
                                             "switches and one-way links as `ibsec-engine topology` gives them.")
    _common(show_parser)
    show_parser.add_argument("--json", action="store_true", help="print every switch and link as JSON")
    show_parser.set_defaults(func=show)
    draw_parser = sub.add_parser(
        "draw", help="a picture of the fabric (SVG, PDF, PNG), links coloured by a run's utilization",
        description="Draws the fabric: a tree in rows by level with the nodes under their leaf switch, any other "
                    "fabric on a circle. With --run, each cable is coloured by the utilization of its busier "
                    "direction in that run's links table (made with --set sim.detail=links, from the same config "
                    "and --set).")
    _common(draw_parser)
    draw_parser.add_argument("--out", required=True, type=output_file, metavar="FILE",
                             help="the picture: FILE.svg, FILE.pdf or FILE.png")
    colour = draw_parser.add_mutually_exclusive_group()
    colour.add_argument("--run", metavar="RESULT.json",
                        help="colour the links by this run's utilization (its links table, sim.detail=links)")
    colour.add_argument("--uniform", action="store_true",
                        help="colour the links by their utilization under uniform traffic at the bound of the "
                             "routes (1 on the links that set it; docs/network.md)")
    draw_parser.add_argument("--nodes", action="store_true",
                             help=f"draw the nodes even above {_max_drawn()} of them (they are left out by default)")
    draw_parser.set_defaults(func=draw)


def _max_drawn() -> int:
    from ..output.fabric_drawing import MAX_DRAWN_NODES

    return MAX_DRAWN_NODES
