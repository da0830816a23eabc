"""The cache models against the cycle-level card: the SKC hit rate the cycle-level replay of each shipped real
NPB trace measures on the 16-node cluster, beside the hit-rate predictor's and the Markov F_n(x) for the same
card, with the traffic `ibsec analytic fit` finds in the trace (docs/markov-model.md, "Consistency with the
cycle-level model").

Each card has its own sessions (models/sessions.py on the trace's graph); the card-level predictions are
averaged over cards in proportion to their look-ups (their sessions, as every session has the same traffic in
the model), which is how the replay's hit rate pools the cards' look-ups. The replays are the ones `ibsec
study` makes for the real-workloads table (same store), so nothing is run twice.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ..errors import IbsecError  # noqa: E402
from ..models import hitrate, markov, sizing  # noqa: E402
from ..output import figure_style as style  # noqa: E402
from ..output.figure_style import save_figure  # noqa: E402
from .real_workloads import shipped_real_traces  # noqa: E402
from .workload_study import replay_points  # noqa: E402

SKC_ENTRIES = {"SKC-2": 2, "SKC-6": 6}
NODES = 16


def card_average(traffic: sizing.Traffic, entries: int) -> tuple[float, float]:
    """(predicted hit rate, F_n(x)) averaged over the cards, weighted by their sessions."""
    counts = traffic.sessions_per_card[traffic.sessions_per_card > 0]
    predicted, markov_f = [], []
    for n in counts:
        group = hitrate.SessionGroup(int(n), traffic.on, traffic.off, traffic.access_rate)
        predicted.append(hitrate.predict(entries, [group]).hit_rate)
        markov_f.append(markov.hit_rate_estimate(entries, int(n), traffic.on.mean, traffic.off.mean))
    weights = counts / counts.sum()
    return float(np.dot(weights, predicted)), float(np.dot(weights, markov_f))


def consistency(out: Path, classes: tuple[str, ...] = ("S",), jobs: int = 2, quiet: bool = False,
                **_) -> pd.DataFrame:
    # the points of real_workloads.plan for the captured traces (the same store keys), without their synthetic twins
    points = [{"bench": bench, "class": cls, "source": "captured", "trace": str(path), "configuration": config,
               "overrides": [f"nic.security={config}"]}
              for (bench, cls), path in shipped_real_traces(classes).items() for config in SKC_ENTRIES]
    replays = replay_points(points, out / "real_workloads.runs", jobs, quiet, "cycle-level replays")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        traffic_of = {}
        for point, measured in zip(points, replays["skc_hit_rate"], strict=True):
            trace = point["trace"]
            if trace not in traffic_of:
                try:
                    traffic_of[trace] = sizing.from_trace(trace, NODES, 1, "block", "empirical", None, Path(folder))
                except IbsecError as error:
                    if not quiet:
                        print(f"{Path(trace).name}: no ON/OFF process to fit ({error})")
                    traffic_of[trace] = None
            traffic = traffic_of[trace]
            if traffic is None:
                continue
            entries = SKC_ENTRIES[point["configuration"]]
            predicted, markov_f = card_average(traffic, entries)
            rows.append({"trace": Path(trace).name.split(".trace")[0], "configuration": point["configuration"],
                         "entries": entries, "sessions_per_card_mean": float(traffic.sessions_per_card.mean()),
                         "duty_cycle": traffic.duty_cycle, "lookups_per_on": traffic.lookups_per_on,
                         "cycle_level": float(measured), "predicted": predicted, "markov_f": markov_f})
    df = pd.DataFrame(rows)
    df["predicted_minus_cycle_level"] = df["predicted"] - df["cycle_level"]
    save_figure(df, consistency_figure(df), out, "consistency_cycle_level",
                {"nodes": NODES, "classes": list(classes), "configurations": list(SKC_ENTRIES)})
    return df


def consistency_figure(df: pd.DataFrame):
    fig, axes = style.subplots(1, len(SKC_ENTRIES), width=6 * len(SKC_ENTRIES), height=4.4, sharey=True)
    for ax, (config, part) in zip(axes, df.groupby("configuration", sort=False), strict=False):
        x = np.arange(len(part))
        ax.bar(x - 0.27, part["cycle_level"], 0.27, label="cycle-level replay")
        ax.bar(x, part["predicted"], 0.27, label="predictor (fitted traffic)")
        ax.bar(x + 0.27, part["markov_f"], 0.27, label="Markov F_n(x)")
        ax.set_xticks(x, part["trace"], rotation=30, fontsize=8)
        ax.set_title(f"{config} ({SKC_ENTRIES[config]} entries), 16 nodes")
        ax.set_ylabel("SKC hit rate")
        ax.set_ylim(0.5, 1.02)
        ax.legend(fontsize=7, loc="lower right")
    fig.suptitle("Real NPB traces: cycle-level SKC hit rate vs the cache models")
    return fig
