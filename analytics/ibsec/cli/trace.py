"""`ibsec trace gen|gen-default|capture-npb|info|validate|convert|import`: synthetic traces, real NPB traces, and the
engine's trace tools."""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError
from ..numeric import count_option, real_option, seed_option
from .options import output_file, output_folder


def gen(args) -> None:
    from ..workloads import generate, make_params

    params = make_params(args.bench, args.procs, args.cls, args.scale, args.seed)
    result = generate(params, args.out)
    stats = result.stats
    print(f"wrote {result.path}: synthetic {params.bench} class {params.cls}, {params.procs} processes, "
          f"{result.iterations} of {result.full_iterations} iterations; {stats.events} events: "
          f"{stats.application_messages} application messages ({stats.self_messages} to the sender itself, "
          f"no network), {stats.collective_calls} collective calls; about {stats.packets} packets of 256 B "
          f"(collectives expanded); original duration {result.original_seconds:.6g} s "
          f"({result.seconds:.1f} s to generate)")


def gen_default(args) -> None:
    from ..workloads.defaults import INDEX_NAME, generate_default

    print(f"{'trace':<14} {'class':>5} {'scale':>6} {'iters':>9} {'events':>8} {'packets':>8} "
          f"{'original s':>11} {'gen s':>6}")

    def show(result) -> None:
        p = result.params
        print(f"{result.path.name:<14} {p.cls:>5} {p.scale:>6g} {result.iterations:>4}/{result.full_iterations:<4} "
              f"{result.stats.events:>8} {result.stats.packets:>8} {result.original_seconds:>11.4f} "
              f"{result.seconds:>6.1f}", flush=True)

    results = generate_default(args.out, args.seed, show)
    print(f"wrote {len(results)} synthetic traces and {Path(args.out) / INDEX_NAME}")


def capture_npb(args) -> None:
    from ..capture import npb, npb_capture

    wanted = [npb.check_benchmark(bench, cls) for cls in args.classes or ["S"] for bench in args.benches]
    cache = Path(args.cache) if args.cache else npb.default_cache()
    source = npb_tarball(args)
    npb.check_sha256(source, args.sha256)
    print(f"NPB {npb.VERSION}: {source}; building {', '.join(f'{b}.{c}' for b, c in wanted)} in {cache}", flush=True)
    build = npb.build(wanted, cache, source)
    for bench, cls in wanted:
        captured = npb_capture.capture(build, bench, cls, args.procs, Path(args.out), args.compression)
        print(f"wrote {captured.path}: NPB {bench.upper()} class {cls} on {args.procs} processes "
              f"({captured.seconds:.1f} s under the capture library; verification successful)", flush=True)


def npb_tarball(args) -> Path:
    """--tarball as given (any name, any folder), else NPB3.4-MPI.tar.gz in --npb DIR or the default folder."""
    from ..capture import npb

    if args.tarball is None:
        return npb.tarball(Path(args.npb) if args.npb else None)
    if args.npb:
        raise ConfigError("--tarball", "give the tarball by --tarball PATH or its folder by --npb DIR, not both")
    path = Path(args.tarball)
    if not path.is_file():
        raise ConfigError("--tarball", f"{path} is not a file (the NPB 3.4 MPI tarball, docs/real-traces.md)")
    return path


def sha256_option(text: str) -> str:
    """argparse type= of --sha256: 64 hexadecimal digits, in lower case."""
    import argparse
    import re

    if not re.fullmatch(r"[0-9a-fA-F]{64}", text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a SHA-256 (64 hexadecimal digits)")
    return text.lower()


def engine_tool(args) -> int:
    """info, validate and convert are the engine's: run it and pass its exit code on."""
    from ..engine.binary import run_to_our_stdout

    files = [getattr(args, name) for name in args.file_args]
    return run_to_our_stdout(["trace", args.trace_command, *files, *(["--json"] if args.json else [])])


def import_tool(args) -> int:
    """`trace import` is the engine's: run it and pass its exit code on."""
    from ..engine.binary import run_to_our_stdout

    return run_to_our_stdout(["trace", "import", args.source, *(["--cached"] if args.cached else ["--out", args.out])])


def add_import_parser(trace_commands) -> None:
    tool = trace_commands.add_parser(
        "import", help="write an OTF2 (Score-P, EZTrace) or DUMPI (sst-dumpi) trace as an ibsec trace",
        description="Runs ibsec-engine trace import: reads an OTF2 archive or a DUMPI run and writes an ibsec "
                    "trace whose notes "
                    "say where it came from, which calls were not imported and what was repaired "
                    "(docs/importing.md).")
    tool.add_argument("source", metavar="SOURCE",
                      help="OTF2 anchor file (*.otf2), or DUMPI .meta file (or the folder holding it)")
    target = tool.add_mutually_exclusive_group(required=True)
    target.add_argument("--out", help="trace to write: .ibtb binary, else text; .gz/.zst compress")
    target.add_argument("--cached", action="store_true",
                        help="import into the cache instead, once (`ibsec run --trace SOURCE` reads the same), and "
                             "print the cached trace's path")
    tool.set_defaults(func=import_tool)


TRACE_OR_SOURCE = ("trace file, or another tool's trace (an OTF2 anchor *.otf2, a DUMPI .meta file or its folder), "
                   "read through its import, made once into the cache (docs/importing.md)")


def add_parser(commands) -> None:
    trace = commands.add_parser("trace", help="synthetic traces, NPB captures; inspect, check, convert traces",
                                description="Synthetic NAS-style and SPECjbb2000-style traces (docs/workloads.md), "
                                            "real NAS Parallel Benchmarks traces (docs/real-traces.md) and the "
                                            "engine's trace tools (docs/trace-format.md).")
    trace_commands = trace.add_subparsers(dest="trace_command", required=True, metavar="TRACE")

    generator = trace_commands.add_parser(
        "gen", help="write a synthetic benchmark trace",
        description="Write a synthetic trace that follows the published communication structure of a NAS "
                    "benchmark or a SPECjbb2000-style server workload. The same arguments give the same bytes. "
                    "Processes: CG, MG, LU, FT a power of two; SP, BT a square; JBB at least 2.")
    generator.add_argument("bench", metavar="BENCH", help="CG, MG, LU, SP, BT, FT or JBB")
    generator.add_argument("--procs", type=count_option, default=16,
                           help="number of processes (default: %(default)s)")
    generator.add_argument("--class", dest="cls", default="A", help="problem class S, W or A (default: %(default)s)")
    generator.add_argument("--scale", type=real_option(above=0.0, maximum=1.0), default=1.0,
                           help="multiply the iteration count by this, 0 < F <= 1 (default: %(default)s)")
    generator.add_argument("--seed", type=seed_option, default=1, help="random seed (default: %(default)s)")
    generator.add_argument("--out", type=output_file, required=True,
                           help="trace file to write (text; gzipped if it ends in .gz)")
    generator.set_defaults(func=gen)

    default = trace_commands.add_parser(
        "gen-default", help="write the default workload set (7 traces, 16 processes)",
        description="Write the default workload set used by the main job: CG, MG, LU, SP, BT (class A), FT "
                    "(class W) and JBB on 16 processes, each scaled to roughly 50k-300k packets, plus an index "
                    "workloads.csv.")
    default.add_argument("--out", type=output_folder, required=True, help="folder to write the traces into")
    default.add_argument("--seed", type=seed_option, default=1, help="random seed (default: %(default)s)")
    default.set_defaults(func=gen_default)

    add_capture_npb_parser(trace_commands)
    add_import_parser(trace_commands)

    for name, files, help_text in (
            ("info", {"FILE": TRACE_OR_SOURCE}, "summarise a trace (ibsec-engine trace info)"),
            ("validate", {"FILE": TRACE_OR_SOURCE}, "check a trace completely; exit 2 on the first error"),
            ("convert", {"IN": TRACE_OR_SOURCE, "OUT": "trace to write: .ibtb binary, else text; .gz/.zst compress"},
             "re-encode a trace")):
        tool = trace_commands.add_parser(name, help=help_text, description=f"Runs ibsec-engine trace {name}.")
        for metavar, file_help in files.items():
            tool.add_argument(metavar.lower(), metavar=metavar, help=file_help)
        if name == "info":
            tool.add_argument("--json", action="store_true", help="print JSON")
        tool.set_defaults(func=engine_tool, json=False, file_args=[m.lower() for m in files])


def add_capture_npb_parser(trace_commands) -> None:
    from ..capture.npb import BENCHMARKS, EXPECTED_SHA256, NPB_DIR_ENV, TARBALL

    capture = trace_commands.add_parser(
        "capture-npb", help="capture NAS Parallel Benchmarks (NPB 3.4 MPI) as real traces",
        description=f"Build NPB benchmarks from the unmodified {TARBALL} (cached), run each on PROCS processes "
                    "under libibsec_capture, check that NPB verified its result, and write "
                    "OUT/<bench>.<class>.<procs>.trace.gz with how it was made in `note npb:` header lines "
                    "(docs/real-traces.md). Needs Open MPI (mpirun, mpicc, mpif90), gfortran and make.")
    capture.add_argument("benches", nargs="+", metavar="BENCH", help=f"benchmarks: {', '.join(BENCHMARKS)}")
    capture.add_argument("--class", dest="classes", action="append", metavar="CLASS",
                         help="problem class S, W, A, B, ...; repeat for several (default: S)")
    capture.add_argument("--procs", type=count_option, default=16, help="MPI processes (default: %(default)s)")
    capture.add_argument("--out", type=output_folder, default="npb-traces",
                         help="folder to write the traces into (default: %(default)s)")
    capture.add_argument("--compression", choices=("gz", "zst"), default="gz",
                         help="compression of the written traces (default: %(default)s)")
    capture.add_argument("--tarball", metavar="PATH",
                         help="the NPB 3.4 MPI tarball, under any name, from anywhere (docs/real-traces.md says "
                              "where to get it)")
    capture.add_argument("--npb", metavar="DIR",
                         help=f"folder holding {TARBALL} (default: ${NPB_DIR_ENV}, else ../shared/npb beside the "
                              "source checkout)")
    capture.add_argument("--sha256", type=sha256_option, default=EXPECTED_SHA256, metavar="HEX",
                         help="the SHA-256 the tarball must have (default: the tarball the shipped traces were "
                              "captured from, %(default)s); another NPB 3.4 release has its own")
    capture.add_argument("--cache", metavar="DIR",
                         help="where NPB is unpacked and built, once per tarball and flags (default: build/npb of "
                              "the checkout, else ~/.cache/ibsec/npb)")
    capture.set_defaults(func=capture_npb, classes=None)
