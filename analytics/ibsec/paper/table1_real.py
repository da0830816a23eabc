"""Execution time on real traces: the paper's Table 1 with programs measured here (docs/real-traces.md,
"Execution time on real traces").

The paper validates its simulator by replaying traces and comparing the simulated execution time with the
measured one (Table 1: within -4.6 % ... +7.9 %). Here the measured time is a real run of NPB 3.4 on this
machine, captured by libibsec_capture, and the simulated time is its replay under NoSecurity on a network that
describes the MPI transport the run used.

1. **The transport.** Two processes of one host talk through shared memory (Open MPI's vader BTL), not
   InfiniBand. A ping-pong (capture/programs/pingpong.c), captured like the benchmarks, measures it; the
   simulated network is fitted to it: the link whose replay of a 1 MiB ping-pong comes closest (bandwidth),
   then the switch latency that makes the replay of an 8-byte ping-pong last as long as the real one
   (latency). Packets of 4 KiB and vader's 4 KiB eager limit.
2. **Captures.** NPB CG, MG, FT, IS and LU, classes S and W (BT and SP need a square number of processes), on
   2 processes with a CPU each (not oversubscribed: the reference), on 2 processes confined to one CPU, and on
   16 processes sharing the machine's CPUs.
3. **Replays** of each capture under NoSecurity on the fitted network, compute from wall time and from CPU
   time (`replay.compute`). A row compares the replay `auto` chooses with the measured time of the run on
   2 CPUs: the reference for both 2-process captures. The 16-process runs have no such reference on this
   machine (it would need 16 CPUs); their rows show how far the wall and CPU replays are apart.

Needs NPB (../shared/npb or $IBSEC_NPB_DIR), Open MPI, gfortran and taskset; the captures are kept in the
output folder, so a second run replays without capturing again.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import pandas as pd

from ..capture import npb as npb_source
from ..capture.mpi import capture_library, mpirun_command, tool
from ..capture.npb_capture import capture as capture_npb
from ..errors import IbsecError
from ..output import figure_style as style
from ..output.files import write_text_output
from .workload_study import replay_points

BENCHMARKS = ("cg", "mg", "ft", "is", "lu")
CLASSES = ("S", "W")
# Open MPI 4.1's shared-memory BTL (vader) sends up to btl_vader_eager_limit = 4 KiB eagerly.
SHM_EAGER_LIMIT_BYTES = 4096
SHM_PACKET_BYTES = 4096
# Candidate links for the fitted transport, slowest first; the fit takes the one closest to the measured
# 1 MiB ping-pong.
LINKS = tuple((rate, width) for rate in ("SDR", "DDR", "QDR", "FDR", "EDR", "HDR", "NDR") for width in ("4x", "12x"))
PINGPONG_ROUNDS = {8: 2000, 1 << 20: 200}
WARMUP_ROUNDS = 10  # pingpong.c's untimed round trips, which the trace holds too
WITHIN_PERCENT = 10.0  # the rows outside it are explained in docs/real-traces.md


@dataclass(frozen=True)
class Setting:
    """How the processes of a capture share the machine."""

    name: str
    processes: int
    cpus: str | None  # a taskset list, None: every CPU

    def trace_name(self, bench: str, cls: str) -> str:
        return f"{bench}.{cls}.{self.processes}.{self.name}.trace.zst"


SETTINGS = (Setting("own-cpus", 2, None), Setting("one-cpu", 2, "0"), Setting("shared", 16, None))
REFERENCE = SETTINGS[0]


@dataclass(frozen=True)
class Transport:
    """The simulated network fitted to the host's MPI transport."""

    link_rate: str
    link_width: str
    switch_latency_ns: float
    measured: dict  # the ping-pongs' measured and fitted times, for the meta file

    def overrides(self) -> list[str]:
        return [f"network.link_rate={self.link_rate}", f"network.link_width={self.link_width}",
                f"network.switch_latency_ns={self.switch_latency_ns:.1f}", "network.link_delay_ns=0",
                f"nic.mtu_bytes={SHM_PACKET_BYTES}", f"network.vl_buffer_bytes={4 * SHM_PACKET_BYTES}",
                f"replay.eager_limit_bytes={SHM_EAGER_LIMIT_BYTES}", "nic.security=NoSecurity"]


def _check_tools() -> None:
    for name in ("mpirun", "mpicc", "mpif90", "make", "taskset"):
        tool(name)
    if (os.cpu_count() or 1) < 2:
        raise IbsecError("the real-trace Table 1 needs 2 CPUs: its reference runs 2 processes with a CPU each")


def capture_pingpong(folder: Path, message_bytes: int) -> Path:
    """A ping-pong of MESSAGE_BYTES between 2 processes with a CPU each, captured (kept in FOLDER)."""
    trace = folder / f"pingpong.{message_bytes}.trace.zst"
    if trace.is_file():
        return trace
    source = Path(str(resources.files("ibsec.capture") / "programs" / "pingpong.c"))
    with tempfile.TemporaryDirectory(prefix="ibsec-pingpong.") as scratch:
        exe = Path(scratch) / "pingpong"
        built = subprocess.run([tool("mpicc"), "-O2", "-o", str(exe), str(source)], capture_output=True, text=True,
                               check=False)
        if built.returncode != 0:
            raise IbsecError(f"building {source} failed:\n{built.stderr}")
        partial = Path(scratch) / trace.name
        env = {"LD_PRELOAD": capture_library(), "IBSEC_TRACE": str(partial)}
        command = [*mpirun_command(2, exe, env), str(message_bytes), str(PINGPONG_ROUNDS[message_bytes])]
        run = subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)
        if run.returncode != 0:
            raise IbsecError(f"the ping-pong of {message_bytes} B failed:\n{run.stderr[-2000:]}")
        folder.mkdir(parents=True, exist_ok=True)
        os.replace(partial, trace)
    return trace


def _replayed_ns(points: list[dict], runs: Path, jobs: int, quiet: bool, label: str) -> list[float]:
    df = replay_points(points, runs, jobs, quiet, label)
    if not df["completed"].all():
        raise IbsecError(f"{label}: a replay did not complete ({runs})")
    return df["simulated_execution_time_ns"].tolist()


def fit_transport(folder: Path, jobs: int = 2, quiet: bool = False) -> Transport:
    """The link closest to the measured 1 MiB ping-pong, then the switch latency that matches the 8 B one."""
    large, small = capture_pingpong(folder, 1 << 20), capture_pingpong(folder, 8)
    runs = folder / "transport.runs"

    def point(trace: Path, rate: str, width: str, switch_ns: float) -> dict:
        return {"bench": "pingpong", "trace": str(trace), "configuration": f"{width} {rate}",
                "overrides": Transport(rate, width, switch_ns, {}).overrides()}

    measured_large = _original_ns(large)
    simulated = _replayed_ns([point(large, r, w, 0.0) for r, w in LINKS], runs, jobs, quiet, "transport: bandwidth")
    rate, width = min(zip(LINKS, simulated, strict=True), key=lambda pair: abs(pair[1] - measured_large))[0]
    messages = 2 * (PINGPONG_ROUNDS[8] + WARMUP_ROUNDS)  # one switch traversal each
    measured_small = _original_ns(small)
    floor_ns = _replayed_ns([point(small, rate, width, 0.0)], runs, jobs, quiet, "transport: latency")[0]
    switch_ns = max(0.0, (measured_small - floor_ns) / messages)
    fitted = Transport(rate, width, switch_ns, {})
    check_ns = _replayed_ns([point(small, rate, width, switch_ns), point(large, rate, width, switch_ns)], runs, jobs,
                            quiet, "transport: check")
    return Transport(rate, width, switch_ns, {
        "pingpong_8_bytes": {"rounds": PINGPONG_ROUNDS[8], "measured_ns": measured_small,
                             "simulated_ns": check_ns[0]},
        "pingpong_1_MiB": {"rounds": PINGPONG_ROUNDS[1 << 20], "measured_ns": measured_large,
                           "simulated_ns": check_ns[1]},
        "overrides": fitted.overrides()})


def _original_ns(trace: Path) -> float:
    """The trace's measured execution time: latest END minus earliest START (`trace info`'s duration)."""
    from ..engine.binary import engine_path

    info = subprocess.run([engine_path(), "trace", "info", "--json", str(trace)], capture_output=True, text=True,
                          check=False)
    if info.returncode != 0:
        raise IbsecError(f"{trace}: {info.stderr.strip()}")
    return float(json.loads(info.stdout)["duration_ns"])


def capture_benchmarks(folder: Path, benchmarks: tuple[str, ...], classes: tuple[str, ...],
                       quiet: bool) -> dict[tuple[str, str, Setting], Path]:
    """Every (benchmark, class, setting) captured once into FOLDER."""
    wanted = [(b, c, s) for b in benchmarks for c in classes for s in SETTINGS]
    missing = [(b, c, s) for b, c, s in wanted if not (folder / s.trace_name(b, c)).is_file()]
    if missing:
        build = npb_source.build(sorted({(b, c) for b, c, _ in missing}), npb_source.default_cache(),
                                 npb_source.tarball())
        for number, (bench, cls, setting) in enumerate(missing, 1):
            captured = capture_npb(build, bench, cls, setting.processes, folder, "zst", setting.cpus,
                                   setting.trace_name(bench, cls))
            if not quiet:
                print(f"  [{number}/{len(missing)}] {captured.path.name}: {captured.seconds:.1f} s")
    return {(b, c, s): folder / s.trace_name(b, c) for b, c, s in wanted}


def table(traces: dict, transport: Transport, runs: Path, jobs: int, quiet: bool) -> pd.DataFrame:
    """One row per capture: measured time, the wall and CPU replays, and the error against the reference."""
    points = [{"bench": b, "class": c, "setting": s.name, "trace": str(t), "configuration": compute,
               "overrides": [*transport.overrides(), f"replay.compute={compute}"]}
              for (b, c, s), t in traces.items() for compute in ("wall", "cpu")]
    df = replay_points(points, runs, jobs, quiet, "real-trace Table 1 replays")
    rows = []
    for (bench, cls, setting), trace in traces.items():
        mine = df[(df["bench"] == bench) & (df["class"] == cls) & (df["setting"] == setting.name)]
        replayed = dict(zip(mine["configuration"], mine["simulated_execution_time_ns"], strict=True))
        measured = float(mine["original_execution_time_ns"].iloc[0])
        oversubscribed = setting.processes > (1 if setting.cpus else (os.cpu_count() or 1))
        chosen = "cpu" if oversubscribed else "wall"  # what replay.compute=auto takes for this capture
        reference = (float(df[(df["bench"] == bench) & (df["class"] == cls) & (df["setting"] == REFERENCE.name)]
                           ["original_execution_time_ns"].iloc[0]) if setting.processes == 2 else None)
        rows.append({
            "bench": bench.upper(), "class": cls, "processes": setting.processes, "setting": setting.name,
            "oversubscribed": oversubscribed, "measured_ms": measured / 1e6,
            "replay_wall_ms": replayed["wall"] / 1e6, "replay_cpu_ms": replayed["cpu"] / 1e6,
            "auto_compute": chosen, "reference_ms": reference / 1e6 if reference else None,
            "error_percent": (replayed[chosen] / reference - 1) * 100 if reference else None,
            "trace": trace.name})
    return pd.DataFrame(rows)


def missing_requirements() -> str | None:
    """Why the real-trace Table 1 cannot run here (no NPB, no MPI, one CPU), or None."""
    if npb_source.find_tarball() is None:
        return f"no {npb_source.TARBALL} in {npb_source.npb_folder()} (docs/real-traces.md, 'Where NPB comes from')"
    try:
        _check_tools()
    except IbsecError as missing:
        return str(missing)
    return None


def real_table1_where_possible(out: Path, jobs: int = 2, quiet: bool = False, argv: list[str] | None = None,
                               benchmarks: tuple[str, ...] = BENCHMARKS,
                               classes: tuple[str, ...] = CLASSES) -> pd.DataFrame | None:
    """real_table1, or a note saying why it cannot run on this machine (REPORT.md then says it did not run)."""
    missing = missing_requirements()
    if missing:
        print(f"      not run: {missing}", flush=True)
        return None
    return real_table1(out, jobs, quiet, benchmarks, classes, argv=argv)


def real_table1(out: Path, jobs: int = 2, quiet: bool = False, benchmarks: tuple[str, ...] = BENCHMARKS,
                classes: tuple[str, ...] = CLASSES, argv: list[str] | None = None) -> pd.DataFrame:
    """Fits the transport, captures, replays; writes out/table1_real.{csv,parquet,png,...,md,meta.json}."""
    _check_tools()
    folder = out / "table1_real.traces"
    transport = fit_transport(folder, jobs, quiet)
    if not quiet:
        print(f"  transport: {transport.link_width} {transport.link_rate}, switch {transport.switch_latency_ns:.0f} ns")
    traces = capture_benchmarks(folder, benchmarks, classes, quiet)
    df = table(traces, transport, out / "table1_real.runs", jobs, quiet)
    write_text_output(out / "table1_real.md", markdown_table(df))
    style.save_figure(df, _figure(df), out, "table1_real",
                      {"configuration": "NoSecurity", "transport": transport.measured,
                       "settings": {s.name: {"processes": s.processes, "cpus": s.cpus or "all"} for s in SETTINGS},
                       "within_percent": WITHIN_PERCENT}, argv)
    return df


def markdown_table(df: pd.DataFrame) -> str:
    head = ("| benchmark | class | processes | CPUs | measured (ms) | replay, wall (ms) | replay, CPU (ms) | "
            "reference (ms) | error of `auto` |\n|---|---|---|---|---|---|---|---|---|\n")
    lines = []
    for _, r in df.iterrows():
        cpus = "1" if r["setting"] == "one-cpu" else "all"
        reference = f"{r['reference_ms']:.1f}" if pd.notna(r["reference_ms"]) else "—"
        error = f"{r['error_percent']:+.1f} % ({r['auto_compute']})" if pd.notna(r["error_percent"]) else "—"
        lines.append(f"| {r['bench']} | {r['class']} | {r['processes']} | {cpus} | {r['measured_ms']:.1f} | "
                     f"{r['replay_wall_ms']:.1f} | {r['replay_cpu_ms']:.1f} | {reference} | {error} |")
    return head + "\n".join(lines) + "\n"


def _figure(df: pd.DataFrame):
    fig, ax = style.subplots(width=6.5, height=3.0)
    two = df[df["processes"] == 2]
    reference = two[two["setting"] == REFERENCE.name]
    labels = [f"{b}.{c}" for b, c in zip(reference["bench"], reference["class"], strict=True)]
    for setting, marker, color in (("own-cpus", "o", style.PALETTE[0]), ("one-cpu", "s", style.PALETTE[1])):
        part = two[two["setting"] == setting]
        ax.plot(range(len(part)), part["error_percent"], marker, color=color,
                label=f"2 processes, {setting.replace('-', ' ')}")
    ax.axhspan(-WITHIN_PERCENT, WITHIN_PERCENT, color="0.9", zorder=0, label=f"±{WITHIN_PERCENT:.0f} %")
    ax.axhline(0, color="0.5", linewidth=0.8)
    ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
    ax.set_ylabel("replay vs measured (%)")
    ax.legend(fontsize="small", frameon=False)
    return fig
