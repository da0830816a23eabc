"""The card the paper's numbers imply (docs/cic.md, "A paper-mode card").

The paper reports NoSKC at about +160 % latency over NoSecurity (Fig. 5(a)) and
+180 % at 32-byte packets (Fig. 5(d)). A card whose key look-up blocks its
stage and whose key memory serves one 2.5 us read at a time cannot come near
that: every packet of a message waits for every earlier packet's read. A card
that overlaps its key reads can. This step replays the shipped workloads with
NoSKC while the card overlaps more and more reads (requests in flight at the
key memory = outstanding misses of the look-up stage), shows where the
paper's figure falls, and reports Fig. 5(a) and 5(d) for both the blocking
card and the paper-mode card (configs/paper-card-16.json).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ..output import figure_style as style
from .workload_study import (
    MTU_SWEEP_BUFFER_BYTES,
    default_traces,
    replay_points,
    with_overheads,
)

# Reads the card overlaps: key memory requests in flight = outstanding misses per direction.
OVERLAP_LEVELS = (1, 2, 4, 6, 8, 16, 32)
PAPER_NOSKC_PERCENT = 160.0  # Fig. 5(a): NoSKC over NoSecurity
PAPER_SKC6_PERCENT = 29.0  # Fig. 5(a): SKC-6 over NoSecurity
PAPER_NOSKC_32B_PERCENT, PAPER_NOSKC_2048B_PERCENT = 180.0, 28.0  # Fig. 5(d)
PAPER_CARD_FILE = Path(__file__).resolve().parents[3] / "configs" / "paper-card-16.json"
MTU_ENDS = (32, 2048)  # Fig. 5(d)'s smallest and largest packets


def paper_card_overrides() -> list[str]:
    """The paper-mode card's nic.* settings, read from the shipped configuration (one place)."""
    nic = json.loads(PAPER_CARD_FILE.read_text())["nic"]

    def flat(prefix: str, value) -> list[str]:
        if isinstance(value, dict):
            return [s for k, v in value.items() for s in flat(f"{prefix}.{k}", v)]
        return [f"{prefix}={value}"]

    return [s for s in flat("nic", nic) if not s.startswith("nic.security=")]


def overlap(level: int) -> list[str]:
    return [f"nic.key_memory.requests_in_flight={level}", f"nic.lookup.outstanding_misses={level}"]


def noskc_overlap(out: Path, traces_dir: Path, jobs: int = 2, quiet: bool = False,
                  levels: tuple[int, ...] = OVERLAP_LEVELS) -> pd.DataFrame:
    """NoSKC's latency overhead on every shipped workload as the card overlaps more key reads."""
    traces = default_traces(traces_dir, quiet)
    points = [{"bench": bench, "trace": str(path), "configuration": "NoSecurity", "overlap": 1,
               "overrides": ["nic.security=NoSecurity"]} for bench, path in traces.items()]
    points += [{"bench": bench, "trace": str(path), "configuration": "NoSKC", "overlap": level,
                "overrides": ["nic.security=NoSKC", *overlap(level)]}
               for bench, path in traces.items() for level in levels]
    df = replay_points(points, out / "card_overlap.runs", jobs, quiet, "NoSKC with overlapping key reads")
    base = df[df.configuration == "NoSecurity"].set_index("bench")["latency_mean_ns"]
    df = df[df.configuration == "NoSKC"].copy()
    df["latency_overhead_percent"] = (df["latency_mean_ns"] / df["bench"].map(base) - 1.0) * 100.0
    df = df.drop(columns=["trace"])[["bench", "overlap", "latency_mean_ns", "latency_overhead_percent",
                                     "key_memory_wait_mean_ns"]]

    fig, ax = style.subplots(width=7.5, height=4.2)
    for i, (bench, part) in enumerate(df.groupby("bench", sort=False)):
        ax.plot(part["overlap"], part["latency_overhead_percent"], lw=1, alpha=0.8, label=bench,
                **style.series_style(i + 1))
    mean = df.groupby("overlap")["latency_overhead_percent"].mean()
    ax.plot(mean.index, mean.values, color="black", lw=2.5, marker="s", label="mean")
    ax.axhline(PAPER_NOSKC_PERCENT, color="grey", ls="--", lw=1, label="paper: +160 %")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(list(levels), [str(v) for v in levels])
    style.plain_numbers(ax)
    ax.set_xlabel("key reads the card overlaps (memory requests in flight = outstanding misses)")
    ax.set_ylabel("NoSKC latency over NoSecurity (%)")
    ax.set_title("NoSKC on the shipped workloads (16 nodes, 4x SDR, 256 B packets)")
    style.legend_outside(ax)
    style.save_figure(df, fig, out, "card_noskc_overlap",
                {"overlap_levels": list(levels), "traces": {b: p.name for b, p in traces.items()},
                 "paper_noskc_percent": PAPER_NOSKC_PERCENT})
    return df


def paper_mode(out: Path, traces_dir: Path, jobs: int = 2, quiet: bool = False, bench: str = "CG") -> pd.DataFrame:
    """Fig. 5(a)'s NoSKC and SKC-6 overheads and Fig. 5(d)'s NoSKC overhead at 32 and 2 048 B, for the blocking
    card and the paper-mode card, beside the paper's figures."""
    traces = default_traces(traces_dir, quiet)
    cards = {"blocking": [], "paper-mode": paper_card_overrides()}
    points = [{"bench": b, "trace": str(p), "card": card, "configuration": config, "mtu_bytes": 256,
               "overrides": [f"nic.security={config}", *settings]}
              for card, settings in cards.items() for b, p in traces.items()
              for config in ("NoSecurity", "NoSKC", "SKC-6")]
    points += [{"bench": bench, "trace": str(traces[bench]), "card": card, "configuration": config, "mtu_bytes": mtu,
                "overrides": [f"nic.security={config}", f"nic.mtu_bytes={mtu}",
                              f"network.vl_buffer_bytes={MTU_SWEEP_BUFFER_BYTES}", *settings]}
               for card, settings in cards.items() for mtu in MTU_ENDS for config in ("NoSecurity", "NoSKC")]
    df = with_overheads(replay_points(points, out / "card_paper_mode.runs", jobs, quiet, "paper-mode card"),
                         ["card", "bench", "mtu_bytes"])
    rows = []
    for card in cards:
        mine = df[(df.card == card) & (df.mtu_bytes == 256)]
        for config, paper in (("NoSKC", PAPER_NOSKC_PERCENT), ("SKC-6", PAPER_SKC6_PERCENT)):
            overhead = mine[mine.configuration == config]["latency_overhead_percent"].mean()
            rows.append({"card": card, "figure": "Fig. 5(a)", "configuration": config, "mtu_bytes": 256,
                         "paper_overhead_percent": paper, "ibsec_overhead_percent": overhead})
        sized = df[(df.card == card) & (df.bench == bench) & (df.configuration == "NoSKC")].set_index("mtu_bytes")
        for mtu, paper in zip(MTU_ENDS, (PAPER_NOSKC_32B_PERCENT, PAPER_NOSKC_2048B_PERCENT), strict=True):
            rows.append({"card": card, "figure": "Fig. 5(d)", "configuration": "NoSKC", "mtu_bytes": mtu,
                         "paper_overhead_percent": paper,
                         "ibsec_overhead_percent": float(sized.loc[mtu, "latency_overhead_percent"])})
    table = pd.DataFrame(rows)

    fig, ax = style.subplots(width=7.5, height=3.8)
    blocking = table[table.card == "blocking"]
    labels = [f"{r.figure}\n{r.configuration} {r.mtu_bytes} B" for r in blocking.itertuples()]
    xs = range(len(labels))
    series = (("paper", blocking["paper_overhead_percent"]),
              ("blocking card", blocking["ibsec_overhead_percent"]),
              ("paper-mode card", table[table.card == "paper-mode"]["ibsec_overhead_percent"]))
    for i, (name, values) in enumerate(series):
        colour = "#999999" if name == "paper" else style.series_style(i)["color"]
        ax.bar([x + (i - 1) * 0.27 for x in xs], values, 0.27, label=name, color=colour)
    ax.set_xticks(list(xs), labels, fontsize=8)
    ax.set_yscale("log")
    style.plain_numbers(ax)
    ax.set_ylabel("latency over NoSecurity (%)")
    ax.set_title("The paper's overheads, the blocking card and the paper-mode card")
    style.legend_outside(ax)
    style.save_figure(table, fig, out, "card_paper_mode",
                {"paper_mode_card": paper_card_overrides(), "config": PAPER_CARD_FILE.name, "fig5d_bench": bench,
                 "traces": {b: p.name for b, p in traces.items()}})
    return table
