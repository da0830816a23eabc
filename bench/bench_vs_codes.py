"""ibsec against CODES (the fat-tree model of CODES 2.0 on the ROSS kernel), run back to back on the same fat trees:
delivered packets per CPU-second of each simulator and their ratio, as a Markdown table (and CSV with --out).

Run: .venv/bin/python bench/bench_vs_codes.py [--messages 200000] [--repeat 3] [--only 1024] [--out vs-codes.csv]
     [--codes-end-ns 40000] [--engine build/ibsec-engine] [--peers-src ../shared/peers] [--peers-build build/peers]

The cases are the CODES configurations of shared/peers/README.md (configs/ft16-2lvl-r8.conf, ft1024-3lvl-k16.conf,
ft1024-2lvl-r64.conf): uniform traffic at 10 % load with exponential inter-arrival times (204.8 ns at 256 bytes),
one 256-byte packet per message, 12.5 GB/s links, 90 ns switches, 64 KiB of buffer per port and adaptive routing
(each switch takes the least occupied port of a shortest path). CODES runs sequentially:
    mpirun -np 1 model-net-synthetic-fattree --synch=1 --traffic=1 --payload_size=256 --arrival_time=204.8
        --end=END -- CONF
ibsec describes the same fabric and cards: fat-tree-built of the same radix and levels, 4x EDR (12.5 GB/s),
network.switch_latency_ns=90, 64 KiB per port and lane, network.adaptive_routing=minimal, Poisson offers,
NoSecurity. The 4-ary 5-tree (radix-8 switches, 5 levels) is an ibsec-only row; its ratio is to the 3-level CODES
run of its case.

Packets: ibsec's packets_delivered (--perf-json); CODES's "Total packets generated G finished F" line, F being the
packets whose last chunk reached its destination node (a packet is one chunk here, so F is also its finished chunks
and messages). By default CODES's --end is the time in which its nodes offer --messages packets, so that both
simulators deliver about as many.
CPU time, the same measure for both: user + system seconds of the child process and its descendants
(resource.getrusage(RUSAGE_CHILDREN) before and after the run). It includes start-up: the engine's argument parsing
and fabric building; mpirun, MPI and ROSS initialisation. Peak RSS: the engine's own figure (--perf-json); for CODES
the largest process of the mpirun tree (os.wait4).
--repeat N runs every case N times, ibsec and CODES alternately so that machine load hits both alike, and reports
the run of median packets per CPU-second of each row.

What still differs: ibsec drains the fabric after the last offer (every offered packet is delivered), CODES stops at
--end with about 1 % of its packets in flight; ibsec puts 26 bytes of InfiniBand headers on the wire with each
256-byte payload, CODES 256 bytes in all; ibsec switches cut through (head in to head out in 90 ns), CODES forwards
each 256-byte chunk whole (its serialisation, then 90 ns, per hop); CODES has no cable delay (ibsec's is set to 0).

ROSS and CODES are built once from the peers' tarballs with the README's commands into --peers-build (needs mpicc,
mpirun, cmake, make, a C/C++ compiler, bison and flex; --install-packages installs the Debian packages as root); the
build downloads nothing.
"""

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench_model import (  # beside this script
    TREE_4_ARY_5,
    built_fat_tree,
    refuse_existing_output,
    run_case,
    write_new_csv,
)

REPO = Path(__file__).resolve().parent.parent
CODES_BINARY = "model-net-synthetic-fattree"
PAYLOAD_BYTES = 256
LOAD = 0.1
LINK_BYTES_PER_NS = 12.5  # 4x EDR
ARRIVAL_NS = PAYLOAD_BYTES / (LOAD * LINK_BYTES_PER_NS)  # 204.8 ns between a node's messages
# The hardware of the CODES configurations, as ibsec's keys say it.
COMMON = ["nic.security=NoSecurity", f"traffic.load={LOAD}", "traffic.warmup_messages=0",
          "traffic.injection=poisson", "traffic.pattern=uniform", f"traffic.sizes_bytes=[{PAYLOAD_BYTES}]",
          f"nic.mtu_bytes={PAYLOAD_BYTES}", "network.link_rate=EDR", "network.link_width=4x",
          "network.switch_latency_ns=90", "network.link_delay_ns=0", "network.vl_buffer_bytes=65536",
          "network.adaptive_routing=minimal"]
# Tool on PATH -> Debian package that brings it.
TOOLS = {"mpicc": "openmpi-bin", "mpirun": "openmpi-bin", "cmake": "cmake", "make": "make", "cc": "gcc",
         "c++": "g++", "bison": "bison", "flex": "flex"}
MPI_HEADERS = "libopenmpi-dev"
ROSS_CMAKE = ["-DCMAKE_C_COMPILER=mpicc", "-DCMAKE_BUILD_TYPE=Release"]
CODES_CMAKE = ["-DCMAKE_BUILD_TYPE=Release", "-DCODES_USE_DUMPI=OFF", "-DCODES_USE_SWM=OFF", "-DCODES_USE_UNION=OFF",
               "-DCODES_USE_TORCH=OFF", "-DCODES_USE_ZEROMQ=OFF"]
COLUMNS = ["case", "simulator", "packets", "cpu_seconds", "packets_per_cpu_second", "peak_rss_mib", "ratio"]


@dataclass
class Case:
    nodes: int
    conf: str  # in the peers' configs/
    ibsec: dict[str, list[str]] = field(default_factory=dict)  # row name -> topology keys


CASES = {
    "16 nodes, 2 levels, radix 8": Case(16, "ft16-2lvl-r8.conf", {"ibsec": built_fat_tree(8, 2, 16)}),
    "1024 nodes, 3 levels, radix 16": Case(1024, "ft1024-3lvl-k16.conf", {
        "ibsec": built_fat_tree(16, 3, 1024),
        "ibsec, 4-ary 5-tree": TREE_4_ARY_5}),
    "1024 nodes, 2 levels, radix 64": Case(1024, "ft1024-2lvl-r64.conf", {"ibsec": built_fat_tree(64, 2, 1024)}),
}


def children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# --- building the peers ---------------------------------------------------------------------------------------------

def check_sources(src: Path):
    missing = [name for name in ("ross.tar.gz", "codes.tar.gz", "configs") if not (src / name).exists()]
    if missing:
        sys.exit(f"error: the peer simulators' sources are not in {src} (missing: {', '.join(missing)}); "
                 "give their folder with --peers-src")


def check_tools(install: bool):
    missing = [tool for tool in TOOLS if not shutil.which(tool)]
    if not missing:
        return
    packages = sorted({TOOLS[tool] for tool in missing} | ({MPI_HEADERS} if "mpicc" in missing else set()))
    if not install:
        sys.exit(f"error: building CODES needs {', '.join(missing)}: apt-get install -y {' '.join(packages)} "
                 "(or rerun with --install-packages as root)")
    subprocess.run(["apt-get", "install", "-y", *packages], check=True)


def build_step(command: list[str], cwd: Path, log: Path):
    with open(log, "a") as out:
        out.write(f"$ {' '.join(command)}\n")
        out.flush()
        if subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT).returncode != 0:
            sys.exit(f"error: `{' '.join(command)}` failed in {cwd}; see {log}")


def unpack(tarball: Path, folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    safe = {"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}  # where this Python has extraction filters
    with tarfile.open(tarball) as tar:
        tar.extractall(folder, **safe)
    return folder


def build_peers(src: Path, build: Path, install: bool) -> Path:
    """CODES's fat-tree program, built first (ROSS, then CODES on it) unless --peers-build already has it."""
    binary = build / "codes-build" / "src" / CODES_BINARY
    if binary.exists():
        return binary
    check_tools(install)
    build.mkdir(parents=True, exist_ok=True)
    log, start = build / "build.log", time.monotonic()
    print(f"building ROSS and CODES into {build} (log: {log})", file=sys.stderr, flush=True)
    for name, cmake, target in (("ross", ROSS_CMAKE + [f"-DCMAKE_INSTALL_PREFIX={build / 'ross'}"], "install"),
                                ("codes", CODES_CMAKE + [f"-DCMAKE_PREFIX_PATH={build / 'ross'}"], CODES_BINARY)):
        source, objects = unpack(src / f"{name}.tar.gz", build / f"{name}-src"), build / f"{name}-build"
        shutil.rmtree(objects, ignore_errors=True)
        objects.mkdir()
        build_step(["cmake", str(source), *cmake], objects, log)
        build_step(["make", "-j2", target], objects, log)
    print(f"built ROSS and CODES in {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)
    return binary


# --- running ------------------------------------------------------------------------------------------------------

def run_ibsec(engine: str, overrides: list[str]) -> dict:
    before = children_cpu_seconds()
    _, perf = run_case(engine, overrides)
    cpu = children_cpu_seconds() - before
    return {"packets": perf["packets_delivered"], "cpu_seconds": cpu, "peak_rss_mib": perf["peak_rss_mib"]}


def codes_packets(output: str) -> int:
    found = re.search(r"Total packets generated (\d+) finished (\d+)", output)
    if not found:
        sys.exit("error: CODES printed no 'Total packets generated G finished F' line; its output ended:\n"
                 + output[-2000:])
    return int(found.group(2))


def run_codes(binary: Path, conf: Path, end_ns: float) -> dict:
    """One sequential CODES run in a scratch folder (it writes its statistics folders into the working one)."""
    command = ["mpirun", "-np", "1", str(binary), "--synch=1", "--traffic=1", f"--payload_size={PAYLOAD_BYTES}",
               f"--arrival_time={ARRIVAL_NS:g}", f"--end={end_ns:.10g}", "--", str(conf)]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")  # Open MPI as root
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "codes.out"
        with open(log, "w") as out:
            before = children_cpu_seconds()
            child = subprocess.Popen(command, cwd=tmp, env=env, stdout=out, stderr=subprocess.STDOUT)
            _, status, usage = os.wait4(child.pid, 0)  # usage: of mpirun and the program it ran
            cpu = children_cpu_seconds() - before
            child.returncode = os.waitstatus_to_exitcode(status)
        output = log.read_text(errors="replace")
    if child.returncode != 0:
        sys.exit(f"error: `{' '.join(command)}` failed; its output ended:\n{output[-2000:]}")
    return {"packets": codes_packets(output), "cpu_seconds": cpu, "peak_rss_mib": usage.ru_maxrss / 1024}


def median_run(runs: list[dict]) -> dict:
    for run in runs:
        run["packets_per_cpu_second"] = run["packets"] / run["cpu_seconds"]
    return sorted(runs, key=lambda run: run["packets_per_cpu_second"])[(len(runs) - 1) // 2]


def measure_case(name: str, case: Case, args, codes: Path) -> list[dict]:
    """Every ibsec row of the case and its CODES run, --repeat times in turn; one row each, its median run."""
    end_ns = args.codes_end_ns or args.messages * ARRIVAL_NS / case.nodes
    overrides = {row: keys + COMMON + [f"traffic.messages={args.messages}"] for row, keys in case.ibsec.items()}
    peer = f"CODES ({case.conf})"
    runs: dict[str, list[dict]] = {row: [] for row in [*case.ibsec, peer]}
    for _ in range(args.repeat):
        for row, keys in overrides.items():
            runs[row].append(run_ibsec(args.engine, keys))
            progress(name, row, runs[row][-1])
        runs[peer].append(run_codes(codes, args.peers_src / "configs" / case.conf, end_ns))
        progress(name, f"{peer}, --end={end_ns:.10g}", runs[peer][-1])
    rows = [{"case": name, "simulator": row, **median_run(row_runs)} for row, row_runs in runs.items()]
    peer_rate = rows[-1]["packets_per_cpu_second"]
    for row in rows[:-1]:
        row["ratio"] = row["packets_per_cpu_second"] / peer_rate
    rows[-1]["ratio"] = None
    return rows


def progress(case: str, row: str, run: dict):
    print(f"{case} | {row}: {run['packets']} packets in {run['cpu_seconds']:.2f} CPU s, "
          f"{run['packets'] / run['cpu_seconds']:,.0f} /CPU s", file=sys.stderr, flush=True)


# --- output -------------------------------------------------------------------------------------------------------

def cell(column: str, value) -> str:
    if value is None:
        return ""
    formats = {"cpu_seconds": "{:.2f}", "packets_per_cpu_second": "{:,.0f}", "peak_rss_mib": "{:.0f}",
               "ratio": "{:.2f}"}
    return formats.get(column, "{}").format(value)


def print_table(rows: list[dict]):
    print("| case | simulator | packets | CPU s | packets per CPU-second | peak RSS MiB | ratio ibsec/CODES |")
    print("|" + "---|" * len(COLUMNS))
    for row in rows:
        print("| " + " | ".join(cell(column, row[column]) for column in COLUMNS) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=200_000,
                        help="ibsec: messages (= packets) offered over all nodes per run (default: %(default)s)")
    parser.add_argument("--codes-end-ns", type=float,
                        help="CODES: simulated time of every run, ns (default: per case, the time in which its nodes "
                             "offer --messages packets: messages x 204.8 / nodes, 2 560 000 at 16 nodes)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per row; the median is reported (default: 3)")
    parser.add_argument("--only", help="run only the cases whose name contains this text")
    parser.add_argument("--out", type=Path, help="CSV to write (default: none)")
    parser.add_argument("--engine", default=str(REPO / "build" / "ibsec-engine"))
    parser.add_argument("--peers-src", type=Path, default=REPO.parent / "shared" / "peers",
                        help="folder of ross.tar.gz, codes.tar.gz and configs/ (default: ../shared/peers)")
    parser.add_argument("--peers-build", type=Path, default=REPO / "build" / "peers",
                        help="where ROSS and CODES are built, once (default: build/peers)")
    parser.add_argument("--install-packages", action="store_true",
                        help="apt-get install the Debian packages that building CODES needs, if any is missing")
    args = parser.parse_args()
    refuse_existing_output(args.out)
    args.peers_src = args.peers_src.resolve()  # CODES runs in a scratch folder
    check_sources(args.peers_src)
    codes = build_peers(args.peers_src, args.peers_build.resolve(), args.install_packages)
    rows = []
    for name, case in CASES.items():
        if not args.only or args.only in name:
            rows += measure_case(name, case, args, codes)
    if args.out:
        write_new_csv(args.out, rows, COLUMNS)
    print_table(rows)


if __name__ == "__main__":
    main()
