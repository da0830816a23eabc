"""`ibsec study line-rate`: what a card needs to encrypt every packet at each InfiniBand generation.

For each link generation (4x) and MTU, on uniform traffic and on a shipped workload, the cheapest card
(fewest GCM engines, then fewest overlapped key reads) whose accepted throughput stays within 2 % of
NoSecurity's on the same network, and whether its message-level latency stays within 10 % of NoSecurity's;
and, on that network with a card of ample engines and overlap, what each SKC size costs (docs/cic.md, "A card
for today's links").

The candidate cards are a fixed grid, so every point is an ordinary engine run kept in a resumable store;
"cheapest" is read from the grid afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from matplotlib.ticker import FixedLocator, FormatStrFormatter, NullLocator

from ..engine.point import EnginePoint, point_identity
from ..output import figure_style as style
from ..output.tables import write_csv_and_parquet
from ..runs.store import run_points

GENERATIONS = ("SDR", "DDR", "QDR", "FDR", "EDR", "HDR", "NDR")
MTUS = (256, 4096)
ENGINES = (1, 2, 4, 8, 16, 32)
OVERLAPS = (1, 4, 16)  # key memory requests in flight = outstanding misses per direction
SKC_SIZES = (2, 6, 16, 64)
MAX_LATENCY_OVERHEAD_PERCENT = 10.0
MIN_THROUGHPUT_SHARE = 0.98
VL_BUFFER_BYTES = 65536
# A secure card adds 24 B a packet: at 0.5 the wire load nears the single switch's head-of-line limit (0.59).
UNIFORM_LOAD = 0.3
SECURE_CARD = "SKC-16"  # holds a 16-node card's 15 sessions: the engines question apart from misses


@dataclass(frozen=True)
class Grid:
    generations: tuple[str, ...] = GENERATIONS
    mtus: tuple[int, ...] = MTUS
    engines: tuple[int, ...] = ENGINES
    overlaps: tuple[int, ...] = OVERLAPS
    skc_sizes: tuple[int, ...] = SKC_SIZES
    messages: int = 20_000  # uniform traffic, per run at SDR (uniform_messages scales it)


QUICK = Grid(generations=("SDR", "QDR"), mtus=(256,), engines=(1, 2, 4), overlaps=(1, 4), skc_sizes=(2, 16),
             messages=4_000)


def known_generations(wanted: tuple[str, ...]) -> tuple[str, ...]:
    """The generations of `wanted` this engine knows (`ibsec-engine registries`), in order."""
    from ..engine.registries import names

    known = set(names("link_rates"))
    return tuple(g for g in wanted if g in known)


def uniform_messages(grid: Grid, generation: str) -> int:
    """Messages of a uniform run: the grid's count at SDR, scaled with the link's data rate so that every
    generation simulates about the same time. Unscaled, 20 000 messages last 18 µs at 4x NDR, and the cold key
    reads (2.5 µs at each end) would fall inside the measurement window."""
    from ..engine.registries import entries

    lane_gbps = {entry["name"]: entry["lane_data_gbps"] for entry in entries("link_rates")}
    return round(grid.messages * lane_gbps[generation] / lane_gbps["SDR"])


def _workloads(trace: Path | None, grid: Grid, generation: str) -> dict[str, list[str]]:
    """Traffic of each workload: uniform synthetic at UNIFORM_LOAD (messages of one MTU), and a trace replay."""
    messages = uniform_messages(grid, generation)
    uniform = [f"traffic.load={UNIFORM_LOAD}", f"traffic.messages={messages}",
               f"traffic.warmup_messages={messages // 10}"]
    workloads = {"uniform": uniform}
    if trace is not None:
        workloads[trace.name.split(".")[0].upper()] = [f"trace.file={trace}"]
    return workloads


def _network(generation: str, mtu: int, workload: str) -> list[str]:
    sizes = [f"traffic.sizes_bytes=[{mtu}]"] if workload == "uniform" else []
    # Virtual-lane buffers must cover the credit round trip, or the fabric, not the card, limits a fast link:
    # 8 KB caps NoSecurity at 143 Gb/s a node at 4x NDR; 64 KB lets it reach the link (docs/cic.md).
    return [f"network.link_rate={generation}", f"nic.mtu_bytes={mtu}", f"network.vl_buffer_bytes={VL_BUFFER_BYTES}",
            *sizes]


def _card(security: str, engines: int = 1, overlap: int = 1) -> list[str]:
    return [f"nic.security={security}", f"nic.gcm.engines={engines}",
            f"nic.key_memory.requests_in_flight={overlap}", f"nic.lookup.outstanding_misses={overlap}"]


def plan(grid: Grid, trace: Path | None) -> list[dict]:
    """Every run: per workload, generation and MTU a NoSecurity baseline, the card grid and the SKC sizes."""
    points = []
    for generation in grid.generations:
        for workload, traffic in _workloads(trace, grid, generation).items():
            for mtu in grid.mtus:
                where = {"workload": workload, "generation": generation, "mtu_bytes": mtu}
                base = [*traffic, *_network(generation, mtu, workload)]
                points.append({**where, "kind": "baseline", "security": "NoSecurity", "engines": 0, "overlap": 0,
                               "overrides": [*base, *_card("NoSecurity")]})
                points += [{**where, "kind": "card", "security": SECURE_CARD, "engines": e, "overlap": o,
                            "overrides": [*base, *_card(SECURE_CARD, e, o)]}
                           for e in grid.engines for o in grid.overlaps]
                ample_engines, ample_overlap = max(grid.engines), max(grid.overlaps)
                points += [{**where, "kind": "skc", "security": f"SKC-{n}", "engines": ample_engines,
                            "overlap": ample_overlap,
                            "overrides": [*base, *_card(f"SKC-{n}", ample_engines, ample_overlap)]}
                           for n in grid.skc_sizes]
    return points


def _run(folder: str, point: EnginePoint) -> dict:
    row = point.run(Path(folder)).row()
    keep = ("latency_mean_ns", "packet_latency_mean_ns", "accepted_gbps_per_node", "offered_throughput",
            "accepted_throughput", "skc_hit_rate", "gcm_busy_fraction", "send_stall_gcm_fraction",
            "send_stall_key_memory_fraction", "send_stall_link_fraction", "replay_simulated_execution_time_ns")
    return {name: row.get(name) for name in keep}


def measure(out: Path, grid: Grid, trace: Path | None, jobs: int, quiet: bool) -> pd.DataFrame:
    """Runs the plan (resumably); every run's row with its overhead over the NoSecurity baseline."""
    points = plan(grid, trace)
    engine_points = [EnginePoint(overrides=p["overrides"], label=f"{p['workload']}-{p['generation']}".lower())
                     for p in points]
    runs = out / "line_rate.runs"
    runs.mkdir(parents=True, exist_ok=True)
    rows = run_points(engine_points, lambda point: _run(str(runs), point), store=runs / "points.jsonl", jobs=jobs,
                      quiet=quiet, label="line-rate runs", key=point_identity)
    df = pd.DataFrame([{**{k: v for k, v in p.items() if k != "overrides"}, **row}
                       for p, row in zip(points, rows, strict=True)])
    where = ["workload", "generation", "mtu_bytes"]
    base = df[df.kind == "baseline"].set_index(where)
    keys = df.set_index(where).index
    df["latency_overhead_percent"] = (df["latency_mean_ns"].to_numpy()
                                      / base.loc[keys, "latency_mean_ns"].to_numpy() - 1.0) * 100.0
    df["throughput_share"] = (df["accepted_gbps_per_node"].to_numpy()
                              / base.loc[keys, "accepted_gbps_per_node"].to_numpy())
    return df


def cheapest_cards(df: pd.DataFrame) -> pd.DataFrame:
    """Per workload, generation and MTU: the fewest engines, then the fewest overlapped reads, whose throughput
    stays within MIN_THROUGHPUT_SHARE of NoSecurity's and whose latency overhead is within
    MAX_LATENCY_OVERHEAD_PERCENT; failing that, the cheapest that meets the throughput target alone (none: no card
    of the grid does). The two targets are judged apart:
    the GCM's own latency (60 cycles for 256 B at both ends) can exceed 10 % of a fast network's latency
    whatever the number of engines."""
    rows = []
    for (workload, generation, mtu), part in df[df.kind == "card"].groupby(
            ["workload", "generation", "mtu_bytes"], sort=False):
        good = part[part.throughput_share >= MIN_THROUGHPUT_SHARE].sort_values(["engines", "overlap"])
        both = good[good.latency_overhead_percent < MAX_LATENCY_OVERHEAD_PERCENT]
        best = both.iloc[0] if len(both) else good.iloc[0] if len(good) else None
        rows.append({"workload": workload, "generation": generation, "mtu_bytes": mtu,
                     "engines_needed": None if best is None else int(best.engines),
                     "overlap_needed": None if best is None else int(best.overlap),
                     "latency_overhead_percent": None if best is None else best.latency_overhead_percent,
                     "throughput_share": part.throughput_share.max() if best is None else best.throughput_share,
                     "latency_target_met": best is not None
                     and best.latency_overhead_percent < MAX_LATENCY_OVERHEAD_PERCENT})
    return pd.DataFrame(rows)


def _plot_engines_needed(ax, cheapest: pd.DataFrame, grid: Grid, order: dict[str, int]) -> None:
    """Panel (a): engines needed per generation; a series no card of the grid serves is named in a note, not
    drawn as an empty legend entry."""
    unserved = []
    for i, ((workload, mtu), part) in enumerate(cheapest.groupby(["workload", "mtu_bytes"], sort=False)):
        part = part.sort_values("generation", key=lambda s: s.map(order))
        if part["engines_needed"].isna().all():
            unserved.append(f"{workload}, {mtu} B")
            continue
        ax.plot(part["generation"], part["engines_needed"], label=f"{workload}, {mtu} B", **style.series_style(i))
    ax.set_yscale("log", base=2)
    ax.yaxis.set_major_locator(FixedLocator(list(grid.engines)))
    ax.yaxis.set_major_formatter(FormatStrFormatter("%d"))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_ylim(min(grid.engines) / 1.3, max(grid.engines) * 1.3)
    if unserved:
        ax.text(0.02, 0.98, "no card of the grid: " + "; ".join(unserved), transform=ax.transAxes, va="top",
                fontsize=7)


def study(out: Path, trace: Path | None, grid: Grid = Grid(), jobs: int = 2, quiet: bool = False,
          argv: list[str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    generations = known_generations(grid.generations)
    grid = Grid(generations, grid.mtus, grid.engines, grid.overlaps, grid.skc_sizes, grid.messages)
    df = measure(out, grid, trace, jobs, quiet)
    cheapest = cheapest_cards(df)
    order = {g: i for i, g in enumerate(GENERATIONS)}

    fig, (left, right) = style.subplots(1, 2, width=12, height=4.4)
    _plot_engines_needed(left, cheapest, grid, order)
    left.set_xlabel("link generation (4x)")
    left.set_ylabel("GCM engines per direction needed")
    left.set_title(f"(a) fewest engines for {SECURE_CARD} throughput within "
                   f"{100 - 100 * MIN_THROUGHPUT_SHARE:.0f} % of NoSecurity", loc="left", fontsize=9)
    if left.get_legend_handles_labels()[0]:  # every series unserved: the note says so, no empty legend
        style.legend_outside(left, "below", ncol=2)
    skc = df[(df.kind == "skc") & (df.mtu_bytes == min(grid.mtus))]
    for i, ((workload, size), part) in enumerate(skc.groupby(["workload", "security"], sort=False)):
        part = part.sort_values("generation", key=lambda s: s.map(order))
        right.plot(part["generation"], part["latency_overhead_percent"], label=f"{workload}, {size}",
                   **style.series_style(i))
    right.set_yscale("symlog", linthresh=1.0)
    right.set_xlabel("link generation (4x)")
    right.set_ylabel("latency over NoSecurity (%)")
    right.set_title(f"(b) SKC size, {max(grid.engines)} engines, {max(grid.overlaps)} overlapped reads, "
                    f"{min(grid.mtus)} B", loc="left", fontsize=9)
    style.legend_outside(right)
    parameters = {"generations": list(grid.generations), "mtus": list(grid.mtus), "engines": list(grid.engines),
                  "overlaps": list(grid.overlaps), "skc_sizes": list(grid.skc_sizes), "messages": grid.messages,
                  "uniform_load": UNIFORM_LOAD, "trace": str(trace) if trace else None,
                  "max_latency_overhead_percent": MAX_LATENCY_OVERHEAD_PERCENT,
                  "min_throughput_share": MIN_THROUGHPUT_SHARE, "card": SECURE_CARD}
    style.save_figure(cheapest, fig, out, "line_rate", parameters, argv)
    write_csv_and_parquet(df, out / "line_rate_runs")
    return df, cheapest
