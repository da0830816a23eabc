"""`ibsec cachesim`: synthetic ON/OFF look-ups against one key cache, or a sweep of one parameter (paper 4.4)."""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError
from .options import RegistryHelpFormatter, add_onoff_options, add_size_options, on_off_from, print_json

CACHESIM_OPTIONS = ["keys", "entries", "size", "entry_bytes", "ways", "policy", "access_rate", "accesses", "warmup",
                    "seed"]


def check_policies(policies: list, field: str) -> None:
    """Every policy is one the engine registers; checked before any run."""
    from ..engine.registries import require_registered

    require_registered("replacement_policies", [str(p) for p in policies], field)


def execute(args) -> None:
    from ..models.cachesim import identity, run_point
    from ..runs.ranges import expand, parse_sweep
    from ..runs.store import run_points

    point = {name: getattr(args, name) for name in CACHESIM_OPTIONS if getattr(args, name) is not None}
    if args.policy is not None:
        check_policies([args.policy], "--policy")
    if args.preset or args.on_mean is not None or args.off_mean is not None:
        point["on_mean"], point["off_mean"], _ = on_off_from(args)
    if args.sweep is None:
        result = run_point(point)
        if args.json:
            print_json(result)
        else:
            print(f"hit rate {result['hit_rate']:.6f} ({result['hits']} hits, {result['misses']} misses "
                  f"of {result['accesses']} look-ups; {result['keys']} keys, {result['entries']} entries)")
        return
    if args.out is None:
        raise ConfigError("out", "a sweep writes a CSV: give --out FILE.csv")
    import pandas as pd

    from ..output.files import write_atomically

    name, values = parse_sweep(args.sweep)
    if name == "policy":
        check_policies(values, "--sweep")
    out = Path(args.out)
    rows = run_points(expand(point, name, values), run_point, store=out.with_name(f".{out.name}.points.jsonl"),
                      jobs=args.jobs, quiet=args.quiet, label=f"cachesim sweep of {name}", key=identity)
    table = pd.DataFrame(rows)
    write_atomically(out, lambda tmp: table.to_csv(tmp, index=False, float_format="%.6g"))
    if not args.quiet:
        shown = [c for c in ["keys", "entries", "ways", "policy", "hit_rate"] if c in table]
        print(table[shown].to_string(index=False))
        print(f"wrote {out}")


def add_parser(commands) -> None:
    sim = commands.add_parser(
        "cachesim", formatter_class=RegistryHelpFormatter,
        help="synthetic ON/OFF look-ups against a key cache (paper 4.4)",
        description="Run the ON/OFF session-key generator against one key cache, or sweep one parameter.")
    sim.add_argument("--keys", type=int, help="session keys (default 1000)")
    add_size_options(sim, required=False)
    sim.add_argument("--ways", type=int, help="associativity, 0 = fully associative (default 0)")
    sim.add_argument("--policy", help="replacement policy, one of the engine's: {replacement_policies} (default lru)")
    add_onoff_options(sim)
    sim.add_argument("--access-rate", type=float, help="look-ups per ms while ON (default 100)")
    sim.add_argument("--accesses", type=int, help="measured look-ups (default 4 000 000)")
    sim.add_argument("--warmup", type=int, help="look-ups before measuring (default: a tenth of --accesses)")
    sim.add_argument("--seed", type=int, help="random seed (default 1)")
    sim.add_argument("--json", action="store_true", help="print JSON")
    sim.add_argument("--sweep", metavar="NAME=VALUES", help="vary one parameter: keys=1000:10000:1000 or ways=1,2,4,0")
    sim.add_argument("--out", help="CSV file for a sweep (finished points are kept beside it and reused)")
    sim.add_argument("--jobs", type=int, default=2, help="points run at once in a sweep (default: %(default)s)")
    sim.add_argument("--quiet", action="store_true", help="no progress output")
    sim.set_defaults(func=execute)
    sim.set_defaults(entry_bytes=None)
