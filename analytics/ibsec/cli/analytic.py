"""`ibsec analytic hitrate|capacity|states`: the Markov ON/OFF cache-capacity model (paper 3.2)."""

from __future__ import annotations

from ..numeric import count_option, real_option
from .options import add_onoff_options, add_size_options, entries_from, on_off_from, print_json


def hitrate(args) -> None:
    from ..models import markov

    on, off, source = on_off_from(args)
    entries = entries_from(args)
    value = markov.hit_rate_estimate(entries, args.processes, on, off)
    result = {"hit_rate": value, "entries": entries, "processes": args.processes, "on_mean_ms": on,
              "off_mean_ms": off, "on_probability": markov.on_probability(on, off), "source": source}
    if args.json:
        print_json(result)
    else:
        print(f"F_{args.processes}({entries}) = {value:.6f}  (ON probability {result['on_probability']:.4g}, {source})")


def capacity(args) -> None:
    from ..models import markov

    on, off, source = on_off_from(args)
    report = markov.capacity_report(entries_from(args), on, off, args.target)
    result = {**report.as_dict(), "source": source}
    if args.json:
        print_json(result)
    else:
        print(f"capacity {report.capacity} sessions for {report.entries} entries at p = {report.target} "
              f"(F = {report.hit_rate_at_capacity:.6f} at n = {report.capacity}, "
              f"{report.hit_rate_above_capacity:.6f} at n + 1; {source})")


def states(args) -> None:
    from ..models import markov

    on, off, source = on_off_from(args)
    probabilities = markov.state_probabilities(args.processes, on, off)
    if args.json:
        print_json({"processes": args.processes, "on_mean_ms": on, "off_mean_ms": off, "source": source,
                    "state_probabilities": probabilities.tolist()})
    else:
        for i, p in enumerate(probabilities):
            print(f"P_{i} = {p:.6g}")


def add_parser(commands) -> None:
    analytic = commands.add_parser(
        "analytic", help="Markov ON/OFF cache-capacity model (paper 3.2)",
        description="Markov ON/OFF model: state probabilities, hit-rate estimate F_n(x), capacity.")
    analytic_commands = analytic.add_subparsers(dest="analytic_command", required=True, metavar="ANALYTIC")
    hit = analytic_commands.add_parser("hitrate", help="F_n(x): hit-rate estimate for x entries and n sessions")
    add_size_options(hit, required=True)
    hit.add_argument("--processes", type=count_option, required=True, help="number of sessions n")
    add_onoff_options(hit)
    hit.add_argument("--json", action="store_true", help="print JSON")
    hit.set_defaults(func=hitrate)
    cap = analytic_commands.add_parser("capacity", help="largest n with F_n(x) >= target")
    add_size_options(cap, required=True)
    cap.add_argument("--target", type=real_option(above=0.0, below=1.0), default=0.9,
                     help="target hit rate p in (0, 1) (default: %(default)s)")
    add_onoff_options(cap)
    cap.add_argument("--json", action="store_true", help="print JSON")
    cap.set_defaults(func=capacity)
    probabilities = analytic_commands.add_parser("states", help="P_0..P_n, Eq. (1)-(2)")
    probabilities.add_argument("--processes", type=count_option, required=True, help="number of sessions n")
    add_onoff_options(probabilities)
    probabilities.add_argument("--json", action="store_true", help="print JSON")
    probabilities.set_defaults(func=states)
