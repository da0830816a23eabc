"""`ibsec cachesim`: synthetic ON/OFF look-ups against one key cache (or several cards' caches), or a sweep of
one parameter (paper 4.4)."""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError
from ..numeric import as_option, count_option
from .options import (
    RegistryHelpFormatter,
    add_onoff_options,
    add_size_options,
    on_off_from,
    output_file,
    print_json,
)

CACHESIM_OPTIONS = ["keys", "entries", "size", "entry_bytes", "ways", "policy", "access_rate", "accesses", "warmup",
                    "seed", "on_period", "off_period", "cards", "card_sessions"]


def parameter(name: str):
    """argparse type= of a cachesim parameter: its range as models/cachesim.py checks every point's."""

    def check(text: str, field: str):
        from ..models.cachesim import NUMBERS

        return NUMBERS[name](text, field)

    return as_option(check)


def check_policies(policies: list, field: str) -> None:
    """Every policy is one the engine registers; checked before any run."""
    from ..engine.registries import require_registered

    require_registered("replacement_policies", [str(p) for p in policies], field)


def execute(args) -> int:
    from ..models.cachesim import check_point

    point = {name: getattr(args, name) for name in CACHESIM_OPTIONS if getattr(args, name) is not None}
    if args.policy is not None:
        check_policies([args.policy], "--policy")
    if args.preset or args.on_mean is not None or args.off_mean is not None:
        point["on_mean"], point["off_mean"], _ = on_off_from(args)
    for which in ("on", "off"):  # a law replaces its mean (a preset's too)
        if point.get(f"{which}_period") is not None:
            from ..models.renewal import parse

            parse(point[f"{which}_period"])  # a bad law is refused here, naming the problem
            if getattr(args, f"{which}_mean") is not None:
                raise ConfigError(f"--{which}-mean", f"give --{which}-mean or --{which}-period, not both")
            point.pop(f"{which}_mean", None)
    if args.sweep is not None:
        return run_sweep(point, args)
    if args.out is not None:
        raise ConfigError("--out", "only a sweep (--sweep) writes a table; one point prints its result")
    return run_one(check_point(point), args.json)


def run_one(point: dict, json: bool) -> int:
    from ..models.cachesim import run_point

    result = run_point(point)
    if json:
        print_json(result)
    else:
        print(f"hit rate {result['hit_rate']:.6f} ({result['hits']} hits, {result['misses']} misses "
              f"of {result['accesses']} look-ups; {result['keys']} keys, {result['entries']} entries)")
        if "cards" in result:
            print(f"{result['cards']} cards, each its own cache: card hit rate mean "
                  f"{result['card_hit_rate_mean']:.6f}, min {result['card_hit_rate_min']:.6f}, max "
                  f"{result['card_hit_rate_max']:.6f}")
    return 0


def run_sweep(point: dict, args) -> int:
    """Every point of --sweep (each checked before any runs); the table holds every point that finished,
    and a failed point's row its error, so one bad point does not lose the others."""
    from ..engine.binary import EngineError
    from ..models.cachesim import check_point, identity, run_point
    from ..output.files import STDOUT, write_output
    from ..output.tables import write_table
    from ..runs.ranges import expand, parse_sweep
    from ..runs.store import PointsFailed, discard_store, run_points, store_locked

    if args.out is None or args.out == STDOUT:
        raise ConfigError("--out", "a sweep writes a table (CSV or Parquet) and keeps its finished points beside it: "
                                   "give --out FILE.csv")
    name, values = parse_sweep(args.sweep)
    if name == "policy":
        check_policies(values, "--sweep")
    points = expand(point, name, values)
    for each in points:
        check_point(each)
    out = Path(args.out)
    store = out.with_name(f".{out.name}.points.jsonl")  # hidden beside the table while the sweep is unfinished
    failure = None
    with store_locked(store):
        try:
            rows = run_points(points, run_point, store=store, jobs=args.jobs, quiet=args.quiet,
                              label=f"cachesim sweep of {name}", key=identity)
        except PointsFailed as error:
            failure, rows = error, error.results
        table = sweep_table(points, rows, failure)
        if out.suffix.lower() == ".parquet":
            write_table(table, out)
        else:  # any other name is CSV, as it always was
            write_output(out, lambda file: table.to_csv(file, index=False, float_format="%.6g"))
        if failure is None:  # every point is in the table: nothing left to resume
            discard_store(store)
    if not args.quiet:
        shown = [c for c in ["keys", "entries", "ways", "policy", "hit_rate", "error"] if c in table]
        print(table[shown].to_string(index=False))
        print(f"wrote {out}")
    if failure is not None:
        first = min(failure.errors)
        raise EngineError(f"{len(failure.errors)} of {len(points)} points failed (first, {name}={values[first]}: "
                          f"{failure.errors[first]}); the others are in {out}; run the same command again to retry "
                          "the failed ones", failure.exit_code)
    return 0


def sweep_table(points: list[dict], rows: list, failure):
    """One row per point: its result, or for a failed one its parameters and an `error` column."""
    import pandas as pd

    if failure is None:
        return pd.DataFrame(rows)
    records = [row if row is not None else {**point, "error": str(failure.errors[i])}
               for i, (point, row) in enumerate(zip(points, rows, strict=True))]
    return pd.DataFrame(records)


def add_parser(commands) -> None:
    sim = commands.add_parser(
        "cachesim", formatter_class=RegistryHelpFormatter,
        help="synthetic ON/OFF look-ups against a key cache (paper 4.4)",
        description="Run the ON/OFF session-key generator against one key cache, or sweep one parameter.")
    sim.add_argument("--keys", type=parameter("keys"), help="session keys, per card (default {cachesim:keys})")
    sim.add_argument("--cards", type=parameter("cards"),
                     help="cards, each with --keys sessions and its own cache of this size; the look-ups (--accesses, "
                          "--warmup) are shared among them in proportion to their sessions, and the result gives the "
                          "pooled hit rate and its mean, min and max over cards (default {cachesim:cards})")
    sim.add_argument("--card-sessions", metavar="FILE",
                     help="file of per-card session counts, one whole number a line ('#' comments), instead of "
                          "--keys and --cards: one card each")
    add_size_options(sim, required=False, engine_defaults=True)
    sim.add_argument("--ways", type=parameter("ways"),
                     help="associativity, 0 = fully associative (default {cachesim:ways})")
    sim.add_argument("--policy",
                     help="replacement policy, one of the engine's: {replacement_policies} (default {cachesim:policy})")
    add_onoff_options(sim)
    sim.add_argument("--on-period", metavar="LAW",
                     help="law of the ON lengths (ms) instead of the exponential of --on-mean: exp:MEAN, "
                          "lognormal:MU,SIGMA, weibull:SHAPE,SCALE, hyperexp:P,MEAN1,MEAN2 or empirical:FILE "
                          "(`ibsec analytic fit` prints the fitted laws and writes the measured periods)")
    sim.add_argument("--off-period", metavar="LAW", help="law of the OFF lengths (ms), as --on-period")
    sim.add_argument("--access-rate", type=parameter("access_rate"),
                     help="look-ups per ms while ON (default {cachesim:access_rate})")
    sim.add_argument("--accesses", type=parameter("accesses"), help="measured look-ups (default {cachesim:accesses})")
    sim.add_argument("--warmup", type=parameter("warmup"),
                     help="look-ups before measuring (default: a tenth of --accesses)")
    sim.add_argument("--seed", type=parameter("seed"), help="random seed (default {cachesim:seed})")
    sim.add_argument("--json", action="store_true", help="print JSON")
    sim.add_argument("--sweep", metavar="NAME=VALUES", help="vary one parameter: keys=1000:10000:1000 or ways=1,2,4,0")
    sim.add_argument("--out", type=output_file,
                     help="table of a sweep: FILE.parquet for Parquet, else CSV (until every point has finished, "
                          "the finished ones are kept beside it, hidden, and reused by the same command)")
    sim.add_argument("--jobs", type=count_option, default=2,
                     help="points run at once in a sweep (default: %(default)s)")
    sim.add_argument("--quiet", action="store_true", help="no progress output")
    sim.set_defaults(func=execute)
