"""The `ibsec` command."""

from __future__ import annotations

import argparse
import json
import re
import signal
import subprocess
import sys
from pathlib import Path

from . import __version__
from .errors import ConfigError, IbsecError

SIZE_UNITS = {"": 1, "B": 1, "K": 1024, "KB": 1024, "KIB": 1024, "M": 1 << 20, "MB": 1 << 20, "MIB": 1 << 20}


def parse_size(text: str, field: str = "size") -> int:
    """'2KB' -> 2048 bytes (KB = 1024 B, as cache sizes are quoted)."""
    match = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", str(text))
    if not match or match.group(2).upper() not in SIZE_UNITS:
        raise ConfigError(field, f"{text!r} is not a size (expected e.g. 2KB, 16KB, 512B)")
    size = int(match.group(1)) * SIZE_UNITS[match.group(2).upper()]
    if size <= 0:
        raise ConfigError(field, f"size must be positive, got {text!r}")
    return size


def entries_from(args) -> int:
    if args.entries is not None:
        return args.entries
    size = parse_size(args.size)
    if args.entry_bytes <= 0 or size % args.entry_bytes:
        raise ConfigError("size", f"{size} bytes is not a whole number of {args.entry_bytes}-byte entries")
    return size // args.entry_bytes


def on_off_from(args) -> tuple[float, float, str]:
    """ON/OFF means (ms) from --on-mean/--off-mean or --preset/--machine."""
    from . import presets

    if args.preset:
        preset = presets.get(args.preset, args.machine)
        on = args.on_mean if args.on_mean is not None else preset.on_mean_ms
        off = args.off_mean if args.off_mean is not None else preset.off_mean_ms
        return on, off, preset.name
    if args.on_mean is None or args.off_mean is None:
        raise ConfigError("on_mean", "give --on-mean and --off-mean, or --preset BENCH [--machine M]")
    return args.on_mean, args.off_mean, "custom"


def add_onoff_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("ON/OFF traffic (give the means, or a preset)")
    group.add_argument("--on-mean", type=float, help="mean ON duration, ms (1/mu)")
    group.add_argument("--off-mean", type=float, help="mean OFF duration, ms (1/lambda)")
    group.add_argument("--preset", help="NAS benchmark preset: BT, CG, FT, LU, MG, SP (see `ibsec presets`)")
    group.add_argument("--machine", default="origin2000", help="preset machine: origin2000 or sp2 (default: %(default)s)")


def add_size_options(parser: argparse.ArgumentParser, required: bool) -> None:
    group = parser.add_mutually_exclusive_group(required=required)
    group.add_argument("--entries", type=int, help="cache size in entries (x)")
    group.add_argument("--size", help="cache size in bytes, e.g. 2KB, 16KB")
    parser.add_argument("--entry-bytes", type=int, default=16, help="bytes per entry (default: %(default)s, one 128-bit key)")


def print_json(data) -> None:
    print(json.dumps(data, indent=2))


# ---- analytic ---------------------------------------------------------------

def cmd_analytic_hitrate(args) -> None:
    from . import markov

    on, off, source = on_off_from(args)
    entries = entries_from(args)
    value = markov.hit_rate_estimate(entries, args.processes, on, off)
    result = {"hit_rate": value, "entries": entries, "processes": args.processes, "on_mean_ms": on,
              "off_mean_ms": off, "on_probability": markov.on_probability(on, off), "source": source}
    if args.json:
        print_json(result)
    else:
        print(f"F_{args.processes}({entries}) = {value:.6f}  (ON probability {result['on_probability']:.4g}, {source})")


def cmd_analytic_capacity(args) -> None:
    from . import markov

    on, off, source = on_off_from(args)
    report = markov.capacity_report(entries_from(args), on, off, args.target)
    result = {**report.as_dict(), "source": source}
    if args.json:
        print_json(result)
    else:
        print(f"capacity {report.capacity} sessions for {report.entries} entries at p = {report.target} "
              f"(F = {report.hit_rate_at_capacity:.6f} at n = {report.capacity}, "
              f"{report.hit_rate_above_capacity:.6f} at n + 1; {source})")


def cmd_analytic_states(args) -> None:
    from . import markov

    on, off, source = on_off_from(args)
    probabilities = markov.state_probabilities(args.processes, on, off)
    if args.json:
        print_json({"processes": args.processes, "on_mean_ms": on, "off_mean_ms": off, "source": source,
                    "state_probabilities": probabilities.tolist()})
    else:
        for i, p in enumerate(probabilities):
            print(f"P_{i} = {p:.6g}")


# ---- cachesim ---------------------------------------------------------------

CACHESIM_OPTIONS = ["keys", "entries", "size", "entry_bytes", "ways", "policy", "access_rate", "accesses", "warmup", "seed"]


def cmd_cachesim(args) -> None:
    from .cachesim import run_point
    from .sweep import expand, parse_sweep, run_points

    point = {name: getattr(args, name) for name in CACHESIM_OPTIONS if getattr(args, name) is not None}
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

    from .files import write_atomically

    name, values = parse_sweep(args.sweep)
    out = Path(args.out)
    rows = run_points(expand(point, name, values), run_point, store=out.with_name(f".{out.name}.points.jsonl"),
                      jobs=args.jobs, quiet=args.quiet, label=f"cachesim sweep of {name}")
    table = pd.DataFrame(rows)
    write_atomically(out, lambda tmp: table.to_csv(tmp, index=False, float_format="%.6g"))
    if not args.quiet:
        print(table[[c for c in ["keys", "entries", "ways", "policy", "hit_rate"] if c in table]].to_string(index=False))
        print(f"wrote {out}")


# ---- run, params ---------------------------------------------------------------

def cmd_run(args) -> int:
    from .simulate import run_once, sweep_load

    if args.trace is not None:
        if args.sweep_load is not None:
            raise ConfigError("--trace", "a replay has no offered load to sweep: drop --sweep-load")
        args.set = [*args.set, f"trace.file={json.dumps(args.trace)}"]
    if args.sweep_load is None:
        if args.jobs is not None:
            raise ConfigError("--jobs", "only a load sweep (--sweep-load) runs several points")
        return run_once(args.config, args.set, args.out, args.quiet, args.perf_json, args.attack)
    if args.out is None:
        raise ConfigError("--out", "a load sweep writes PREFIX.csv, PREFIX.png and PREFIX.meta.json: give --out PREFIX")
    if args.perf_json is not None:
        raise ConfigError("--perf-json", "not available with --sweep-load")
    if args.jobs is not None and args.jobs < 1:
        raise ConfigError("--jobs", f"must be at least 1, got {args.jobs}")
    from .simulate import default_jobs

    if args.attack is not None and not Path(args.attack).is_file():
        raise ConfigError("--attack", f"attack file {args.attack!r} does not exist or is not a file")
    return sweep_load(args.config, args.set, args.sweep_load, args.out, args.jobs or default_jobs(), args.quiet,
                      argv=args.argv, attack=args.attack)


def cmd_params(args) -> int:
    from .engine import engine_path, exit_code_of

    command = [engine_path(), "params", *(["--json"] if args.json else [])]
    return exit_code_of(subprocess.run(command, check=False).returncode)


# ---- hwcost ------------------------------------------------------------------

def cmd_hwcost(args) -> None:
    from . import hwcost
    from .figures import command_line

    gcm = hwcost.GcmCost(args.gcm_kgates, args.gcm_mhz, args.gate_density, args.gate_power)
    spec = hwcost.CardSpec(skc_bytes=parse_size(args.skc, "--skc"), ways=args.ways, pb_entries=args.pb,
                           block_bytes=args.block, tech_nm=args.tech, gcm=gcm)
    if args.from_result is not None:
        rate = hwcost.rate_from_result(Path(args.from_result))
    else:
        rate = hwcost.rate_from_clock(args.clock_mhz)
    rows = hwcost.cost_table(spec, rate, args.cacti)
    if args.out:
        hwcost.write_table(Path(args.out), spec, rate, rows, command_line(args.argv))
    if args.json:
        print_json(hwcost.as_dict(spec, rate, rows))
    else:
        print(hwcost.text_table(spec, rate, rows))
        if args.out:
            print(f"wrote {args.out}")


def add_hwcost_command(commands) -> None:
    hw = commands.add_parser(
        "hwcost", help="area, power and access time of the GCM unit, SKC and prefetch buffer (paper 3.1)",
        description="The hardware cost of the card's security parts beside the paper's 3.1 figures: the GCM unit "
                    "from its gate count, the SKC and prefetch buffer from CACTI 7 (the shipped table, or a live "
                    "CACTI run for other geometries, cached in ~/.cache/ibsec/cacti/). SKC/PB power = leakage + "
                    "energy per look-up x look-up rate. Units: mm2, W, ns. docs/hardware-cost.md has the model.")
    hw.add_argument("--skc", default="16KB", help="SKC capacity in bytes, e.g. 2KB, 16KB, 192B (default: %(default)s)")
    hw.add_argument("--ways", type=int, default=0, help="SKC associativity, 0 = fully associative (default: %(default)s)")
    hw.add_argument("--pb", type=int, default=16, help="prefetch buffer entries, 0 = no buffer (default: %(default)s)")
    hw.add_argument("--block", type=int, default=32,
                    help="bytes per SKC line and buffer entry (CACTI block size) (default: %(default)s)")
    hw.add_argument("--tech", type=int, default=45, help="technology node, nm (default: %(default)s)")
    rate = hw.add_mutually_exclusive_group()
    rate.add_argument("--clock-mhz", type=float, default=270.0,
                      help="one look-up per cycle of this clock, MHz (default: %(default)s, the card clock)")
    rate.add_argument("--from-result", metavar="RESULT.json",
                      help="take the look-up rate per card from an `ibsec run` result instead")
    hw.add_argument("--cacti", metavar="PATH",
                    help="CACTI 7 binary for geometries the table lacks (default: $CACTI_BIN); "
                         "it must have its tech_params/ folder beside it")
    hw.add_argument("--gcm-kgates", type=float, default=500.0, help="GCM unit size, kgates (default: %(default)s)")
    hw.add_argument("--gcm-mhz", type=float, default=271.0, help="GCM unit clock, MHz (default: %(default)s)")
    hw.add_argument("--gate-density", type=float,
                    help="library density, kgates/mm2 (default: 1480, the 45 nm figure; needed for other nodes)")
    hw.add_argument("--gate-power", type=float,
                    help="library power, nW/MHz/gate (default: 2.6, the 45 nm figure; needed for other nodes)")
    hw.add_argument("--json", action="store_true", help="print JSON")
    hw.add_argument("--out", metavar="FILE.csv", help="also write the table as CSV (and FILE.meta.json)")
    hw.set_defaults(func=cmd_hwcost)


# ---- presets, figures, study ------------------------------------------------

def cmd_presets(args) -> None:
    from . import markov, presets

    table = presets.load(args.file)
    if args.json:
        print_json([{**p.__dict__, "duty_cycle": p.duty_cycle} for p in table])
        return
    print(f"{'preset':<16} {'ON ms':>8} {'OFF ms':>9} {'duty':>6} {'cap 2KB':>8} {'cap 16KB':>9}  status")
    for p in table:
        caps = [markov.capacity(kb * 1024 // 16, p.on_mean_ms, p.off_mean_ms, 0.9) for kb in (2, 16)]
        print(f"{p.name:<16} {p.on_mean_ms:>8.3g} {p.off_mean_ms:>9.4g} {p.duty_cycle:>6.3f} {caps[0]:>8} {caps[1]:>9}  {p.status}")


def cmd_figures(args) -> None:
    from .figures import FIGURES

    names = list(FIGURES) if "all" in args.names else args.names
    for name in names:
        df = FIGURES[name](Path(args.out), accesses=args.accesses, jobs=args.jobs, quiet=args.quiet)
        if not args.quiet:
            print(f"{name}: {len(df)} rows written under {args.out}/")


def cmd_study(args) -> None:
    from .figures import fig3
    from .simulate import default_jobs
    from .workload_study import fig5, fig5d, summary_tables

    out, traces = Path(args.out), Path(args.traces)
    jobs = args.jobs or default_jobs()
    if jobs < 1:
        raise ConfigError("--jobs", f"must be at least 1, got {jobs}")
    df = fig3(out)
    wide = df.pivot(index=["machine", "benchmark"], columns="size_kb", values="capacity")
    wide.columns = [f"{c} KB ({c * 1024 // 16} entries)" for c in wide.columns]
    print("Session key cache capacity (sessions supported at hit-rate estimate >= 0.9), Markov ON/OFF model")
    print("ON/OFF means are estimates (docs/nas-onoff-presets.md)\n")
    print(wide.to_string())
    print(f"\nwrote {out / 'fig3_capacity.csv'} and {out / 'fig3_capacity.png'}\n")

    print("Cost of per-packet security on the card: each workload replayed on 16 nodes (cycle-level model)")
    print(f"Workloads: synthetic NAS/SPECjbb-style traces in {traces}/ (docs/workloads.md)\n")
    table = fig5(out, traces, jobs=jobs, quiet=args.quiet)
    for title, wide in summary_tables(table).items():
        print(f"{title}:")
        print(wide.to_string(float_format=lambda v: f"{v:.3g}"), "\n")
    overhead = table.groupby("configuration", sort=False)["latency_overhead_percent"].mean()
    print("latency overhead over NoSecurity, mean of the workloads (%): "
          + ", ".join(f"{c} {v:.0f}" for c, v in overhead.items() if c != "NoSecurity"))
    print(f"wrote {out / 'fig5_workloads.csv'}, {out / 'fig5_workloads.png'} and {out / 'table1_execution_time.csv'}")
    if not args.skip_packet_size:
        sizes = fig5d(out, traces, jobs=jobs, quiet=args.quiet)
        wide = sizes.pivot(index="mtu_bytes", columns="configuration", values="latency_overhead_percent")
        print("\nCG, latency overhead over NoSecurity (%) by payload per packet (bytes):")
        print(wide.drop(columns="NoSecurity").to_string(float_format=lambda v: f"{v:.0f}"))
        print(f"wrote {out / 'fig5d_packet_size.csv'} and {out / 'fig5d_packet_size.png'}")


def cmd_reproduce(args) -> None:
    from .cluster import cluster_options, job_script
    from .reproduce import FULL, QUICK, Context, reproduce
    from .simulate import default_jobs

    options = cluster_options(args)
    if args.print_job_script:
        print(job_script(options), end="")
        return
    reproduce(Context(Path(args.out), Path(args.traces), Path(args.mix_traces), QUICK if args.quick else FULL,
                      default_jobs(), args.quiet, args.argv, options))


# ---- coscheduling study (paper 4.3) ---------------------------------------------

def _study_of(args):
    """The mix (generated first if built in and missing) and its resumable store."""
    from .coschedule import Study, check_overrides
    from .mixes import load_mix
    from .simulate import default_jobs

    jobs = default_jobs() if args.jobs is None else _positive(args.jobs, "--jobs")
    overrides = check_overrides(args.set)
    progress = None if args.quiet else (
        lambda r: print(f"generated {r.path}: {r.stats.packets} packets of 256 B (synthetic)", flush=True))
    mix = load_mix(args.mix, args.traces, progress)
    return Study(mix, Path(args.out), overrides, jobs, args.quiet)


def _positive(value: int, option: str) -> int:
    if value < 1:
        raise ConfigError(option, f"must be at least 1, got {value}")
    return value


def cmd_compare_schedulers(args) -> None:
    from .coschedule import CONFIGS, SCHEDULERS, compare_schedulers, parse_names, prefetch_effect, \
        security_mode, summary_table

    # Every argument is checked before a trace is generated or the engine run.
    schedulers = parse_names(args.schedulers, SCHEDULERS, "--schedulers")
    configs = parse_names(args.configs, CONFIGS, "--configs")
    skc, pb = _positive(args.skc, "--skc"), _positive(args.pb, "--pb")
    study = _study_of(args)
    df = compare_schedulers(study, schedulers, configs, skc, pb, argv=args.argv)
    print(f"\nMix {study.mix.name}: {len(study.mix.jobs)} jobs on 16 nodes; "
          + ", ".join(f"{c} = {security_mode(c, skc, pb)}" for c in configs))
    print(summary_table(df).to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    effect = prefetch_effect(df)
    if len(effect):
        print(f"\nprefetch vs SKC (SKC-{skc}+Prefetch-{pb} against SKC-{skc}; the paper: about -5 % latency, "
              "+13 % hit rate):")
        for row in effect.itertuples():
            print(f"  {row.scheduler:<8} latency {row.latency_change_percent:+.1f} %, "
                  f"hit rate {row.hit_rate_change_points:+.1f} percentage points")
    _warn_unfinished(df)
    print(f"wrote {study.out / f'fig6_{study.mix.name}.csv'} and {study.out / f'fig6_{study.mix.name}.png'}")


def cmd_prefetch_sweep(args) -> None:
    from .coschedule import SCHEDULERS, fig7_tables, parse_names, parse_sizes, prefetch_sweep

    schedulers = parse_names(args.schedulers, SCHEDULERS, "--schedulers")
    skc_sizes, pb_sizes = parse_sizes(args.skc_sizes, "--skc-sizes"), parse_sizes(args.pb_sizes, "--pb-sizes")
    skc_fixed = parse_sizes(args.skc_fixed, "--skc-fixed")
    pb_fixed = _positive(args.pb_fixed, "--pb-fixed")
    study = _study_of(args)
    df = prefetch_sweep(study, schedulers, skc_sizes, pb_fixed, pb_sizes, skc_fixed, argv=args.argv)
    for title, wide in fig7_tables(df).items():
        print(f"\n{title}:")
        print(wide.to_string(float_format=lambda v: f"{v:.4g}"))
    _warn_unfinished(df)
    print(f"wrote {study.out / f'fig7_{study.mix.name}.csv'} and {study.out / f'fig7_{study.mix.name}.png'}")


def _warn_unfinished(df) -> None:
    """Rows are kept when the network did not drain or a job did not finish, but the reader must know."""
    bad = df[(df["exit_code"] != 0) | (df["jobs_completed"] < df["jobs"])]
    for row in bad.itertuples():
        print(f"warning: {row.scheduler} {row.security}: {row.jobs_completed} of {row.jobs} jobs completed"
              f"{', network not drained' if row.exit_code == 3 else ''} (see {row.result_file})", file=sys.stderr)


# ---- trace ------------------------------------------------------------------

def cmd_trace_gen(args) -> None:
    from .workloads import generate, make_params

    params = make_params(args.bench, args.procs, args.cls, args.scale, args.seed)
    result = generate(params, args.out)
    stats = result.stats
    print(f"wrote {result.path}: synthetic {params.bench} class {params.cls}, {params.procs} processes, "
          f"{result.iterations} of {result.full_iterations} iterations; {stats.events} events, "
          f"{stats.messages} messages, {stats.packets} packets of 256 B, original duration "
          f"{result.original_seconds:.6g} s ({result.seconds:.1f} s to generate)")


def cmd_trace_gen_default(args) -> None:
    from .workloads.defaults import INDEX_NAME, generate_default

    print(f"{'trace':<14} {'class':>5} {'scale':>6} {'iters':>9} {'events':>8} {'packets':>8} "
          f"{'original s':>11} {'gen s':>6}")

    def show(result) -> None:
        p = result.params
        print(f"{result.path.name:<14} {p.cls:>5} {p.scale:>6g} {result.iterations:>4}/{result.full_iterations:<4} "
              f"{result.stats.events:>8} {result.stats.packets:>8} {result.original_seconds:>11.4f} "
              f"{result.seconds:>6.1f}", flush=True)

    results = generate_default(args.out, args.seed, show)
    print(f"wrote {len(results)} synthetic traces and {Path(args.out) / INDEX_NAME}")


def cmd_trace_engine(args) -> int:
    """info, validate and convert are the engine's: run it and pass its exit code on."""
    from .engine import engine_path, exit_code_of

    files = [getattr(args, name) for name in args.file_args]
    command = [engine_path(), "trace", args.trace_command, *files, *(["--json"] if args.json else [])]
    return exit_code_of(subprocess.run(command, check=False).returncode)


def add_trace_commands(commands) -> None:
    trace = commands.add_parser("trace", help="generate synthetic traces; inspect, check and convert traces",
                                description="Synthetic NAS-style and SPECjbb2000-style traces (docs/workloads.md) "
                                            "and the engine's trace tools (docs/trace-format.md).")
    trace_commands = trace.add_subparsers(dest="trace_command", required=True, metavar="TRACE")

    gen = trace_commands.add_parser(
        "gen", help="write a synthetic benchmark trace",
        description="Write a synthetic trace that follows the published communication structure of a NAS "
                    "benchmark or a SPECjbb2000-style server workload. The same arguments give the same bytes. "
                    "Processes: CG, MG, LU, FT a power of two; SP, BT a square; JBB at least 2.")
    gen.add_argument("bench", metavar="BENCH", help="CG, MG, LU, SP, BT, FT or JBB")
    gen.add_argument("--procs", type=int, default=16, help="number of processes (default: %(default)s)")
    gen.add_argument("--class", dest="cls", default="A", help="problem class S, W or A (default: %(default)s)")
    gen.add_argument("--scale", type=float, default=1.0,
                     help="multiply the iteration count by this, 0 < F <= 1 (default: %(default)s)")
    gen.add_argument("--seed", type=int, default=1, help="random seed (default: %(default)s)")
    gen.add_argument("--out", required=True, help="trace file to write (text; gzipped if it ends in .gz)")
    gen.set_defaults(func=cmd_trace_gen)

    default = trace_commands.add_parser(
        "gen-default", help="write the default workload set (7 traces, 16 processes)",
        description="Write the default workload set used by the main job: CG, MG, LU, SP, BT (class A), FT "
                    "(class W) and JBB on 16 processes, each scaled to roughly 50k-300k packets, plus an index "
                    "workloads.csv.")
    default.add_argument("--out", required=True, help="folder to write the traces into")
    default.add_argument("--seed", type=int, default=1, help="random seed (default: %(default)s)")
    default.set_defaults(func=cmd_trace_gen_default)

    for name, files, help_text in (
            ("info", {"FILE": "trace file"}, "summarise a trace (ibsec-engine trace info)"),
            ("validate", {"FILE": "trace file"}, "check a trace completely; exit 2 on the first error"),
            ("convert", {"IN": "trace to read", "OUT": "trace to write: .ibtb binary, else text; .gz/.zst compress"},
             "re-encode a trace")):
        tool = trace_commands.add_parser(name, help=help_text, description=f"Runs ibsec-engine trace {name}.")
        for metavar, file_help in files.items():
            tool.add_argument(metavar.lower(), metavar=metavar, help=file_help)
        if name == "info":
            tool.add_argument("--json", action="store_true", help="print JSON")
        tool.set_defaults(func=cmd_trace_engine, json=False, file_args=[m.lower() for m in files])


# ---- parser -----------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ibsec", description="ibsec: secure InfiniBand card simulator and its cache models")
    parser.add_argument("--version", action="version", version=f"ibsec {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    analytic = commands.add_parser("analytic", help="Markov ON/OFF cache-capacity model (paper 3.2)",
                                   description="Markov ON/OFF model: state probabilities, hit-rate estimate F_n(x), capacity.")
    analytic_commands = analytic.add_subparsers(dest="analytic_command", required=True, metavar="ANALYTIC")
    hitrate = analytic_commands.add_parser("hitrate", help="F_n(x): hit-rate estimate for x entries and n sessions")
    add_size_options(hitrate, required=True)
    hitrate.add_argument("--processes", type=int, required=True, help="number of sessions n")
    add_onoff_options(hitrate)
    hitrate.add_argument("--json", action="store_true", help="print JSON")
    hitrate.set_defaults(func=cmd_analytic_hitrate)
    cap = analytic_commands.add_parser("capacity", help="largest n with F_n(x) >= target")
    add_size_options(cap, required=True)
    cap.add_argument("--target", type=float, default=0.9, help="target hit rate p in (0, 1) (default: %(default)s)")
    add_onoff_options(cap)
    cap.add_argument("--json", action="store_true", help="print JSON")
    cap.set_defaults(func=cmd_analytic_capacity)
    states = analytic_commands.add_parser("states", help="P_0..P_n, Eq. (1)-(2)")
    states.add_argument("--processes", type=int, required=True, help="number of sessions n")
    add_onoff_options(states)
    states.add_argument("--json", action="store_true", help="print JSON")
    states.set_defaults(func=cmd_analytic_states)

    sim = commands.add_parser("cachesim", help="synthetic ON/OFF look-ups against a key cache (paper 4.4)",
                              description="Run the ON/OFF session-key generator against one key cache, or sweep one parameter.")
    sim.add_argument("--keys", type=int, help="session keys (default 1000)")
    add_size_options(sim, required=False)
    sim.add_argument("--ways", type=int, help="associativity, 0 = fully associative (default 0)")
    sim.add_argument("--policy", help="replacement policy: lru, fifo, random, lfu, opt (default lru)")
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
    sim.set_defaults(func=cmd_cachesim)
    sim.set_defaults(entry_bytes=None)

    run = commands.add_parser(
        "run", help="one cycle-level simulation of the cluster (ibsec-engine run), or a load sweep",
        description="Run one cycle-level simulation through ibsec-engine and write its result (JSON), "
                    "or, with --sweep-load, one simulation per offered load plus a CSV table and a plot. "
                    "`ibsec params` lists every configuration key. Exit codes: 0 ok, 2 bad configuration, "
                    "3 the network did not drain (the result is still written), 1 other failures.")
    run.add_argument("config", nargs="?", help="JSON configuration file (omit for the defaults; configs/ has examples)")
    run.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="override one parameter, e.g. --set nic.security=SKC-16 (repeatable; later wins; "
                          "VALUE is JSON if it parses, else a string)")
    run.add_argument("-o", "--out", help="result file (JSON; standard output when omitted); "
                                   "with --sweep-load, the PREFIX of PREFIX.csv/.png/.meta.json")
    run.add_argument("--sweep-load", metavar="LOADS",
                     help="run one point per traffic.load: START:STOP:STEP (inclusive, e.g. 0.05:0.95:0.1) or "
                          "V1,V2,... (e.g. 0.1,0.3,0.5); finished points are kept in PREFIX.runs/ and reused")
    run.add_argument("--trace", metavar="FILE",
                     help="replay this trace (docs/trace-format.md) instead of synthetic traffic; "
                          "the result gains a `replay` section (docs/replay.md)")
    run.add_argument("--attack", metavar="FILE",
                     help="an attacker on one cable (JSON: attack.link, rates of snoop, tamper, inject, replay, "
                          "spoof; configs/attacks/ has examples, docs/attacks.md explains); the result gains an "
                          "`attack` section and the summary a table of attacked, detected and delivered packets")
    run.add_argument("--jobs", type=int, help="load points run at once (default: CPUs, at most 8)")
    run.add_argument("--perf-json", help="also write wall time, packets/s and peak memory here (single run)")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress or summary on standard error")
    run.set_defaults(func=cmd_run)

    params = commands.add_parser("params", help="list the simulation parameters with defaults and units",
                                 description="Every configuration key of `ibsec run`, with its default, unit "
                                             "and meaning (from ibsec-engine params).")
    params.add_argument("--json", action="store_true", help="print JSON")
    params.set_defaults(func=cmd_params)

    pre = commands.add_parser("presets", help="list the NAS ON/OFF presets and their capacities")
    pre.add_argument("--file", help="a preset CSV to read instead of the packaged one")
    pre.add_argument("--json", action="store_true", help="print JSON")
    pre.set_defaults(func=cmd_presets)

    figs = commands.add_parser("figures", help="regenerate the paper's cache figures (CSV + PNG)")
    figs.add_argument("names", nargs="+", choices=["fig3", "fig8", "fig9", "xval", "security", "all"], help="figures to make")
    figs.add_argument("--out", default="results", help="output folder (default: %(default)s)")
    figs.add_argument("--accesses", type=int, default=4_000_000, help="look-ups per simulated point (default: %(default)s)")
    figs.add_argument("--jobs", type=int, default=2, help="points run at once (default: %(default)s)")
    figs.add_argument("--quiet", action="store_true", help="no progress output")
    figs.set_defaults(func=cmd_figures)

    study = commands.add_parser(
        "study", help="the main job: cache capacity (Fig. 3) and the cost of security on the workloads (Fig. 5)",
        description="Prints the Markov-model capacity table (Fig. 3), then replays every shipped workload trace "
                    "under NoSecurity, NoSKC and SKC-n on the 16-node cluster and prints latency, SKC hit rate "
                    "and completion time per benchmark (Fig. 5, Table 1), and CG by packet size (Fig. 5d). "
                    "Missing traces are generated first; finished replays are kept and reused.")
    study.add_argument("--out", default="results", help="output folder (default: %(default)s)")
    study.add_argument("--traces", default="workloads",
                       help="folder of the workload traces, generated there if missing (default: %(default)s)")
    study.add_argument("--jobs", type=int, help="replays run at once (default: CPUs, at most 8)")
    study.add_argument("--skip-packet-size", action="store_true", help="leave out the packet-size sweep (Fig. 5d)")
    study.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    study.set_defaults(func=cmd_study)

    repro = commands.add_parser(
        "reproduce", help="regenerate every figure and table of the paper and results/REPORT.md",
        description="Regenerates Fig. 3, 5, 6, 7, 8, 9, Table 1 and the 3.1 hardware-cost table from the shipped "
                    "workloads (CSV + PNG each) and writes REPORT.md, which puts each number beside the paper's "
                    "statement. Finished runs are kept in resumable stores under --out and reused.")
    repro.add_argument("--quick", action="store_true",
                       help="fewer points and look-ups: a few minutes on 2 cores instead of the full plan")
    repro.add_argument("--out", default="results", help="output folder (default: %(default)s)")
    repro.add_argument("--traces", default="workloads",
                       help="folder of the workload traces, generated there if missing (default: %(default)s)")
    repro.add_argument("--mix-traces", default="workloads/mixes",
                       help="folder of the coscheduling mixes' traces, generated there if missing (default: %(default)s)")
    repro.add_argument("-q", "--quiet", action="store_true", help="no progress bars (step titles are still printed)")
    from .cluster import add_cluster_options

    add_cluster_options(repro)
    repro.set_defaults(func=cmd_reproduce)

    add_trace_commands(commands)
    add_coschedule_commands(commands)
    add_hwcost_command(commands)
    from .sweep_command import add_sweep_command

    add_sweep_command(commands)
    return parser


def add_study_options(parser: argparse.ArgumentParser, figure: str) -> None:
    """Options both coscheduling commands share."""
    parser.add_argument("--mix", default="nas15",
                        help="nas15 (CG, MG, LU, SP, BT x3), ft-jbb6 (FT, JBB x3) or a mix file: one job per line, "
                             "'TRACE [COUNT]', paths relative to the file (default: %(default)s)")
    parser.add_argument("--out", default="results/schedulers",
                        help=f"output folder: {figure}_<mix>.csv/.png/.meta.json and the resumable store "
                             "<mix>.runs/ (default: %(default)s)")
    parser.add_argument("--traces", default="workloads/mixes",
                        help="folder of the built-in mixes' traces, generated there if missing (default: %(default)s)")
    parser.add_argument("--jobs", type=int, help="engine runs at once (default: CPUs, at most 8)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override one engine parameter in every run, e.g. --set scheduler.cpus_per_node=2 "
                             "(repeatable; not trace.jobs, trace.file, scheduler.policy or nic.security, which the study sets)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress output")


def add_coschedule_commands(commands) -> None:
    compare = commands.add_parser(
        "compare-schedulers", help="job mixes under node schedulers, with and without prefetch (Fig. 6)",
        description="Run a job mix on the 16-node cluster under each node scheduler and each card "
                    "configuration (NoSKC, SKC-N, SKC-N+Prefetch-M), print latency, hit rates, mean job "
                    "completion time and context switches, and the effect of prefetching against SKC, and write "
                    "fig6_<mix>.csv and .png. Finished runs are kept in <out>/<mix>.runs/ and reused.")
    compare.add_argument("--schedulers", default="local,sb,dcs-sb,pb,gang",
                         help="comma-separated: batch, local, sb, dcs-sb, pb, gang (default: %(default)s)")
    compare.add_argument("--configs", default="NoSKC,SKC,Prefetch",
                         help="comma-separated: NoSecurity, NoSKC, SKC (SKC-N), Prefetch (SKC-N+Prefetch-M) "
                              "(default: %(default)s)")
    compare.add_argument("--skc", type=int, default=10, help="session key cache entries N (default: %(default)s)")
    compare.add_argument("--pb", type=int, default=8, help="prefetch buffer entries M (default: %(default)s)")
    add_study_options(compare, "fig6")
    compare.set_defaults(func=cmd_compare_schedulers)

    sweep = commands.add_parser(
        "prefetch-sweep", help="SKC size and prefetch-buffer size sweeps on a job mix (Fig. 7)",
        description="For each scheduler: the SKC size swept with and without a prefetch buffer of --pb-fixed "
                    "entries, and the buffer size swept at each --skc-fixed SKC size. Prints the tables and "
                    "writes fig7_<mix>.csv and .png. Shares the resumable store with compare-schedulers.")
    sweep.add_argument("--schedulers", default="dcs-sb,gang",
                       help="comma-separated: batch, local, sb, dcs-sb, pb, gang (default: %(default)s)")
    sweep.add_argument("--skc-sizes", default="2,5,10,15,20,25,30", help="SKC entries to sweep (default: %(default)s)")
    sweep.add_argument("--pb-fixed", type=int, default=2,
                       help="buffer entries during the SKC sweep (default: %(default)s)")
    sweep.add_argument("--pb-sizes", default="1,2,4,8,16", help="buffer entries to sweep (default: %(default)s)")
    sweep.add_argument("--skc-fixed", default="5,20", help="SKC entries during the buffer sweep (default: %(default)s)")
    add_study_options(sweep, "fig7")
    sweep.set_defaults(func=cmd_prefetch_sweep)


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
