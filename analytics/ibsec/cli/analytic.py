"""`ibsec analytic hitrate|capacity|states`: the Markov ON/OFF cache-capacity model (paper 3.2)."""

from __future__ import annotations

from pathlib import Path

from ..numeric import as_option, count_option, hit_rate_option, positive_real_option
from .options import (
    RegistryHelpFormatter,
    add_onoff_options,
    add_size_options,
    entries_from,
    on_off_from,
    output_folder,
    print_json,
)


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


def fit(args) -> None:
    import pandas as pd

    from ..models import onoff_fit

    result = onoff_fit.fit_trace(args.trace, args.gap_threshold_ms)
    data = result.as_dict()
    if args.out:
        data["files"] = [str(p) for p in write_fit(result, Path(args.out))]
    if args.json:
        print_json(data)
        return
    markov_inputs = data["markov"]
    print(f"{args.trace}: {data['processes']} processes, {data['sessions']} sessions (pairs), "
          f"{markov_inputs['sessions_per_card_mean']:.3g} per card (max {markov_inputs['sessions_per_card_max']}); "
          f"gap threshold {data['gap_threshold_ms']:.4g} ms ({data['gap_threshold_rule']})")
    print(f"ON mean {markov_inputs['on_mean_ms']:.4g} ms, OFF mean {markov_inputs['off_mean_ms']:.4g} ms, duty "
          f"cycle {markov_inputs['duty_cycle']:.4g}, {markov_inputs['lookups_per_on_mean']:.4g} look-ups per ON "
          f"period ({markov_inputs['access_rate_per_ms']:.4g} per ms while ON)")
    table = pd.DataFrame(result.rows())[["period", "family", "ks", "best", "mean_ms", "spec"]]
    table["best"] = table["best"].map({True: "best", False: ""})  # a word, not True/False, to catch the eye
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print(f"best by KS distance: ON {data['best_on']}, OFF {data['best_off']}")
    for path in data.get("files", []):
        print(f"wrote {path}")


def size(args) -> None:
    from ..errors import ConfigError
    from ..models import sizing, trace_sizing
    from ..shipped import resolve

    if (args.trace is None) == (args.preset is None):
        raise ConfigError("trace", "give --trace TRACE or --preset BENCH, one of them")
    config = resolve("config", args.config, "config")
    with sizing.fresh_periods_folder() as folder:
        if args.trace is not None:
            traffic = sizing.from_trace(args.trace, args.nodes, args.processes_per_node, args.placement, args.family,
                                        args.gap_threshold_ms, Path(folder))
        else:
            traffic = sizing.from_preset(args.preset, args.machine, args.nodes, args.processes_per_node,
                                         args.placement)
        answer = sizing.size(traffic, args.target, args.entry_bytes, args.simulate, args.accesses, args.policy,
                             args.ways)
    request = trace_sizing.ReplayRequest(args.trace, args.nodes, args.processes_per_node, args.placement,
                                         config, Path(args.out), args.confirm, args.target_overhead, args.scan,
                                         quiet=args.json)
    answer = trace_sizing.add_replays(answer, traffic, request, args.target, args.entry_bytes, args.policy,
                                      args.ways)
    answer.update({"nodes": args.nodes, "processes_per_node": args.processes_per_node, "placement": args.placement})
    if args.json:
        print_json(answer)
        return
    print_size(args, answer)


def print_size(args, answer: dict) -> None:
    m, p = answer["markov"], answer["predictor"]
    print(f"{answer['source']}")
    print(f"{args.nodes} nodes x {args.processes_per_node} processes ({args.placement}): sessions per card from "
          f"{answer['sessions_rule']}: mean {answer['sessions_per_card_mean']:.3g}, busiest card "
          f"{answer['sessions_per_card_max']}")
    print(f"one session: ON {answer['on_mean_ms']:.4g} ms, OFF {answer['off_mean_ms']:.4g} ms (duty "
          f"{answer['duty_cycle']:.4g}), {answer['lookups_per_on']:.4g} look-ups per ON period")
    cache = "fully associative" if args.ways == 0 else f"{args.ways}-way set-associative"
    print(f"target hit rate {args.target}, {cache} {args.policy.upper()} (F_n(x) knows neither):")
    print(f"  Markov F_n(x):  {m['entries']:>6} entries ({m['bytes']} B)  F = {m['f_at_entries']:.4f}, predicted hit "
          f"rate there {m['predicted_hit_rate_at_entries']:.4f}; supports {m['sessions_supported']} sessions")
    print(f"  predictor:      {p['entries']:>6} entries ({p['bytes']} B)  predicted hit rate "
          f"{p['predicted_hit_rate_at_entries']:.4f}, F = {p['f_at_entries']:.4f}")
    if "cachesim" in answer:
        print_cachesim(answer["cachesim"], m, p)
    print_exact(answer["exact"], m, p)
    print(f"why Markov and predictor differ: {answer['why_they_differ']}")
    chosen = answer["chosen"]
    print(f"chosen: {chosen['entries']} entries ({chosen['entries'] * answer['entry_bytes']} B) by {chosen['model']}: "
          f"{chosen['why']}")
    if args.confirm:
        print("replayed at each model's size (cycle-level, the blocking card):")
        for row in answer["models"]:
            print(f"  {row['model']:<10} {row['entries']:>6} entries: predicted {row['predicted_hit_rate']:.4f}, "
                  f"replayed {row['replayed_hit_rate']:.4f}, {row['replayed_overhead_pct']:+.2f} % execution time")
    if "target_overhead" in answer:
        print_overhead(answer["target_overhead"])
    if "replays_folder" in answer:
        print(f"replays kept in {answer['replays_folder']} (a re-run reads them back)")


def at_both_sizes(answer: dict, m: dict, p: dict) -> str:
    """`answer`'s hit rates at the Markov model's and the predictor's sizes, each named by whose size it is (the
    two sizes are often the same number, and unnamed the pair reads as a repetition)."""
    return (f"hit rate {answer['hit_rate_at_markov_entries']:.4f} at Markov's size ({m['entries']} entries), "
            f"{answer['hit_rate_at_predictor_entries']:.4f} at the predictor's ({p['entries']} entries)")


def print_cachesim(c: dict, m: dict, p: dict) -> None:
    print(f"  cachesim:       {at_both_sizes(c, m, p)}; {c['keys']} keys, {c['accesses']} look-ups")
    if "all_cards" in c:
        a = c["all_cards"]
        print(f"  cachesim, all {a['cards']} cards (each its own sessions and cache, pooled): "
              f"{at_both_sizes(a, m, p)}; card hit rates at the predictor's size from "
              f"{a['card_hit_rate_min_at_predictor_entries']:.4f} to "
              f"{a['card_hit_rate_max_at_predictor_entries']:.4f}")


def print_exact(e: dict, m: dict, p: dict) -> None:
    if "refused" in e:
        print(f"  exact:          none: {e['refused']}")
        return
    print(f"  exact {e['policy'].upper():<6}    {e['entries']:>6} entries ({e['bytes']} B)  hit rate "
          f"{e['predicted_hit_rate_at_entries']:.4f} "
          f"({at_both_sizes(e, m, p)}; {e['lookups']} look-ups, {e['cold_lookups']} first ones, "
          f"ceiling {e['hit_rate_ceiling']:.4f})")


def print_overhead(o: dict) -> None:
    if o["entries"] is None:
        print(f"target overhead {o['target_overhead_pct']:g} %: {o['why']}")
        return
    note = "" if o["monotone"] else (" (the overheads replayed were not monotone in the entries: a smaller size "
                                     "could meet the target too; --scan replays every smaller size)")
    print(f"target overhead {o['target_overhead_pct']:g} %: SKC-{o['entries']} ({o['method']}, "
          f"{len(o['replays'])} SKC replays): {o['overhead_pct']:+.3f} % execution time, SKC hit rate "
          f"{o['skc_hit_rate']:.4f}; {o['why']}{note}")


def write_fit(result, out) -> list:
    """OUT/NAME.fit.{json,csv,png,meta.json} and the measured lengths OUT/NAME.{on,off}.periods (ms, one a line,
    what `ibsec cachesim --on-dist empirical:FILE` reads)."""
    import pandas as pd

    from ..output.figure_style import save_figure
    from ..output.files import write_json_output, write_text_output
    from ..output.onoff_figures import fit_cdfs

    name = result.trace.rsplit("/", 1)[-1].split(".trace")[0]
    periods = result.periods
    written = [write_json_output(out / f"{name}.fit.json", result.as_dict())]
    for which, lengths in (("on", periods.on_ms), ("off", periods.off_ms)):
        text = f"# {which.upper()} period lengths (ms) of {result.trace}, gap threshold " \
               f"{periods.gap_threshold_ms:.6g} ms\n" + "\n".join(f"{v:.9g}" for v in lengths) + "\n"
        written.append(write_text_output(out / f"{name}.{which}.periods", text))
    table = pd.DataFrame(result.rows())
    figure = fit_cdfs(name, periods.on_ms, periods.off_ms, table)
    written += save_figure(table, figure, out, f"{name}.fit", {"trace": result.trace,
                                                               "gap_threshold_ms": periods.gap_threshold_ms})
    return written


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
    cap.add_argument("--target", type=hit_rate_option, default=0.9,
                     help="target hit rate p in (0, 1) (default: %(default)s)")
    add_onoff_options(cap)
    cap.add_argument("--json", action="store_true", help="print JSON")
    cap.set_defaults(func=capacity)
    probabilities = analytic_commands.add_parser("states", help="P_0..P_n, Eq. (1)-(2)")
    probabilities.add_argument("--processes", type=count_option, required=True, help="number of sessions n")
    add_onoff_options(probabilities)
    probabilities.add_argument("--json", action="store_true", help="print JSON")
    probabilities.set_defaults(func=states)
    fitting = analytic_commands.add_parser(
        "fit", help="the session ON/OFF process of a trace, per card, with fitted distributions",
        description="Read a trace (any encoding), cut each session's (pair of processes') traffic into ON and "
                    "OFF periods at a gap threshold, and fit exponential, lognormal, Weibull and two-phase "
                    "hyperexponential laws to the ON and the OFF lengths, with their Kolmogorov-Smirnov distances "
                    "and the Markov model's inputs (docs/markov-model.md).")
    fitting.add_argument("trace", metavar="TRACE", help="trace file (text, binary, .gz, .zst)")
    fitting.add_argument("--gap-threshold-ms", type=positive_real_option,
                         help="a session goes OFF after a gap longer than this (ms; default: Otsu's threshold of "
                              "the log gaps between its messages)")
    fitting.add_argument("--out", type=output_folder,
                         help="write NAME.fit.json, NAME.fit.csv, NAME.fit.png (CDFs) and NAME.{on,off}.periods here")
    fitting.add_argument("--json", action="store_true", help="print JSON")
    fitting.set_defaults(func=fit)
    add_size_parser(analytic_commands)


def option(name: str):
    """argparse type= of `analytic size`'s option for the argument `name`: its check in models/sizing.py, the one
    ibsec.analytic.size uses too."""

    def check(text: str, field: str):
        from ..models.sizing import ARGUMENTS  # when an option is read: the parser is built without SciPy

        return ARGUMENTS[name](text, field)

    return as_option(check)


def add_size_parser(analytic_commands) -> None:
    from ..models.names import PLACEMENTS, PREDICTOR_POLICIES, SIZE_FAMILIES

    sizing = analytic_commands.add_parser(
        "size", formatter_class=RegistryHelpFormatter,
        help="SKC entries for a target hit rate on N nodes: Markov F_n(x), predictor, cachesim",
        description="The SKC entries one card needs for a target hit rate, with the sessions per card from a "
                    "trace's communication graph (exact when it has nodes x processes-per-node ranks, else the "
                    "benchmark's decomposition scaled to that many ranks) and one session's ON/OFF traffic from the "
                    "trace's fit or a NAS preset. The answers side by side: the Markov model's F_n(x), the "
                    "hit-rate predictor, (--simulate) cachesim and, for a trace at its own rank count and a fully "
                    "associative cache, the exact hit rate of every size from each card's look-ups in a "
                    "cycle-level replay (LRU: stack distances; FIFO, random: the card's cache at every size), "
                    "whose size is then the one chosen (docs/sizing.md, docs/markov-model.md).")
    sizing.add_argument("--target", type=option("target"), default=0.9,
                        help="target hit rate in (0, 1) (default: %(default)s)")
    sizing.add_argument("--trace", metavar="TRACE", help="trace giving the traffic (and the graph at its own size)")
    sizing.add_argument("--preset", type=option("preset"),
                        help="NAS preset (exponential ON/OFF): BT, CG, FT, LU, MG, SP")
    sizing.add_argument("--machine", type=option("machine"), default="origin2000",
                        help="preset machine (default: %(default)s)")
    sizing.add_argument("--nodes", type=option("nodes"), required=True, help="nodes (cards) in the cluster")
    sizing.add_argument("--processes-per-node", type=option("processes_per_node"), default=1,
                        help="MPI processes on each node (default: %(default)s)")
    sizing.add_argument("--placement", choices=PLACEMENTS, default="block",
                        help="ranks on nodes: block (consecutive ranks share a node) or cyclic (default: "
                             "%(default)s)")
    sizing.add_argument("--family", choices=SIZE_FAMILIES, default="empirical",
                        help="trace: ON/OFF laws for the predictor and cachesim: the measured periods (empirical) or "
                             "a fitted family (default: %(default)s)")
    sizing.add_argument("--gap-threshold-ms", type=option("gap_threshold_ms"),
                        help="trace: the ON/OFF gap threshold (default: as `ibsec analytic fit`)")
    sizing.add_argument("--policy", choices=PREDICTOR_POLICIES, default="lru",
                        help="replacement policy of the predictor and cachesim (default: %(default)s). What is "
                             "approximate: FIFO and random use the characteristic-time approximation (Che; FIFO "
                             "about half a point off with a handful of sessions; random is solved exactly there, "
                             "under exponential ON/OFF) and FIFO needs exponential ON/OFF (--preset or --family "
                             "exp); LRU is exact for independent sessions of one law "
                             "(stack-depth law; non-exponential laws through 400 000 sampled inter-look-up times, "
                             "about 0.1 point)")
    sizing.add_argument("--ways", type=option("ways"), default=0,
                        help="associativity: 0 = fully associative (default), else a power of two (FIFO: 0 or 1 "
                             "only; random with more needs exponential ON/OFF); the predictor treats each set as its "
                             "own cache of the keys mapped to it (key mod sets, as the card), and F_n(x), which has "
                             "no sets, is rounded up to whole sets")
    sizing.add_argument("--entry-bytes", type=option("entry_bytes"), default=16,
                        help="bytes per entry (default: %(default)s)")
    sizing.add_argument("--simulate", action="store_true",
                        help="also run cachesim at both sizes: the busiest card's sessions on one cache, and every "
                             "card with its own sessions and cache (pooled hit rate, spread over cards)")
    sizing.add_argument("--accesses", type=option("accesses"),
                        help="cachesim look-ups per point (default: cachesim's, {cachesim:accesses})")
    add_replay_options(sizing)
    sizing.add_argument("--json", action="store_true", help="print JSON")
    sizing.set_defaults(func=size)


def add_replay_options(sizing) -> None:
    from ..api.simulate import cache_folder
    from ..models.names import SIZING_CACHE_KIND, SIZING_CONFIG

    sizing.add_argument("--config", default=SIZING_CONFIG,
                        help="trace: the card and network of the replays (a config file or a shipped name; "
                             "network.nodes, trace.placement and nic.security are set by this command; default: "
                             "%(default)s)")
    sizing.add_argument("--confirm", action="store_true",
                        help="trace: replay it at each model's size and report the SKC hit rate and execution-time "
                             "overhead over NoSecurity the cycle-level card gives there")
    sizing.add_argument("--target-overhead", type=option("target_overhead"), metavar="P",
                        help="trace: also find the smallest fully associative SKC whose replay costs at most P %% "
                             "execution time over NoSecurity (bisection over the entries, one replay a step; "
                             "docs/sizing.md)")
    sizing.add_argument("--scan", action="store_true",
                        help="with --target-overhead: replay every size below the bisection's answer too, so the "
                             "smallest size is certain even where the overhead is not monotone in the entries")
    sizing.add_argument("--out", type=output_folder, default=str(cache_folder(SIZING_CACHE_KIND)),
                        help="trace: folder of the replays' results and their resumable store; a re-run reuses "
                             "finished replays (default: %(default)s)")
