"""Today's anchors: encryption with every session key on the card, against two published figures.

The paper's SKC exists because keys do not all fit on the card. With every key on it, the card's cost is the
encryption alone, which two later and earlier works measured:

- Lee and Kim, IEEE TPDS 18(10), 2007 (the paper's reference [22]): in a simulated InfiniBand network, "the
  security performance overhead due to encryption/authentication on network latency ranges from 0.7 percent to
  12.4 percent". Their framework took the session keys on the card to be available without delay (the paper,
  §1): every key on the card.
- sRDMA (Taranov, Rothenberger, Perrig and Hoefler, USENIX ATC 2020): NIC-based authentication and encryption
  for RDMA that "achieves line rate and introduces less than 9% latency overhead".

Each is run on the network of that work as far as our sources describe it (docs/reproducing.md, "Today's
anchors"): 16 nodes on one switch, uniform random traffic, a card whose SKC holds all 15 sessions of a node
(SKC-16; the cold misses fall in the warm-up), against NoSecurity on the same network. The step writes
anchors.csv; REPORT.md judges it by the same rule as the paper's statements.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..engine.point import EnginePoint, point_identity, run_to_row
from ..output import figure_style as style
from ..runs.store import run_points
from .comparison import Comparison
from .line_rate import VL_BUFFER_BYTES
from .verdicts import Bound, Value

TABLE = "anchors"
EVERY_KEY_CARD = "SKC-16"  # holds the 15 sessions of a node of a 16-node cluster
LOADS = (0.1, 0.3)  # light load, and the load the line-rate study keeps below the switch's head-of-line limit
MESSAGES_AT_4X_SDR = 20_000  # scaled with the link's data rate, so every link simulates about the same time
MIN_THROUGHPUT_SHARE = 0.98  # "line rate": accepted throughput within 2 % of NoSecurity's (as `study line-rate`)


@dataclass(frozen=True)
class Anchor:
    """A published figure and the ibsec network that corresponds to that work."""

    name: str
    source: str
    statement: str
    overhead_percent: tuple[float | None, float]  # the published latency overhead: (lowest, highest); (None, x): < x
    link_rate: str
    link_width: str
    mtus: tuple[int, ...]
    network: str  # why this network


LEE_KIM = Anchor(
    "Lee & Kim 2007", "M. Lee, E. J. Kim, A comprehensive framework for enhancing security in InfiniBand "
    "architecture, IEEE TPDS 18(10), 2007, abstract",
    "encryption and authentication add 0.7 % to 12.4 % to network latency (simulated InfiniBand)", (0.7, 12.4),
    "SDR", "4x", (256, 2048),
    "the paper's simulator is theirs extended (§4.1, ref. [19]); its link and packets: 4x SDR, 256 and 2 048 B, "
    "as the paper's Fig. 5")
SRDMA = Anchor(
    "sRDMA 2020", "K. Taranov, B. Rothenberger, A. Perrig, T. Hoefler, sRDMA: efficient NIC-based authentication "
    "and encryption for remote direct memory access, USENIX ATC 2020, abstract",
    "NIC-based authentication and encryption at line rate with less than 9 % latency overhead", (None, 9.0),
    "EDR", "1x", (256, 4096),
    "one 25 Gb/s lane (1x EDR), for the 25 Gb/s Ethernet SmartNICs of that work (an assumption: see "
    "docs/reproducing.md); 256 B and 4 096 B packets, the smallest and largest InfiniBand MTU")
ANCHORS = (LEE_KIM, SRDMA)

INTRO = ("Encryption with every session key on the card (an SKC holding all 15 sessions of a node, 16 nodes on one "
         "switch, uniform traffic at loads " + " and ".join(f"{load:g}" for load in LOADS) + ") against two "
         "published figures, judged by the rule above; each work's network is described in docs/reproducing.md "
         "(\"Today's anchors\"). The card is the paper's: one GCM engine at 270 MHz that encrypts a packet whole "
         "before it leaves (30 cycles for 256 B, docs/cic.md), at each end.")


def data_gbps(link_rate: str, link_width: str) -> float:
    """A link's data rate from the engine's registries (docs/network.md)."""
    from ..engine.registries import entries

    lane = {entry["name"]: entry["lane_data_gbps"] for entry in entries("link_rates")}[link_rate]
    lanes = {entry["name"]: entry["lanes"] for entry in entries("link_widths")}[link_width]
    return lane * lanes


def messages(anchor: Anchor) -> int:
    return round(MESSAGES_AT_4X_SDR * data_gbps(anchor.link_rate, anchor.link_width) / data_gbps("SDR", "4x"))


def _network(anchor: Anchor, mtu: int, load: float) -> list[str]:
    """The overrides of one anchor's network and traffic."""
    count = messages(anchor)
    # Buffers that cover the credit round trip (and a 4 KB packet), as `study line-rate`'s.
    return [f"network.link_rate={anchor.link_rate}", f"network.link_width={anchor.link_width}",
            f"network.vl_buffer_bytes={VL_BUFFER_BYTES}", f"nic.mtu_bytes={mtu}", f"traffic.sizes_bytes=[{mtu}]",
            f"traffic.load={load}", f"traffic.messages={count}", f"traffic.warmup_messages={count // 10}"]


def plan() -> list[dict]:
    """Every run: per anchor, packet size and load, NoSecurity and the card with every key."""
    points = []
    for anchor in ANCHORS:
        for mtu in anchor.mtus:
            for load in LOADS:
                where = {"anchor": anchor.name, "link_rate": anchor.link_rate, "link_width": anchor.link_width,
                         "mtu_bytes": mtu, "load": load}
                points += [{**where, "security": security,
                            "overrides": [*_network(anchor, mtu, load), f"nic.security={security}"]}
                           for security in ("NoSecurity", EVERY_KEY_CARD)]
    return points


def measure(out: Path, jobs: int, quiet: bool) -> pd.DataFrame:
    """Every run (resumably), the card's rows with their latency overhead and throughput share over NoSecurity."""
    points = plan()
    runs = out / f"{TABLE}.runs"
    runs.mkdir(parents=True, exist_ok=True)
    engine_points = [EnginePoint(overrides=p["overrides"], label=f"anchor-{p['security']}".lower()) for p in points]
    rows = run_points(engine_points, lambda point: run_to_row(str(runs), point), store=runs / "points.jsonl",
                      jobs=jobs, quiet=quiet, label="anchors", key=point_identity)
    keep = ("latency_mean_ns", "skc_hit_rate", "accepted_throughput")
    df = pd.DataFrame([{**{k: v for k, v in p.items() if k != "overrides"}, **{k: row.get(k) for k in keep}}
                       for p, row in zip(points, rows, strict=True)])
    where = ["anchor", "mtu_bytes", "load"]
    base = df[df.security == "NoSecurity"].set_index(where)
    card = df[df.security == EVERY_KEY_CARD].copy()
    keys = card.set_index(where).index
    card["latency_overhead_percent"] = (card["latency_mean_ns"].to_numpy()
                                       / base.loc[keys, "latency_mean_ns"].to_numpy() - 1) * 100
    card["throughput_share"] = card["accepted_throughput"].to_numpy() / base.loc[keys, "accepted_throughput"].to_numpy()
    card["nosecurity_latency_mean_ns"] = base.loc[keys, "latency_mean_ns"].to_numpy()
    return card.reset_index(drop=True)


def run(out: Path, jobs: int = 2, quiet: bool = False, argv: list[str] | None = None) -> pd.DataFrame:
    """The anchors' runs; writes anchors.csv (and .parquet, the plot, .meta.json)."""
    out = Path(out)
    df = measure(out, jobs, quiet)
    fig, ax = style.subplots(width=7.0, height=3.8)
    labels = [f"{r.anchor}\n{r.mtu_bytes} B, load {r.load:g}" for r in df.itertuples()]
    ax.bar(range(len(df)), df["latency_overhead_percent"], color=[style.PALETTE[ANCHORS.index(_anchor(a))]
                                                                  for a in df["anchor"]])
    for i, anchor in enumerate(ANCHORS):
        low, high = anchor.overhead_percent
        if low is None:
            ax.axhline(high, color=style.PALETTE[i], ls="--", lw=1, label=f"{anchor.name}: < {high:g} %")
        else:
            ax.axhspan(low, high, color=style.PALETTE[i], alpha=0.15, label=f"{anchor.name}: {low:g}–{high:g} %")
    ax.set_xticks(range(len(df)), labels, fontsize=6)
    ax.set_ylabel("latency over NoSecurity (%)")
    ax.set_title(f"Every key on the card ({EVERY_KEY_CARD}, 16 nodes, uniform traffic)", fontsize=9)
    style.legend_outside(ax)
    parameters = {"card": EVERY_KEY_CARD, "loads": list(LOADS),
                  "anchors": [{"name": a.name, "source": a.source, "link_rate": a.link_rate,
                               "link_width": a.link_width, "mtus": list(a.mtus), "messages": messages(a)}
                              for a in ANCHORS]}
    style.save_figure(df, fig, out, TABLE, parameters, argv)
    return df


def _anchor(name: str) -> Anchor:
    return next(a for a in ANCHORS if a.name == name)


# ---- REPORT.md's rows ---------------------------------------------------------------------------------

def _ours(part: pd.DataFrame) -> str:
    low, high = part.latency_overhead_percent.min(), part.latency_overhead_percent.max()
    sizes = " and ".join(f"{size:,} B" for size in sorted(set(part.mtu_bytes)))
    loads = " and ".join(f"{load:g}" for load in sorted(set(part.load)))
    return (f"{low:+.1f} % to {high:+.1f} % latency over {len(part)} runs ({sizes}, loads {loads}); throughput "
            f"≥ {part.throughput_share.min():.1%} of NoSecurity's")


def _parts(anchor: Anchor, part: pd.DataFrame) -> tuple:
    """The published overhead against ours: a range end to end, a limit against our largest; and, for a claim of
    line rate, the throughput."""
    low, high = anchor.overhead_percent
    ours_low, ours_high = part.latency_overhead_percent.min(), part.latency_overhead_percent.max()
    if low is not None:
        return (Value("smallest overhead", low, ours_low, points=True),
                Value("largest overhead", high, ours_high, points=True))
    return (Bound("largest overhead", high, ours_high, points=True),
            Bound("throughput, share of NoSecurity's", MIN_THROUGHPUT_SHARE * 100, part.throughput_share.min() * 100,
                  points=True, upper=False))


WHY = ("The card encrypts a packet whole before it leaves and checks it whole when it arrives, one GCM engine at "
       "270 MHz (12 cycles, one a 16-byte block, 2 for the tag, docs/cic.md): 30 cycles (111 ns) for 256 B at each "
       "end, against a NoSecurity latency of a few hundred ns, and the 24 B of tag and header on the wire. A "
       "larger packet costs more cycles, and at 25 Gb/s the link no longer hides them.")


def comparisons(t) -> list[Comparison]:
    """REPORT.md's rows for today's anchors, [] when anchors.csv is missing."""
    df = t.get(TABLE)
    if df is None:
        return []
    rows = []
    for anchor in ANCHORS:
        part = df[df.anchor == anchor.name]
        if len(part):
            rows.append(Comparison(anchor.name, f"{anchor.statement} ({anchor.source})", _ours(part),
                                   _parts(anchor, part), f"Network: {anchor.network}. {WHY}"))
    return rows
