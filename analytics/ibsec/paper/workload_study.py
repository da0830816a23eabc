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

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from ..engine.point import EnginePoint, point_identity  # noqa: E402
from ..output.figures import save_figure  # noqa: E402
from ..runs.store import run_points  # noqa: E402

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
    "messages": "replay_messages",
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


def _with_overheads(df: pd.DataFrame, group: list[str]) -> pd.DataFrame:
    """Latency and completion time relative to NoSecurity in the same group."""
    base = df[df["configuration"] == "NoSecurity"].set_index(group)
    keys = df.set_index(group).index
    df = df.copy()
    df["latency_overhead_percent"] = (df["latency_mean_ns"].to_numpy()
                                      / base.loc[keys, "latency_mean_ns"].to_numpy() - 1.0) * 100.0
    df["completion_vs_nosecurity"] = (df["simulated_execution_time_ns"].to_numpy()
                                      / base.loc[keys, "simulated_execution_time_ns"].to_numpy())
    return df


def _colour(config: str) -> str:
    """One colour per configuration across every panel."""
    known = list(STUDY_CONFIGS)
    return f"C{known.index(config) if config in known else len(known) + hash(config) % 3}"


def _grouped_bars(ax, df: pd.DataFrame, value: str, configs: tuple[str, ...], scale: float = 1.0) -> None:
    benches = list(dict.fromkeys(df["bench"]))
    width = 0.8 / len(configs)
    for i, config in enumerate(configs):
        part = df[df["configuration"] == config].set_index("bench").reindex(benches)
        xs = [b + (i - (len(configs) - 1) / 2) * width for b in range(len(benches))]
        ax.bar(xs, part[value] * scale, width, label=config, color=_colour(config))
    ax.set_xticks(range(len(benches)), benches)


def fig5(out: Path, traces_dir: Path, jobs: int = 2, quiet: bool = False,
         configs: tuple[str, ...] = STUDY_CONFIGS) -> pd.DataFrame:
    """Fig. 5(a-c) and Table 1: every shipped workload under every card configuration."""
    traces = default_traces(traces_dir, quiet)
    points = [{"bench": bench, "trace": str(path), "configuration": config, "overrides": [f"nic.security={config}"]}
              for bench, path in traces.items() for config in configs]
    df = _with_overheads(replay_points(points, out / "fig5.runs", jobs, quiet, "workload replays"), ["bench"])
    df = df.drop(columns=["trace"]).assign(trace=[Path(p["trace"]).name for p in points])

    fig, axes = plt.subplots(3, 1, figsize=(9, 10))
    _grouped_bars(axes[0], df, "latency_mean_ns", configs, 1e-3)
    axes[0].set_ylabel("mean network latency (us)")
    axes[0].set_yscale("log")
    axes[0].set_title("(a) network latency", loc="left")
    skc = tuple(c for c in configs if c.startswith("SKC"))
    _grouped_bars(axes[1], df, "skc_hit_rate", skc)
    axes[1].set_ylabel("SKC hit rate")
    axes[1].set_ylim(0, 1.05)
    axes[1].set_title("(b) SKC hit rate", loc="left")
    _grouped_bars(axes[2], df, "completion_vs_nosecurity", configs)
    axes[2].set_ylabel("completion time / NoSecurity")
    axes[2].set_title("(c) completion time", loc="left")
    fig.suptitle("Single-application replays, 16 nodes (synthetic NAS/SPECjbb-style traces)")
    fig.legend(*axes[0].get_legend_handles_labels(), ncol=len(configs), fontsize=8, loc="upper center",
               bbox_to_anchor=(0.5, 0.965), frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    save_figure(df, fig, out, "fig5_workloads",
                {"configurations": list(configs), "traces": {b: p.name for b, p in traces.items()},
                 "network": "defaults (16 nodes, single switch, 4x SDR, 256 B packets)"})
    table1 = df[df["configuration"] == "NoSecurity"][["bench", "original_execution_time_ns",
                                                      "simulated_execution_time_ns", "simulated_over_original"]]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    benches = list(table1["bench"])
    ax.bar([i - 0.2 for i in range(len(benches))], table1["original_execution_time_ns"] * 1e-6, 0.4, label="original")
    ax.bar([i + 0.2 for i in range(len(benches))], table1["simulated_execution_time_ns"] * 1e-6, 0.4,
           label="simulated (NoSecurity)")
    ax.set_xticks(range(len(benches)), benches)
    ax.set_ylabel("execution time (ms)")
    ax.set_title("Table 1: original vs simulated execution time")
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(table1.reset_index(drop=True), fig, out, "table1_execution_time",
                {"configuration": "NoSecurity", "traces": {b: p.name for b, p in traces.items()}})
    return df


def fig5d(out: Path, traces_dir: Path, jobs: int = 2, quiet: bool = False, bench: str = "CG") -> pd.DataFrame:
    """Fig. 5(d): one workload (CG) with payloads per packet from 32 to 2048 bytes."""
    trace = default_traces(traces_dir, quiet)[bench]
    points = [{"bench": bench, "trace": str(trace), "configuration": config, "mtu_bytes": mtu,
               "overrides": [f"nic.security={config}", f"nic.mtu_bytes={mtu}",
                             f"network.vl_buffer_bytes={MTU_SWEEP_BUFFER_BYTES}"]}
              for mtu in MTU_SWEEP_BYTES for config in MTU_SWEEP_CONFIGS]
    df = _with_overheads(replay_points(points, out / "fig5d.runs", jobs, quiet, "packet-size replays"),
                         ["bench", "mtu_bytes"])
    df = df.drop(columns=["trace"]).assign(trace=trace.name)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for config in MTU_SWEEP_CONFIGS:
        part = df[df["configuration"] == config]
        left.plot(part["mtu_bytes"], part["latency_mean_ns"] * 1e-3, marker="o", label=config, color=_colour(config))
        right.plot(part["mtu_bytes"], part["simulated_execution_time_ns"] * 1e-6, marker="o", label=config,
                   color=_colour(config))
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("payload per packet (bytes)")
        ax.legend(fontsize=8)
    left.set_ylabel("mean network latency (us)")
    left.set_yscale("log")
    right.set_ylabel("completion time (ms)")
    fig.suptitle(f"(d) {bench} with packet sizes 32 - 2048 B (synthetic trace)")
    fig.tight_layout()
    save_figure(df, fig, out, "fig5d_packet_size",
                {"bench": bench, "trace": trace.name, "mtu_bytes": list(MTU_SWEEP_BYTES),
                 "configurations": list(MTU_SWEEP_CONFIGS), "vl_buffer_bytes": MTU_SWEEP_BUFFER_BYTES})
    return df


def summary_tables(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Latency (us), hit rate and completion time (ms) per benchmark and configuration, for printing."""
    order = list(dict.fromkeys(df["configuration"]))
    benches = list(dict.fromkeys(df["bench"]))

    def wide(value: str, scale: float, configs: list[str]) -> pd.DataFrame:
        table = df.pivot(index="bench", columns="configuration", values=value) * scale
        return table.reindex(index=benches, columns=configs)

    return {
        "mean network latency (us)": wide("latency_mean_ns", 1e-3, order),
        "SKC hit rate": wide("skc_hit_rate", 1.0, [c for c in order if c.startswith("SKC")]),
        "completion time (ms)": wide("simulated_execution_time_ns", 1e-6, order),
    }
