"""The paper's cache figures, regenerated as CSV tables and PNG plots.

fig3: Markov-model capacity at p = 0.9 for 2-16 KB per benchmark and machine.
fig8: simulated hit rate of a 16 KB SKC for 1 000 - 10 000 keys.
fig9: simulated hit rate of a 16 KB SKC by associativity (BT, LU on the Origin 2000).
xval: the Markov estimate F_n(x) beside the simulated hit rate on the same parameters.
security: cycle-level latency of each card configuration on the paper's 16-node cluster.
Every table is written before its plot, and plots are drawn from the table.
The simulated figures take `seeds`: each point is run once per seed (the
table has a row per seed) and the plot draws the mean with the range over
the seeds as error bars.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd

from ..engine.point import EnginePoint
from ..models import cachesim, markov, presets
from ..output import figure_style as style
from ..runs.store import run_points
from . import consistency, predictor

ENTRY_BYTES = 16
SIZES_KB = [2, 4, 8, 16]
TARGET = 0.9
KEY_COUNTS = list(range(1000, 10001, 1000))
WAYS = [1, 2, 4, 8, 16, 32, 0]
# The names each figure's files are written under (NAME.csv, .parquet, .pdf, .svg, .png, .meta.json).
FIG3 = "fig3_capacity"
FIG8 = "fig8_hit_rate_vs_keys"
FIG9 = "fig9_associativity"
XVAL = "xval_markov_vs_sim"
SECURITY = "security_overhead"


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
    fig, axes = style.subplots(1, len(machines), width=5.2 * len(machines), height=3.6, sharey=True)
    for ax, machine in zip(axes, machines, strict=True):
        part = df[df.machine == machine]
        wide = part.pivot(index="benchmark", columns="size_kb", values="capacity")
        width = 0.8 / len(SIZES_KB)
        for i, kb in enumerate(SIZES_KB):
            xs = [b + (i - (len(SIZES_KB) - 1) / 2) * width for b in range(len(wide.index))]
            ax.bar(xs, wide[kb], width, label=f"{kb} KB ({kb * 1024 // ENTRY_BYTES} entries)",
                   color=style.PALETTE[i], edgecolor="white", linewidth=0.3)
            ax.hlines(kb * 1024 // ENTRY_BYTES, -0.5, len(wide.index) - 0.5, color=style.PALETTE[i], lw=0.8, ls=":")
        ax.set_xticks(range(len(wide.index)), wide.index)
        ax.set_yscale("log")
        ax.set_title(_machine_label(machine))
        ax.set_xlabel("benchmark")
    axes[0].set_ylabel(f"sessions supported at p = {TARGET}")
    style.legend_outside(axes[-1], title="SKC size (dotted: its entries)")
    fig.suptitle("SKC capacity, Markov ON/OFF model (Fig. 3; ON/OFF means are estimates)")
    style.save_figure(df, fig, out, FIG3,
                      {"sizes_kb": SIZES_KB, "entry_bytes": ENTRY_BYTES, "target": TARGET}, engine_made=False)
    return df


def _preset_point(preset: presets.OnOffPreset, **overrides) -> dict:
    return {"on_mean": preset.on_mean_ms, "off_mean": preset.off_mean_ms, "size": "16KB", **overrides}


def _simulate(points: list[dict], out: Path, jobs: int, quiet: bool, label: str, seeds: int) -> pd.DataFrame:
    """Every point once per seed 1..seeds (seeds vary fastest); a `seed` column says which."""
    seeded = [{**point, "seed": seed} for point in points for seed in range(1, seeds + 1)]
    rows = run_points(seeded, cachesim.run_point, store=out / ".points" / "cachesim.jsonl", jobs=jobs, quiet=quiet,
                      label=label, key=cachesim.identity)
    return pd.DataFrame(rows)


def _repeat(values: list, seeds: int) -> list:
    """A column of the points, repeated for each seed as _simulate orders its rows."""
    return [value for value in values for _ in range(seeds)]


def over_seeds(df: pd.DataFrame, keys: list[str], value: str) -> pd.DataFrame:
    """`value` per `keys`: its mean over the seeds and the half-width of their range (0 with one seed)."""
    grouped = df.groupby(keys, sort=False)[value]
    return pd.DataFrame({"mean": grouped.mean(), "error": (grouped.max() - grouped.min()) / 2}).reset_index()


def _seeds_note(seeds: int) -> str:
    """A title's second line saying what the points and bars are, when there are several seeds."""
    return f"\nmean of {seeds} seeds; bars: their range (min to max)" if seeds > 1 else ""


def fig8(out: Path, accesses: int, jobs: int = 2, quiet: bool = False, seeds: int = 1,
         **_) -> pd.DataFrame:
    table = presets.load()
    points = [_preset_point(p, keys=k, accesses=accesses) for p in table for k in KEY_COUNTS]
    sim = _simulate(points, out, jobs, quiet, "fig8", seeds)
    sim.insert(0, "benchmark", _repeat([p.benchmark for p in table for _ in KEY_COUNTS], seeds))
    sim.insert(1, "machine", _repeat([p.machine for p in table for _ in KEY_COUNTS], seeds))
    machines = list(dict.fromkeys(sim["machine"]))
    fig, axes = style.subplots(1, len(machines), width=5.2 * len(machines), height=3.6, sharey=True)
    for ax, machine in zip(axes, machines, strict=True):
        part = sim[sim.machine == machine]
        show = style.hit_rate_axis(ax, part["hit_rate"])
        for i, (bench, series) in enumerate(part.groupby("benchmark", sort=False)):
            style.line_over_seeds(ax, series, "keys", "hit_rate", show, label=bench, **style.series_style(i),
                                  ls=style.LINE_STYLES[i % len(style.LINE_STYLES)])
        ax.set_title(_machine_label(machine))
        ax.set_xlabel("session keys")
    for ax in axes[1:]:
        ax.set_ylabel("")
    style.legend_outside(axes[-1], title="benchmark")
    fig.suptitle(f"16 KB fully associative LRU SKC, synthetic ON/OFF traffic (Fig. 8){_seeds_note(seeds)}")
    style.save_figure(sim, fig, out, FIG8,
                      {"accesses": accesses, "size": "16KB", "keys": KEY_COUNTS, "seeds": seeds})
    return sim


def fig9(out: Path, accesses: int, jobs: int = 2, quiet: bool = False, seeds: int = 1,
         **_) -> pd.DataFrame:
    chosen = [presets.get("BT", "origin2000"), presets.get("LU", "origin2000")]
    key_counts = [5000, 10000]
    combos = [(p, k, w) for p in chosen for k in key_counts for w in WAYS]
    points = [_preset_point(p, keys=k, ways=w, accesses=accesses) for p, k, w in combos]
    sim = _simulate(points, out, jobs, quiet, "fig9", seeds)
    sim.insert(0, "benchmark", _repeat([p.benchmark for p, _, _ in combos], seeds))
    sim.insert(1, "machine", _repeat([p.machine for p, _, _ in combos], seeds))
    sim["associativity"] = _repeat(["full" if w == 0 else str(w) for _, _, w in combos], seeds)
    fig, ax = style.subplots(width=6.4, height=3.6)
    labels = ["1", "2", "4", "8", "16", "32", "full"]
    show = style.hit_rate_axis(ax, sim["hit_rate"])
    positions = sim.assign(position=sim["associativity"].map(labels.index))  # evenly spaced, in order
    for i, ((bench, keys), part) in enumerate(positions.groupby(["benchmark", "keys"], sort=False)):
        style.line_over_seeds(ax, part, "position", "hit_rate", show, label=f"{bench}, {keys} keys",
                              **style.series_style(i))
    ax.set_xticks(range(len(labels)), labels)
    ax.set_xlabel("associativity (ways)")
    style.legend_outside(ax)
    ax.set_title(f"16 KB SKC by associativity, Origin 2000 presets (Fig. 9){_seeds_note(seeds)}")
    style.save_figure(sim, fig, out, FIG9,
                      {"accesses": accesses, "size": "16KB", "keys": key_counts, "seeds": seeds})
    return sim


XVAL_SESSIONS_PER_ENTRY = [1, 2, 4, 6, 8, 10, 12, 16, 20]


def xval(out: Path, accesses: int, jobs: int = 2, quiet: bool = False, seeds: int = 1,
         **_) -> pd.DataFrame:
    chosen = [presets.get(b, m)
              for b, m in [("BT", "origin2000"), ("FT", "origin2000"), ("LU", "origin2000"), ("CG", "sp2")]]
    sizes_kb = [2, 16]
    combos = [(p, kb, kb * 1024 // ENTRY_BYTES * r) for p in chosen for kb in sizes_kb for r in XVAL_SESSIONS_PER_ENTRY]
    points = [_preset_point(p, size=f"{kb}KB", keys=keys, accesses=accesses) for p, kb, keys in combos]
    sim = _simulate(points, out, jobs, quiet, "xval", seeds)
    sim.insert(0, "benchmark", _repeat([p.benchmark for p, _, _ in combos], seeds))
    sim.insert(1, "machine", _repeat([p.machine for p, _, _ in combos], seeds))
    sim.insert(2, "size_kb", _repeat([kb for _, kb, _ in combos], seeds))
    sim["sessions_per_entry"] = sim["keys"] / sim["entries"]
    sim["markov_estimate"] = _repeat([markov.hit_rate_estimate(kb * 1024 // ENTRY_BYTES, k, p.on_mean_ms,
                                                               p.off_mean_ms) for p, kb, k in combos], seeds)
    sim["simulated_minus_estimate"] = sim["hit_rate"] - sim["markov_estimate"]
    fig, axes = style.subplots(1, len(sizes_kb), width=5.0 * len(sizes_kb) + 1.6, height=3.6, sharey=True)
    for ax, kb in zip(axes, sizes_kb, strict=True):
        ax.set_ylim(0, 1.02)
        for i, ((bench, machine), part) in enumerate(sim[sim["size_kb"] == kb].groupby(["benchmark", "machine"],
                                                                                        sort=False)):
            look = style.series_style(i)
            style.line_over_seeds(ax, part, "sessions_per_entry", "hit_rate", label=f"{bench}/{machine} simulated",
                                  **look)
            estimate = part.drop_duplicates("sessions_per_entry")
            ax.plot(estimate["sessions_per_entry"], estimate["markov_estimate"], color=look["color"], ls="--",
                    marker="none", label=f"{bench}/{machine} Markov F_n(x)")
        ax.set_title(f"{kb} KB SKC ({kb * 1024 // ENTRY_BYTES} entries)")
        ax.set_xlabel("session keys per cache entry (n / x)")
    axes[0].set_ylabel("hit rate")
    style.legend_outside(axes[-1])
    fig.suptitle(f"Markov estimate (dashed) vs synthetic simulation (LRU, fully associative){_seeds_note(seeds)}")
    style.save_figure(sim, fig, out, XVAL,
                      {"accesses": accesses, "sizes_kb": sizes_kb, "sessions_per_entry": XVAL_SESSIONS_PER_ENTRY,
                       "seeds": seeds})
    return sim


SECURITY_CONFIGS = ["NoSecurity", "SKC-16", "SKC-6", "NoSKC"]
# Light uniform load, below the knee of NoSKC (whose two look-ups per packet
# keep the key memory busy 39 % of the time here), so that the figure shows
# the cost of security rather than of queueing.
SECURITY_LOAD = 0.02
SECURITY_COLUMNS = ["latency_mean_ns", "latency_p99_ns", "skc_hit_rate", "key_memory_wait_mean_ns",
                    "accepted_throughput"]


def security(out: Path, messages: int = 20_000, seeds: int = 1, **_) -> pd.DataFrame:
    """Mean and p99 latency per card configuration, 16 nodes, one switch, uniform traffic; one run per seed."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in SECURITY_CONFIGS:
            for seed in range(1, seeds + 1):
                overrides = (f"nic.security={name}", f"traffic.load={SECURITY_LOAD}", f"traffic.messages={messages}",
                             f"seed={seed}")
                row = EnginePoint(overrides=overrides, label=name).run(Path(tmp)).row()
                rows.append({"configuration": name, "seed": seed,
                             **{column: row[column] for column in SECURITY_COLUMNS}})
    df = pd.DataFrame(rows)
    base = df.loc[df["configuration"] == "NoSecurity", "latency_mean_ns"].mean()
    df["overhead_vs_nosecurity_percent"] = (df["latency_mean_ns"] / base - 1.0) * 100.0
    summary = over_seeds(df, ["configuration"], "latency_mean_ns")
    fig, ax = style.subplots(width=5.6, height=3.4)
    for x, (name, mean, error) in enumerate(zip(summary["configuration"], summary["mean"], summary["error"],
                                                strict=True)):
        ax.bar(x, mean / 1000.0, 0.7, yerr=error / 1000.0 if error > 0 else None, capsize=4,
               error_kw={"ecolor": style.OKABE_ITO["sky blue"] if name == "NoSecurity" else "black"},
               **style.bar_style(name))
        overhead = (mean / base - 1.0) * 100.0
        ax.annotate(f"+{overhead:.0f} %" if x else "reference", (x, mean / 1000.0), ha="center", va="bottom",
                    fontsize=8, xytext=(0, 2), textcoords="offset points")
    ax.set_xticks(range(len(summary)), summary["configuration"])
    ax.set_ylabel(f"mean packet latency ({style.MICROSECONDS}, log)")
    ax.set_yscale("log")
    style.plain_numbers(ax)
    ax.set_title(f"16 nodes, 4x SDR, 256 B packets, uniform load {SECURITY_LOAD}{_seeds_note(seeds)}")
    style.save_figure(df, fig, out, SECURITY,
                      {"configurations": SECURITY_CONFIGS, "load": SECURITY_LOAD, "messages": messages,
                       "seeds": seeds, "network": "defaults (16 nodes, single switch, 4x SDR)"})
    return df


# By `ibsec figures` name: the function that makes the figure, and the name its files are written under.
FIGURES = {"fig3": (fig3, FIG3), "fig8": (fig8, FIG8), "fig9": (fig9, FIG9), "xval": (xval, XVAL),
           "security": (security, SECURITY),
           "predictor": (predictor.predictor_fig8, predictor.FIG8_FIGURE),
           "predictor-fitted": (predictor.predictor_fitted, predictor.FITTED_FIGURE),
           "consistency": (consistency.consistency, consistency.FIGURE)}
# What `ibsec figures all` makes: the paper's figures and the cross-checks that take minutes, not the predictor
# checks and the cycle-level consistency check (each runs for tens of minutes or more: name them, or reproduce).
ALL_FIGURES = ("fig3", "fig8", "fig9", "xval", "security")
