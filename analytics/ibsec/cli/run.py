"""`ibsec run`: one cycle-level simulation through ibsec-engine, or a sweep of offered load.

A single run forwards to `ibsec-engine run` (the engine writes its result
file atomically and prints its own progress and errors; with sim.detail also
its per-component tables as CSV, which this command writes again as Parquet);
a load sweep is runs/load_sweep.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..errors import ConfigError
from ..numeric import count_option
from .options import output_file


def run_once(config: str | None, overrides: list[str], out: str | None, quiet: bool, perf_json: str | None,
             attack: str | None = None, summary_only: bool = False) -> int:
    """One simulation with the engine's own progress and messages; returns its exit code. `summary_only`: the
    engine's summary on standard error is all the terminal gets, the result JSON is not printed (an attack run
    without --out)."""
    import tempfile

    from ..engine.binary import EXIT_NOT_DRAINED, EXIT_OK, run_arguments, run_simulation_streaming
    from ..engine.config import check_config_file, engine_config, parse_override
    from ..output.files import check_output_file

    if config is not None:
        check_config_file(config)
    if attack is not None and not Path(attack).is_file():
        raise ConfigError("--attack", f"attack file {attack!r} does not exist or is not a file")
    for text in overrides:
        parse_override(text)
    for path, option in ((out, "--out"), (perf_json, "--perf-json")):
        if path is not None:
            check_output_file(path, option)
            Path(path).parent.mkdir(parents=True, exist_ok=True)  # the engine writes into an existing folder
    with tempfile.TemporaryDirectory(prefix="ibsec-config-") as folder:  # a TOML or YAML config's JSON twin
        engine_out = out if out is not None or not summary_only else str(Path(folder) / "result.json")
        code = run_simulation_streaming(run_arguments(engine_config(config, folder), overrides, out=engine_out,
                                                      quiet=quiet, perf_json=perf_json, attack=attack))
    if summary_only and code in (EXIT_OK, EXIT_NOT_DRAINED):
        print("ibsec: the result (JSON) was not printed: give --out FILE to keep it, or --json to print it",
              file=sys.stderr)
    if code in (EXIT_OK, EXIT_NOT_DRAINED) and out is not None and Path(out).is_file():
        from ..output.detail_tables import write_detail_parquet

        write_detail_parquet(out)  # the per-component tables (sim.detail) as Parquet beside the engine's CSV
    return code


def summary_only(args) -> bool:
    """Whether a single run prints its summary alone: an attack run's result holds thousands of lines of JSON
    that would scroll its attack table away, so it goes to standard output only when --json asks for it, or
    when --quiet leaves no summary to show. Other runs print their result when no --out is given, as they always
    have."""
    if args.json and args.out is not None:
        raise ConfigError("--json", "prints the result that --out writes: give one of them")
    return args.attack is not None and not (args.json or args.quiet or args.out is not None)


def execute(args) -> int:
    from ..shipped import resolve

    args.config = resolve("config", args.config, "CONFIG")
    args.attack = resolve("attack", args.attack, "--attack")
    if args.trace is not None:
        if args.sweep_load is not None:
            raise ConfigError("--trace", "a replay has no offered load to sweep: drop --sweep-load")
        args.set = [*args.set, f"trace.file={json.dumps(args.trace)}"]
    if args.sweep_load is None:
        if args.jobs is not None:
            raise ConfigError("--jobs", "only a load sweep (--sweep-load) runs several points")
        if args.seeds is not None:
            raise ConfigError("--seeds", "only a load sweep (--sweep-load) runs each point with several seeds "
                                         "(one run takes --set seed=N)")
        return run_once(args.config, args.set, args.out, args.quiet, args.perf_json, args.attack,
                        summary_only=summary_only(args))
    if args.json:
        raise ConfigError("--json", "a load sweep writes tables and a plot: only a single run prints its result")
    if args.out is None:
        raise ConfigError("--out", "a load sweep writes PREFIX.csv/.parquet, PREFIX.pdf/.svg/.png and "
                                   "PREFIX.meta.json: give --out PREFIX")
    if args.perf_json is not None:
        raise ConfigError("--perf-json", "not available with --sweep-load")
    if args.jobs is not None and args.jobs < 1:
        raise ConfigError("--jobs", f"must be at least 1, got {args.jobs}")
    from ..runs.load_sweep import sweep_load
    from ..runs.store import default_jobs

    if args.attack is not None and not Path(args.attack).is_file():
        raise ConfigError("--attack", f"attack file {args.attack!r} does not exist or is not a file")
    return sweep_load(args.config, args.set, args.sweep_load, args.out, args.jobs or default_jobs(), args.quiet,
                      argv=args.argv, attack=args.attack, seeds=args.seeds or 1)


def add_parser(commands) -> None:
    run = commands.add_parser(
        "run", help="one cycle-level simulation of the cluster (ibsec-engine run), or a load sweep",
        description="Run one cycle-level simulation through ibsec-engine and write its result (JSON), "
                    "or, with --sweep-load, one simulation per offered load plus a CSV table and a plot. "
                    "`ibsec params` lists every configuration key. Exit codes: 0 ok, 2 bad configuration, "
                    "3 the network did not drain (the result is still written), 1 other failures.")
    run.add_argument("config", nargs="?",
                     help="configuration file (JSON, TOML or YAML), or the name of a shipped one (paper-16, "
                          "nosecurity-16, fat-tree-1024-4ary5, ...: configs/README.md); omit for the defaults")
    run.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="override one parameter, e.g. --set nic.security=SKC-16 (repeatable; later wins; "
                          "VALUE is JSON if it parses, else a string)")
    run.add_argument("-o", "--out", type=output_file, help="result file (JSON; standard output when omitted); "
                                   "with --sweep-load, the PREFIX of PREFIX.csv/.parquet/.pdf/.svg/.png/.meta.json")
    run.add_argument("--sweep-load", metavar="LOADS",
                     help="run one point per traffic.load: START:STOP:STEP (inclusive, e.g. 0.05:0.95:0.1) or "
                          "V1,V2,... (e.g. 0.1,0.3,0.5); finished points are kept in PREFIX.runs/ and reused")
    run.add_argument("--trace", metavar="FILE",
                     help="replay this trace (docs/trace-format.md) instead of synthetic traffic; "
                          "the result gains a `replay` section (docs/replay.md)")
    run.add_argument("--attack", metavar="FILE",
                     help="an attacker on one cable (JSON: attack.link, rates of snoop, tamper, inject, replay, "
                          "spoof; a file, or a shipped one by name: all-kinds, snoop, replay-flood; "
                          "docs/attacks.md); the result gains an `attack` section and the summary a table of "
                          "attacked, detected and delivered packets")
    run.add_argument("--json", action="store_true",
                     help="print the result (JSON) on standard output; without --out that is the default, but "
                          "for a run with --attack, which prints only its summary and attack table (unless --quiet)")
    run.add_argument("--jobs", type=count_option, help="load points run at once (default: CPUs, at most 8)")
    run.add_argument("--seeds", type=count_option, metavar="N",
                     help="load sweep: run every load with seeds 1..N (a row each) and plot the mean with the "
                          "range over the seeds as error bars")
    run.add_argument("--perf-json", type=output_file,
                     help="also write wall time, packets/s and peak memory here (single run)")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress or summary on standard error")
    run.set_defaults(func=execute)
