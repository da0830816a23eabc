"""The cache models against the cycle-level card: the SKC hit rate the cycle-level replay measures, beside the
hit-rate predictor's and the Markov F_n(x) for the same card, with the traffic `ibsec analytic fit` finds in
the trace (docs/markov-model.md, "Consistency with the cycle-level model").

Two kinds of rows (`source`, `ranks`): each shipped real NPB trace replayed on the 16-node cluster, and the
generator's synthetic trace of every benchmark it knows at 64 and 256 ranks, replayed on that many nodes (one
rank a node). Each card has its own sessions (models/sessions.py on the trace's graph); the card-level
predictions are averaged over cards in proportion to their look-ups (their sessions, as every session has the
same traffic in the model), which is how the replay's hit rate pools the cards' look-ups. The real traces'
replays are the ones `ibsec study` makes for the real-workloads table (same store), so nothing is run twice.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ..errors import ConfigError, IbsecError  # noqa: E402
from ..models import hitrate, markov, sizing  # noqa: E402
from ..output import figure_style as style  # noqa: E402
from ..output.figure_style import save_figure  # noqa: E402
from .real_workloads import shipped_real_traces  # noqa: E402
from .workload_study import replay_points  # noqa: E402

FIGURE = "consistency_cycle_level"  # the name the figure's files are written under
SKC_ENTRIES = {"SKC-2": 2, "SKC-6": 6}
NODES = 16  # the real traces' cluster (they were captured at 16 processes)
SYNTHETIC_RANKS = (64, 256)
# The synthetic traces' length: class A, this fraction of the benchmark's iterations (JBB: transactions per
# warehouse): CG 1 of 15, MG 1 of 4, LU 75 of 250, SP 2 of 400, BT 2 of 200, FT 1 of 6, JBB 300 of 15 000. The
# hit rate needs the steady state, not the whole run: at 256 ranks (FT: 64) with SKC-2, tripling each of these
# moves the replay's hit rate by less than one point, except LU, which drifts down slowly as its wavefront
# sweeps outweigh its set-up (docs/markov-model.md, "Consistency with the cycle-level model", has the numbers).
SYNTHETIC_LENGTH = {"CG": 0.07, "MG": 0.25, "LU": 0.3, "SP": 0.005, "BT": 0.01, "FT": 0.17, "JBB": 0.02}
SYNTHETIC_CLASS = "A"


def card_average(traffic: sizing.Traffic, entries: int) -> tuple[float, float]:
    """(predicted hit rate, F_n(x)) averaged over the cards, weighted by their sessions."""
    counts = traffic.sessions_per_card[traffic.sessions_per_card > 0]
    # cards with as many sessions have the same predictions: one computation per distinct count
    sizes, cards = np.unique(counts, return_counts=True)
    predicted, markov_f = [], []
    for n in sizes:
        group = hitrate.SessionGroup(int(n), traffic.on, traffic.off, traffic.access_rate)
        predicted.append(hitrate.predict(entries, [group]).hit_rate)
        markov_f.append(markov.hit_rate_estimate(entries, int(n), traffic.on.mean, traffic.off.mean))
    weights = sizes * cards / counts.sum()
    return float(np.dot(weights, predicted)), float(np.dot(weights, markov_f))


def synthetic_traces(ranks: tuple[int, ...], traces_dir: Path, quiet: bool) -> dict[tuple[str, int], Path]:
    """The generator's trace of each benchmark at each rank count (SYNTHETIC_LENGTH), made once in traces_dir; a
    benchmark whose decomposition cannot take a rank count is left out, with a message."""
    from ..workloads import BENCHMARKS, generate, make_params

    traces = {}
    for count in ranks:
        for bench in BENCHMARKS:
            try:
                params = make_params(bench, count, SYNTHETIC_CLASS, SYNTHETIC_LENGTH[bench], 1)
            except ConfigError as error:
                if not quiet:
                    print(f"no synthetic {bench} at {count} ranks: {error}")
                continue
            # the length in the name, so that a changed SYNTHETIC_LENGTH makes a new trace
            path = traces_dir / f"{bench.lower()}.{SYNTHETIC_CLASS}.{count}.x{params.scale:.4g}.trace.gz"
            if not path.is_file():
                traces_dir.mkdir(parents=True, exist_ok=True)
                if not quiet:
                    print(f"generating {path.name} ({params.command()}; once)")
                generate(params, path)
            traces[(bench, count)] = path
    return traces


def replay_plan(out: Path, classes: tuple[str, ...], ranks: tuple[int, ...], quiet: bool) -> list[dict]:
    """One replay per (trace, SKC size): the real traces at 16 nodes, the synthetic ones at their rank count."""
    traces = [("real", bench, f"{bench.lower()}.{cls}.{NODES}", NODES, path)
              for (bench, cls), path in shipped_real_traces(classes).items()]
    traces += [("synthetic", bench, f"{bench.lower()}.{SYNTHETIC_CLASS}.{count}", count, path)
               for (bench, count), path in synthetic_traces(ranks, out / "consistency.traces", quiet).items()]
    points = []
    for source, bench, name, count, path in traces:
        for config in SKC_ENTRIES:
            overrides = [f"nic.security={config}"]
            if source == "synthetic":
                overrides.append(f"network.nodes={count}")
            points.append({"bench": bench, "name": name, "source": source, "ranks": count, "trace": str(path),
                           "configuration": config, "overrides": overrides})
    return points


def consistency(out: Path, classes: tuple[str, ...] = ("S",), ranks: tuple[int, ...] = SYNTHETIC_RANKS,
                jobs: int = 2, quiet: bool = False, **_) -> pd.DataFrame:
    points = replay_plan(out, classes, ranks, quiet)
    # the real traces' points are real_workloads.plan's (the same store keys); the synthetic ones have a store of
    # their own. replay_plan puts the real points first, so the rows come in point order.
    replays = pd.concat([replay_points([p for p in points if p["source"] == source], out / store, jobs, quiet,
                                       f"cycle-level replays ({source} traces)")
                         for source, store in (("real", "real_workloads.runs"), ("synthetic", "consistency.runs"))
                         if any(p["source"] == source for p in points)], ignore_index=True)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        traffic_of = {}
        for point, measured in zip(points, replays["skc_hit_rate"], strict=True):
            trace = point["trace"]
            if trace not in traffic_of:
                try:
                    traffic_of[trace] = sizing.from_trace(trace, point["ranks"], 1, "block", "empirical", None,
                                                          Path(folder))
                except IbsecError as error:
                    if not quiet:
                        print(f"{Path(trace).name}: no ON/OFF process to fit ({error})")
                    traffic_of[trace] = None
            traffic = traffic_of[trace]
            if traffic is None:
                continue
            entries = SKC_ENTRIES[point["configuration"]]
            predicted, markov_f = card_average(traffic, entries)
            rows.append({"trace": point["name"], "source": point["source"],
                         "ranks": point["ranks"], "configuration": point["configuration"], "entries": entries,
                         "sessions_per_card_mean": float(traffic.sessions_per_card.mean()),
                         "sessions_per_card_max": traffic.busiest, "duty_cycle": traffic.duty_cycle,
                         "lookups_per_on": traffic.lookups_per_on, "cycle_level": float(measured),
                         "predicted": predicted, "markov_f": markov_f})
    df = pd.DataFrame(rows)
    df["predicted_minus_cycle_level"] = df["predicted"] - df["cycle_level"]
    save_figure(df, consistency_figure(df), out, FIGURE,
                {"real_trace_nodes": NODES, "classes": list(classes), "synthetic_ranks": list(ranks),
                 "synthetic_class": SYNTHETIC_CLASS, "synthetic_length": SYNTHETIC_LENGTH,
                 "configurations": list(SKC_ENTRIES)})
    return df


def consistency_figure(df: pd.DataFrame):
    groups = list(df.groupby("configuration", sort=False))
    fig, axes = style.subplots(len(groups), 1, width=max(7.0, 0.42 * df["trace"].nunique() + 2), height=4 * len(groups),
                               sharey=True, squeeze=False)
    # from 0.5, or lower to show the lowest bar
    lowest = df[["cycle_level", "predicted", "markov_f"]].to_numpy().min()
    bottom = min(0.5, np.floor((lowest - 0.05) * 10) / 10)
    for ax, (config, part) in zip(axes[:, 0], groups, strict=True):
        x = np.arange(len(part))
        ax.bar(x - 0.27, part["cycle_level"], 0.27, label="cycle-level replay")
        ax.bar(x, part["predicted"], 0.27, label="predictor (fitted traffic)")
        ax.bar(x + 0.27, part["markov_f"], 0.27, label="Markov F_n(x)")
        labels = [f"{trace}\n{'real' if source == 'real' else 'synth.'}"
                  for trace, source in zip(part["trace"], part["source"], strict=True)]
        ax.set_xticks(x, labels, rotation=90, fontsize=7)
        # a line between the rank counts: real at 16 nodes, then each synthetic rank count
        for boundary in np.flatnonzero(np.diff(part["ranks"].to_numpy()) != 0):
            ax.axvline(boundary + 0.5, color="grey", linewidth=0.8, linestyle=":")
        ax.set_title(f"{config} ({SKC_ENTRIES[config]} entries): real traces at 16 nodes, synthetic at "
                     f"{', '.join(str(r) for r in sorted(part.loc[part['source'] == 'synthetic', 'ranks'].unique()))}"
                     " ranks (one a node)")
        ax.set_ylabel("SKC hit rate")
        ax.set_ylim(bottom, 1.02)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle("SKC hit rate: cycle-level replay vs the cache models")
    return fig
