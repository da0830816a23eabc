"""The paper's core comparison on the shipped workloads (Fig. 5, Table 1).

Every workload trace is replayed on the 16-node cluster under each card
configuration (NoSecurity, NoSKC, SKC-n); the tables give the mean network
latency, the SKC hit rate and the completion time per benchmark, and the
plots are drawn from them. Runs are kept in a resumable store, so an
interrupted study recomputes only what is missing.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pandas as pd

from ..engine.point import EnginePoint, point_identity
from ..output import figure_style as style
from ..runs.store import run_points

STUDY_CONFIGS = ("NoSecurity", "NoSKC", "SKC-2", "SKC-4", "SKC-6", "SKC-10")
# Fig. 5(d): CG with packets from 32 to 2048 bytes of payload.
MTU_SWEEP_BYTES = (32, 64, 128, 256, 512, 1024, 2048)
MTU_SWEEP_CONFIGS = ("NoSecurity", "NoSKC", "SKC-6")
# The engine's buffers must hold one whole packet (virtual cut-through).
MTU_SWEEP_BUFFER_BYTES = 8192


def default_traces(traces_dir: Path, quiet: bool = False) -> dict[str, Path]:
    """The shipped workload set in traces_dir, generated there first if any trace is missing."""
    from ..workloads.defaults import DEFAULT_SET, generate_default

    wanted = {item.bench: traces_dir / item.file_name for item in DEFAULT_SET}
    if not all(path.is_file() for path in wanted.values()):
        if not quiet:
            print(f"generating the synthetic workload traces in {traces_dir}/ (once)")
        generate_default(traces_dir, progress=None if quiet else
                         lambda r: print(f"  {r.path.name}: {r.stats.packets} packets of 256 B"))
    return wanted


# The columns a workload comparison shows, from the flat row of each run (EngineRun.row).
REPLAY_COLUMNS = {
    "latency_mean_ns": "latency_mean_ns",
    "latency_p99_ns": "latency_p99_ns",
    "skc_hit_rate": "skc_hit_rate",
    "key_misses": "key_misses",
    "key_memory_wait_mean_ns": "key_memory_wait_mean_ns",
    "packets_delivered": "packets_delivered",
    "network_messages": "replay_network_messages",
    "original_execution_time_ns": "replay_original_execution_time_ns",
    "simulated_execution_time_ns": "replay_simulated_execution_time_ns",
    "simulated_over_original": "replay_simulated_over_original",
    "completed": "replay_completed",
    "exit_code": "exit_code",
}


def replay_point(point: dict) -> EnginePoint:
    """One replay of the plan ({bench, trace, overrides, ...}) as an engine run."""
    overrides = (*point["overrides"], f"trace.file={json.dumps(point['trace'])}")
    return EnginePoint(overrides=overrides, label=point["bench"].lower())


def replay_row(folder: str, point: EnginePoint) -> dict:
    """Run one replay; the statistics a workload comparison shows."""
    row = point.run(Path(folder)).row()
    return {column: row[name] for column, name in REPLAY_COLUMNS.items()}


def replay_points(points: list[dict], runs: Path, jobs: int, quiet: bool, label: str) -> pd.DataFrame:
    """Replays every point ({bench, trace, overrides, ...}) once; rows in point order.

    Each replay is an EnginePoint, keyed on the engine binary and the trace's contents, so a rebuilt
    engine or a regenerated trace runs it again."""
    runs.mkdir(parents=True, exist_ok=True)
    engine_points = [replay_point(p) for p in points]
    rows = run_points(engine_points, functools.partial(replay_row, str(runs)), store=runs / "points.jsonl", jobs=jobs,
                      quiet=quiet, label=label, key=point_identity)
    return pd.DataFrame([{**{k: v for k, v in p.items() if k != "overrides"}, **row}
                         for p, row in zip(points, rows, strict=True)])


def with_overheads(df: pd.DataFrame, group: list[str]) -> pd.DataFrame:
    """Latency and completion time relative to NoSecurity in the same group."""
    base = df[df["configuration"] == "NoSecurity"].set_index(group)
    keys = df.set_index(group).index
    df = df.copy()
    df["latency_overhead_percent"] = (df["latency_mean_ns"].to_numpy()
                                      / base.loc[keys, "latency_mean_ns"].to_numpy() - 1.0) * 100.0
    df["completion_vs_nosecurity"] = (df["simulated_execution_time_ns"].to_numpy()
                                      / base.loc[keys, "simulated_execution_time_ns"].to_numpy())
    return df


def fig5(out: Path, traces_dir: Path, jobs: int = 2, quiet: bool = False,
         configs: tuple[str, ...] = STUDY_CONFIGS) -> pd.DataFrame:
    """Fig. 5(a-c) and Table 1: every shipped workload under every card configuration."""
    traces = default_traces(traces_dir, quiet)
    points = [{"bench": bench, "trace": str(path), "configuration": config, "overrides": [f"nic.security={config}"]}
              for bench, path in traces.items() for config in configs]
    df = with_overheads(replay_points(points, out / "fig5.runs", jobs, quiet, "workload replays"), ["bench"])
    df = df.drop(columns=["trace"]).assign(trace=[Path(p["trace"]).name for p in points])
    style.save_figure(df, fig5_plot(df, configs), out, "fig5_workloads",
                      {"configurations": list(configs), "traces": {b: p.name for b, p in traces.items()},
                       "network": "defaults (16 nodes, single switch, 4x SDR, 256 B packets)"})
    table1 = df[df["configuration"] == "NoSecurity"][["bench", "original_execution_time_ns",
                                                      "simulated_execution_time_ns", "simulated_over_original"]]
    table1 = table1.reset_index(drop=True)
    style.save_figure(table1, table1_plot(table1), out, "table1_execution_time",
                      {"configuration": "NoSecurity", "traces": {b: p.name for b, p in traces.items()}})
    return df


def fig5_plot(df: pd.DataFrame, configs: tuple[str, ...]):
    """(a) latency, (b) SKC hit rate (as miss rate on a log axis when most are above 0.9), (c) completion overhead."""
    fig, axes = style.subplots(3, 1, width=7.5, height=8.5)
    style.grouped_bars(axes[0], df, "bench", "configuration", "latency_mean_ns", lambda v: v * 1e-3, configs)
    axes[0].set_ylabel(f"mean network latency ({style.MICROSECONDS})")
    style.log_scale_if_wide(axes[0], df["latency_mean_ns"])
    axes[0].set_title("(a) network latency", loc="left")
    skc = tuple(c for c in configs if c.startswith("SKC"))
    hits = df[df["configuration"].isin(skc)]
    style.grouped_bars(axes[1], hits, "bench", "configuration", "skc_hit_rate", style.hit_rate_axis(axes[1],
                       hits["skc_hit_rate"]), skc)
    axes[1].set_title("(b) SKC hit rate" + (" (shown as miss rate)" if style.high_hit_rates(hits["skc_hit_rate"])
                                            else ""), loc="left")
    secured = tuple(c for c in configs if c != "NoSecurity")
    style.grouped_bars(axes[2], df[df["configuration"].isin(secured)], "bench", "configuration",
                       "completion_vs_nosecurity", lambda v: (v - 1.0) * 100.0, secured)
    axes[2].axhline(0.0, color="grey", lw=0.6)
    axes[2].set_ylabel("completion time over\nNoSecurity (%)")
    axes[2].set_title("(c) completion time", loc="left")
    fig.suptitle("Single-application replays, 16 nodes (synthetic NAS/SPECjbb-style traces)")
    style.figure_legend(fig, axes[0], title="card")
    return fig


def table1_plot(table1: pd.DataFrame):
    """Table 1 as a table (original and simulated time, ms) beside the ratio, which is where they differ."""
    fig, (left, right) = style.subplots(1, 2, width=8.0, height=0.45 * len(table1) + 1.4,
                                        gridspec_kw={"width_ratios": [1.25, 1]})
    left.axis("off")
    cells = [[bench, f"{orig * 1e-6:.4g}", f"{sim * 1e-6:.4g}", f"{ratio:.4f}"]
             for bench, orig, sim, ratio in table1.itertuples(index=False)]
    table = left.table(cellText=cells, colLabels=["benchmark", "original (ms)", "simulated (ms)", "simulated / orig."],
                       loc="center", cellLoc="right", colLoc="right")
    table.auto_set_font_size(False)
    table.set_fontsize(8)
    table.scale(1.0, 1.3)
    benches = list(table1["bench"])
    right.axvline(0.0, color="grey", lw=0.8)
    right.plot((table1["simulated_over_original"] - 1.0) * 100.0, range(len(benches)), ls="none",
               **style.config_style("NoSecurity"))
    right.set_yticks(range(len(benches)), benches)
    right.invert_yaxis()
    right.set_xlabel("simulated − original (% of original)")
    right.set_title("difference (0 = the trace's own time)", loc="left")
    fig.suptitle("Table 1: original vs simulated execution time (NoSecurity)")
    return fig


def fig5d(out: Path, traces_dir: Path, jobs: int = 2, quiet: bool = False, bench: str = "CG") -> pd.DataFrame:
    """Fig. 5(d): one workload (CG) with payloads per packet from 32 to 2048 bytes."""
    trace = default_traces(traces_dir, quiet)[bench]
    points = [{"bench": bench, "trace": str(trace), "configuration": config, "mtu_bytes": mtu,
               "overrides": [f"nic.security={config}", f"nic.mtu_bytes={mtu}",
                             f"network.vl_buffer_bytes={MTU_SWEEP_BUFFER_BYTES}"]}
              for mtu in MTU_SWEEP_BYTES for config in MTU_SWEEP_CONFIGS]
    df = with_overheads(replay_points(points, out / "fig5d.runs", jobs, quiet, "packet-size replays"),
                         ["bench", "mtu_bytes"])
    df = df.drop(columns=["trace"]).assign(trace=trace.name)
    fig, (left, right) = style.subplots(1, 2, width=9.0, height=3.6)
    for config in MTU_SWEEP_CONFIGS:
        part = df[df["configuration"] == config]
        left.plot(part["mtu_bytes"], part["latency_mean_ns"] * 1e-3, label=config, **style.config_style(config))
        right.plot(part["mtu_bytes"], part["simulated_execution_time_ns"] * 1e-6, label=config,
                   **style.config_style(config))
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xticks(MTU_SWEEP_BYTES, [str(size) for size in MTU_SWEEP_BYTES])  # 32, 64, ... not 2^5, 2^6
        ax.set_xlabel("payload per packet (bytes)")
    left.set_ylabel(f"mean network latency ({style.MICROSECONDS})")
    style.log_scale_if_wide(left, df["latency_mean_ns"])
    right.set_ylabel("completion time (ms)")
    style.log_scale_if_wide(right, df["simulated_execution_time_ns"])
    style.legend_outside(right, title="card")
    fig.suptitle(f"(d) {bench} with packet sizes 32 - 2048 B (synthetic trace)")
    style.save_figure(df, fig, out, "fig5d_packet_size",
                      {"bench": bench, "trace": trace.name, "mtu_bytes": list(MTU_SWEEP_BYTES),
                       "configurations": list(MTU_SWEEP_CONFIGS), "vl_buffer_bytes": MTU_SWEEP_BUFFER_BYTES})
    return df


def summary_tables(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Latency (µs), hit rate and completion time (ms) per benchmark and configuration, for printing."""
    order = list(dict.fromkeys(df["configuration"]))
    benches = list(dict.fromkeys(df["bench"]))

    def wide(value: str, scale: float, configs: list[str]) -> pd.DataFrame:
        table = df.pivot(index="bench", columns="configuration", values=value) * scale
        return table.reindex(index=benches, columns=configs)

    return {
        "mean network latency (µs)": wide("latency_mean_ns", 1e-3, order),
        "SKC hit rate": wide("skc_hit_rate", 1.0, [c for c in order if c.startswith("SKC")]),
        "completion time (ms)": wide("simulated_execution_time_ns", 1e-6, order),
    }
