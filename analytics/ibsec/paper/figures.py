"""The paper's cache figures, regenerated as CSV tables and PNG plots.

fig3: Markov-model capacity at p = 0.9 for 2-16 KB per benchmark and machine.
fig8: simulated hit rate of a 16 KB SKC for 1 000 - 10 000 keys.
fig9: simulated hit rate of a 16 KB SKC by associativity (BT, LU on the Origin 2000).
xval: the Markov estimate F_n(x) beside the simulated hit rate on the same parameters.
security: cycle-level latency of each card configuration on the paper's 16-node cluster.
Every table is written before its plot, and plots are drawn from the table.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from ..engine.point import EnginePoint  # noqa: E402
from ..models import cachesim, markov, presets  # noqa: E402
from ..output.figures import save_figure  # noqa: E402
from ..runs.store import run_points  # noqa: E402
from . import consistency, predictor  # noqa: E402

ENTRY_BYTES = 16
SIZES_KB = [2, 4, 8, 16]
TARGET = 0.9
KEY_COUNTS = list(range(1000, 10001, 1000))
WAYS = [1, 2, 4, 8, 16, 32, 0]


def _machine_label(machine: str) -> str:
    return presets.MACHINES.get(machine, machine)


def fig3_table() -> pd.DataFrame:
    rows = []
    for preset in presets.load():
        for kb in SIZES_KB:
            entries = kb * 1024 // ENTRY_BYTES
            rows.append({
                "benchmark": preset.benchmark,
                "machine": preset.machine,
                "size_kb": kb,
                "entries": entries,
                "on_mean_ms": preset.on_mean_ms,
                "off_mean_ms": preset.off_mean_ms,
                "duty_cycle": preset.duty_cycle,
                "target": TARGET,
                "capacity": markov.capacity(entries, preset.on_mean_ms, preset.off_mean_ms, TARGET),
                "preset_status": preset.status,
            })
    return pd.DataFrame(rows)


def fig3(out: Path, **_) -> pd.DataFrame:
    df = fig3_table()
    machines = list(dict.fromkeys(df["machine"]))
    fig, axes = plt.subplots(1, len(machines), figsize=(6 * len(machines), 4.2), sharey=True)
    for ax, machine in zip(axes, machines, strict=True):
        part = df[df.machine == machine]
        wide = part.pivot(index="benchmark", columns="size_kb", values="capacity")
        wide.columns = [f"{c} KB" for c in wide.columns]
        wide.plot.bar(ax=ax, logy=True, rot=0, width=0.8)
        for kb in SIZES_KB:
            ax.axhline(kb * 1024 // ENTRY_BYTES, color="grey", lw=0.6, ls=":")
        ax.set_title(f"{_machine_label(machine)} (dotted: entries)")
        ax.set_xlabel("benchmark")
        ax.set_ylabel(f"cache capacity at p = {TARGET} (sessions)")
    fig.suptitle("SKC capacity from the Markov ON/OFF model (Fig. 3; ON/OFF means are estimates)")
    fig.tight_layout()
    save_figure(df, fig, out, "fig3_capacity", {"sizes_kb": SIZES_KB, "entry_bytes": ENTRY_BYTES, "target": TARGET})
    return df


def _preset_point(preset: presets.OnOffPreset, **overrides) -> dict:
    return {"on_mean": preset.on_mean_ms, "off_mean": preset.off_mean_ms, "size": "16KB", **overrides}


def _simulate(points: list[dict], out: Path, jobs: int, quiet: bool, label: str) -> pd.DataFrame:
    rows = run_points(points, cachesim.run_point, store=out / ".points" / "cachesim.jsonl", jobs=jobs, quiet=quiet,
                      label=label, key=cachesim.identity)
    return pd.DataFrame(rows)


def fig8(out: Path, accesses: int = 4_000_000, jobs: int = 2, quiet: bool = False, **_) -> pd.DataFrame:
    table = presets.load()
    points = [_preset_point(p, keys=k, accesses=accesses) for p in table for k in KEY_COUNTS]
    sim = _simulate(points, out, jobs, quiet, "fig8")
    sim.insert(0, "benchmark", [p.benchmark for p in table for _ in KEY_COUNTS])
    sim.insert(1, "machine", [p.machine for p in table for _ in KEY_COUNTS])
    machines = list(dict.fromkeys(sim["machine"]))
    fig, axes = plt.subplots(1, len(machines), figsize=(6 * len(machines), 4.2), sharey=True)
    for ax, machine in zip(axes, machines, strict=True):
        for bench, part in sim[sim.machine == machine].groupby("benchmark"):
            ax.plot(part["keys"], part["hit_rate"], marker="o", ms=3, label=bench)
        ax.set_title(_machine_label(machine))
        ax.set_xlabel("session keys")
        ax.set_ylabel("SKC hit rate")
        ax.set_ylim(0, 1.02)
        ax.legend(ncol=3, fontsize=8)
    fig.suptitle("16 KB fully associative LRU SKC, synthetic ON/OFF traffic (Fig. 8)")
    fig.tight_layout()
    save_figure(sim, fig, out, "fig8_hit_rate_vs_keys", {"accesses": accesses, "size": "16KB", "keys": KEY_COUNTS})
    return sim


def fig9(out: Path, accesses: int = 4_000_000, jobs: int = 2, quiet: bool = False, **_) -> pd.DataFrame:
    chosen = [presets.get("BT", "origin2000"), presets.get("LU", "origin2000")]
    key_counts = [5000, 10000]
    combos = [(p, k, w) for p in chosen for k in key_counts for w in WAYS]
    points = [_preset_point(p, keys=k, ways=w, accesses=accesses) for p, k, w in combos]
    sim = _simulate(points, out, jobs, quiet, "fig9")
    sim.insert(0, "benchmark", [p.benchmark for p, _, _ in combos])
    sim.insert(1, "machine", [p.machine for p, _, _ in combos])
    sim["associativity"] = ["full" if w == 0 else str(w) for _, _, w in combos]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    labels = ["1", "2", "4", "8", "16", "32", "full"]
    for (bench, keys), part in sim.groupby(["benchmark", "keys"]):
        part = part.set_index("associativity").loc[labels]
        ax.plot(labels, part["hit_rate"], marker="o", label=f"{bench}, {keys} keys")
    ax.set_xlabel("associativity (ways)")
    ax.set_ylabel("SKC hit rate")
    ax.legend(fontsize=8)
    ax.set_title("16 KB SKC by associativity, Origin 2000 presets (Fig. 9)")
    fig.tight_layout()
    save_figure(sim, fig, out, "fig9_associativity", {"accesses": accesses, "size": "16KB", "keys": key_counts})
    return sim


XVAL_SESSIONS_PER_ENTRY = [1, 2, 4, 6, 8, 10, 12, 16, 20]


def xval(out: Path, accesses: int = 4_000_000, jobs: int = 2, quiet: bool = False, **_) -> pd.DataFrame:
    chosen = [presets.get(b, m)
              for b, m in [("BT", "origin2000"), ("FT", "origin2000"), ("LU", "origin2000"), ("CG", "sp2")]]
    sizes_kb = [2, 16]
    combos = [(p, kb, kb * 1024 // ENTRY_BYTES * r) for p in chosen for kb in sizes_kb for r in XVAL_SESSIONS_PER_ENTRY]
    points = [_preset_point(p, size=f"{kb}KB", keys=keys, accesses=accesses) for p, kb, keys in combos]
    sim = _simulate(points, out, jobs, quiet, "xval")
    sim.insert(0, "benchmark", [p.benchmark for p, _, _ in combos])
    sim.insert(1, "machine", [p.machine for p, _, _ in combos])
    sim.insert(2, "size_kb", [kb for _, kb, _ in combos])
    sim["sessions_per_entry"] = sim["keys"] / sim["entries"]
    sim["markov_estimate"] = [markov.hit_rate_estimate(e, k, p.on_mean_ms, p.off_mean_ms)
                              for (p, _, k), e in zip(combos, sim["entries"], strict=True)]
    sim["simulated_minus_estimate"] = sim["hit_rate"] - sim["markov_estimate"]
    fig, axes = plt.subplots(1, len(sizes_kb), figsize=(6 * len(sizes_kb), 4.2), sharey=True)
    for ax, kb in zip(axes, sizes_kb, strict=True):
        for i, ((bench, machine), part) in enumerate(sim[sim["size_kb"] == kb].groupby(["benchmark", "machine"])):
            color = f"C{i}"
            ax.plot(part["sessions_per_entry"], part["hit_rate"], color=color, marker="o", ms=3,
                    label=f"{bench}/{machine} simulated")
            ax.plot(part["sessions_per_entry"], part["markov_estimate"], color=color, ls="--",
                    label=f"{bench}/{machine} Markov F_n(x)")
        ax.set_title(f"{kb} KB SKC ({kb * 1024 // ENTRY_BYTES} entries)")
        ax.set_xlabel("session keys per cache entry (n / x)")
        ax.set_ylabel("hit rate")
        ax.set_ylim(0, 1.02)
        ax.legend(fontsize=7)
    fig.suptitle("Markov estimate vs synthetic simulation (LRU, fully associative)")
    fig.tight_layout()
    save_figure(sim, fig, out, "xval_markov_vs_sim",
          {"accesses": accesses, "sizes_kb": sizes_kb, "sessions_per_entry": XVAL_SESSIONS_PER_ENTRY})
    return sim


SECURITY_CONFIGS = ["NoSecurity", "SKC-16", "SKC-6", "NoSKC"]
# Light uniform load, below the knee of NoSKC (whose two look-ups per packet
# keep the key memory busy 39 % of the time here), so that the figure shows
# the cost of security rather than of queueing.
SECURITY_LOAD = 0.02
SECURITY_COLUMNS = ["latency_mean_ns", "latency_p99_ns", "skc_hit_rate", "key_memory_wait_mean_ns",
                    "accepted_throughput"]


def security(out: Path, messages: int = 20_000, **_) -> pd.DataFrame:
    """Mean and p99 latency per card configuration, 16 nodes, one switch, uniform traffic."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in SECURITY_CONFIGS:
            overrides = (f"nic.security={name}", f"traffic.load={SECURITY_LOAD}", f"traffic.messages={messages}")
            row = EnginePoint(overrides=overrides, label=name).run(Path(tmp)).row()
            rows.append({"configuration": name, **{column: row[column] for column in SECURITY_COLUMNS}})
    df = pd.DataFrame(rows)
    base = df.loc[df["configuration"] == "NoSecurity", "latency_mean_ns"].iloc[0]
    df["overhead_vs_nosecurity_percent"] = (df["latency_mean_ns"] / base - 1.0) * 100.0
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.bar(df["configuration"], df["latency_mean_ns"] / 1000.0, color=["C0", "C2", "C1", "C3"])
    for x, (mean, overhead) in enumerate(zip(df["latency_mean_ns"], df["overhead_vs_nosecurity_percent"], strict=True)):
        ax.annotate(f"+{overhead:.0f} %" if x else "base", (x, mean / 1000.0), ha="center", va="bottom", fontsize=8)
    ax.set_ylabel("mean packet latency (us)")
    ax.set_yscale("log")
    ax.set_title(f"16 nodes, 4x SDR, 256 B packets, uniform load {SECURITY_LOAD}")
    fig.tight_layout()
    save_figure(df, fig, out, "security_overhead",
                {"configurations": SECURITY_CONFIGS, "load": SECURITY_LOAD, "messages": messages,
                 "network": "defaults (16 nodes, single switch, 4x SDR)"})
    return df


FIGURES = {"fig3": fig3, "fig8": fig8, "fig9": fig9, "xval": xval, "security": security,
           "predictor": predictor.predictor_fig8, "predictor-fitted": predictor.predictor_fitted,
           "consistency": consistency.consistency}
