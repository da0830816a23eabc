"""The hit-rate predictor (models/hitrate.py) against cachesim, with F_n(x) beside them.

predictor_fig8: Fig. 8's grid (16 KB fully associative LRU, 1 000 - 10 000
keys, every preset; exponential ON/OFF). predictor_fitted: ON/OFF laws
fitted to the shipped real NPB traces (`ibsec analytic fit`: lognormal,
Weibull, hyperexponential, and the measured periods themselves), each trace
with its own look-up rate, at 2 000, 6 000 and 10 000 keys.

How long a point is simulated matters more than it seems: the number of ON
sessions wanders slowly (its correlation time is on x off / (on + off)), and
near the cache's knee (about `entries` sessions ON) the hit rate follows it,
so a run must span hundreds of correlation times to be accurate to a few
tenths of a point. Fig. 8's 4 million look-ups span 2 to 500 ON/OFF cycles
(MG on the SP-2 at 10 000 keys: two), and repeating such a point with other
seeds moves it by one to two points. Each point here runs at least
`accesses` look-ups and, unless `correlation_times` is 0, as many as span
that many correlation times (at most MAX_ACCESSES).

A fitted law with a heavy tail (LU class W's lognormal ON law, sigma = 3.4)
has a correlation time of 10^5 ms, billions of look-ups: no single run
settles, and one run's hit rate is one draw of the initial state (cachesim
starts every session in its renewal process's stationary state, so each run
is an unbiased estimate however short). predictor_fitted's reference is
therefore the mean of independent runs (seeds) with its 95 % Student-t
interval: at least MIN_SEEDS runs of at most MAX_RUN_ACCESSES look-ups each,
and more seeds (up to MAX_SEEDS) where the interval is wider than
REFERENCE_HALF_WIDTH. A row whose interval is still wider says `resolved`
False.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy import stats  # noqa: E402

from ..errors import IbsecError  # noqa: E402
from ..models import cachesim, hitrate, markov, onoff_fit, presets, renewal  # noqa: E402
from ..output import figure_style as style  # noqa: E402
from ..output.figure_style import save_figure  # noqa: E402
from ..runs.store import run_points  # noqa: E402

# The names the two figures' files are written under.
FIG8_FIGURE = "predictor_fig8"
FITTED_FIGURE = "predictor_fitted"
ENTRIES = 1024  # 16 KB of 16 B keys, as Fig. 8
KEY_COUNTS = list(range(1000, 10001, 1000))
FITTED_KEY_COUNTS = [2000, 6000, 10000]
FITTED_FAMILIES = ["lognormal", "weibull", "hyperexp", "empirical"]
CORRELATION_TIMES = 400
MAX_ACCESSES = 400_000_000
# The fitted-law reference: independent runs until the 95 % interval of their mean is this narrow (a quarter of
# the 2-point bound), each run at most MAX_RUN_ACCESSES look-ups.
FITTED_BOUND = 0.02
REFERENCE_HALF_WIDTH = 0.005
MIN_SEEDS = 8
MAX_SEEDS = 64
MAX_RUN_ACCESSES = 10_000_000
ROUNDS = 4  # rounds of adding seeds at most
REAL_TRACES = Path(__file__).resolve().parents[1] / "data" / "npb"


def preset_access_rate() -> float:
    """Look-ups per ms while ON of the NAS presets: cachesim's default (docs/nas-onoff-presets.md)."""
    return float(cachesim.default("access_rate"))


def correlation_ms(on: renewal.Distribution, off: renewal.Distribution) -> float:
    """How long the number of ON sessions remembers itself: on x off / (on + off) for exponential laws (its
    autocorrelation is exp(-(lambda + mu) t)); otherwise the longer mean residual life E[L^2] / (2 E[L]) of
    the two laws, which heavy tails make long."""
    if on.kind == "exp" and off.kind == "exp":
        return on.mean * off.mean / (on.mean + off.mean)
    return max(law.second_moment / (2 * law.mean) for law in (on, off))


def wanted_accesses(on: renewal.Distribution, off: renewal.Distribution, keys: int, access_rate: float,
                    correlation_times: int) -> float:
    """Look-ups spanning `correlation_times` correlation times of the ON count."""
    lookups_per_ms = keys * access_rate * on.mean / (on.mean + off.mean)
    return correlation_times * correlation_ms(on, off) * lookups_per_ms


def accesses_for(on: renewal.Distribution, off: renewal.Distribution, keys: int, access_rate: float, accesses: int,
                 correlation_times: int) -> int:
    """wanted_accesses within [accesses, MAX_ACCESSES]."""
    return int(max(accesses, min(wanted_accesses(on, off, keys, access_rate, correlation_times), MAX_ACCESSES)))


def _simulate(points: list[dict], out: Path, jobs: int, quiet: bool, label: str) -> pd.DataFrame:
    rows = run_points(points, cachesim.run_point, store=out / ".points" / "cachesim.jsonl", jobs=jobs, quiet=quiet,
                      label=label, key=cachesim.identity)
    return pd.DataFrame(rows)


def fig8_table(out: Path, accesses: int, correlation_times: int, jobs: int, quiet: bool, policy: str = "lru",
               key_counts: list[int] = KEY_COUNTS) -> pd.DataFrame:
    """Fig. 8's grid (every preset x `key_counts`) simulated and predicted under one replacement policy."""
    combos = [(p, k) for p in presets.load() for k in key_counts]
    preset_rate = preset_access_rate()
    points = [{"on_mean": p.on_mean_ms, "off_mean": p.off_mean_ms, "keys": k, "entries": ENTRIES, "policy": policy,
               "accesses": accesses_for(renewal.exponential(p.on_mean_ms), renewal.exponential(p.off_mean_ms), k,
                                        preset_rate, accesses, correlation_times)} for p, k in combos]
    sim = _simulate(points, out, jobs, quiet, f"predictor-{policy}")
    df = pd.DataFrame({
        "benchmark": [p.benchmark for p, _ in combos], "machine": [p.machine for p, _ in combos],
        "keys": [k for _, k in combos], "entries": ENTRIES, "policy": policy, "accesses": sim["accesses"],
        "simulated": sim["hit_rate"],
        "predicted": [hitrate.predict_exponential(ENTRIES, k, p.on_mean_ms, p.off_mean_ms,
                                                  preset_rate, policy).hit_rate for p, k in combos],
        "markov_f": [markov.hit_rate_estimate(ENTRIES, k, p.on_mean_ms, p.off_mean_ms) for p, k in combos],
    })
    df["predicted_minus_simulated"] = df["predicted"] - df["simulated"]
    return df


def predictor_fig8(out: Path, accesses: int, jobs: int = 2, quiet: bool = False,
                   correlation_times: int = CORRELATION_TIMES, **_) -> pd.DataFrame:
    df = fig8_table(out, accesses, correlation_times, jobs, quiet)
    fig = fig8_figure(df)
    worst = float(df.predicted_minus_simulated.abs().max())
    save_figure(df, fig, out, FIG8_FIGURE, {"entries": ENTRIES, "keys": KEY_COUNTS, "min_accesses": accesses,
                                                 "correlation_times": correlation_times, "worst_abs_difference": worst})
    return df


def fig8_figure(df: pd.DataFrame):
    machines = list(dict.fromkeys(df["machine"]))
    fig, axes = style.subplots(1, len(machines), width=6 * len(machines), height=4.4, sharey=True)
    for ax, machine in zip(axes, machines, strict=True):
        for i, (bench, part) in enumerate(df[df.machine == machine].groupby("benchmark")):
            ax.plot(part["keys"], part["simulated"], "o", color=f"C{i}", ms=4, label=f"{bench} cachesim")
            ax.plot(part["keys"], part["predicted"], "-", color=f"C{i}", lw=1.2, label=f"{bench} predictor")
            ax.plot(part["keys"], part["markov_f"], ":", color=f"C{i}", lw=1)
        ax.set_title(f"{presets.MACHINES[machine]} (dotted: Markov F_n(x))")
        ax.set_xlabel("session keys")
        ax.set_ylabel("SKC hit rate")
        ax.set_ylim(0, 1.02)
        ax.legend(ncol=2, fontsize=7)
    worst = df.predicted_minus_simulated.abs().max()
    fig.suptitle(f"Hit-rate predictor vs cachesim, Fig. 8's grid (1024 entries, LRU); worst |difference| "
                 f"{100 * worst:.2f} points")
    return fig


# ---- fitted laws from the real traces -----------------------------------------------------------------------

def real_traces() -> list[Path]:
    """The shipped real traces with enough ON/OFF periods to fit (the largest class of each benchmark)."""
    chosen = {}
    for path in sorted(REAL_TRACES.glob("*.16.trace.zst")):
        bench, cls = path.name.split(".")[:2]
        if bench not in chosen or "SWA".index(cls) > "SWA".index(chosen[bench].name.split(".")[1]):
            chosen[bench] = path
    return list(chosen.values())


def fitted_laws(trace: Path, periods_folder: Path) -> tuple[onoff_fit.FitResult, dict]:
    """The fit of a trace and, per family, its (ON law, OFF law); the measured periods are written to
    `periods_folder` for cachesim's empirical law."""
    from ..output.files import write_text_output

    result = onoff_fit.fit_trace(trace)
    name = trace.name.split(".trace")[0]
    laws = {family: (renewal.parse(result.on_fits[family]["spec"]), renewal.parse(result.off_fits[family]["spec"]))
            for family in FITTED_FAMILIES if family != "empirical"}
    files = []
    for which, lengths in (("on", result.periods.on_ms), ("off", result.periods.off_ms)):
        path = periods_folder / f"{name}.{which}.periods"
        write_text_output(path, "".join(f"{v:.9g}\n" for v in lengths))
        files.append(renewal.empirical(path))
    laws["empirical"] = tuple(files)
    return result, laws


def interval95(values: np.ndarray) -> float:
    """Half-width of the 95 % Student-t interval of the mean of independent values."""
    if len(values) < 2:
        return float("inf")
    return float(stats.t.ppf(0.975, len(values) - 1) * np.std(values, ddof=1) / np.sqrt(len(values)))


def seeds_for(values: np.ndarray, half_width: float) -> int:
    """Independent runs whose mean would have a 95 % interval of `half_width`, judging by the spread so far
    (within [MIN_SEEDS, MAX_SEEDS])."""
    wanted = (1.96 * np.std(values, ddof=1) / half_width) ** 2 * 1.2  # 20 % margin for the estimate's own error
    return int(min(MAX_SEEDS, max(MIN_SEEDS, np.ceil(wanted))))


def more_seeds(values: np.ndarray, seeds: int) -> int:
    """The runs a point whose interval is still too wide gets next: what its spread asks for, and at least a
    quarter more than it has (a spread that says "enough" at an interval still too wide must not end the rounds),
    up to MAX_SEEDS."""
    return min(MAX_SEEDS, max(seeds_for(values, REFERENCE_HALF_WIDTH), seeds + int(np.ceil(seeds / 4))))


def reference(points: list[dict], out: Path, jobs: int, quiet: bool, label: str, min_seeds: int) -> pd.DataFrame:
    """cachesim's hit rate at each point as the mean of independent runs (seeds 1..k) with its 95 % interval:
    `min_seeds` runs, then as many more as the spread says the interval needs to reach REFERENCE_HALF_WIDTH."""
    seeds = [min_seeds] * len(points)
    for _ in range(ROUNDS):  # each round's spread sets the next count; a low first guess is corrected
        runs = [{**point, "seed": seed} for point, k in zip(points, seeds, strict=True) for seed in range(1, k + 1)]
        sim = _simulate(runs, out, jobs, quiet, label)
        sim["point"] = np.repeat(np.arange(len(points)), seeds)
        hit_rates = [part["hit_rate"].to_numpy() for _, part in sim.groupby("point")]
        wanted = [k if interval95(v) <= REFERENCE_HALF_WIDTH else more_seeds(v, k)
                  for v, k in zip(hit_rates, seeds, strict=True)]
        if wanted == seeds:
            break
        seeds = wanted
    return pd.DataFrame({"accesses": [p["accesses"] for p in points], "seeds": [len(v) for v in hit_rates],
                         "simulated": [float(v.mean()) for v in hit_rates],
                         "simulated_ci95": [interval95(v) for v in hit_rates],
                         "simulated_min": [float(v.min()) for v in hit_rates],
                         "simulated_max": [float(v.max()) for v in hit_rates]})


def fitted_table(out: Path, accesses: int, correlation_times: int, jobs: int, quiet: bool,
                 traces: list[Path] | None = None, min_seeds: int = MIN_SEEDS) -> pd.DataFrame:
    rows, points = [], []
    for trace in traces or real_traces():
        try:
            result, laws = fitted_laws(trace, out / ".periods")
        except IbsecError as error:  # a trace without an ON/OFF process to fit is reported and skipped
            if not quiet:
                print(f"{trace.name}: not fitted ({error})")
            continue
        rate = result.markov_inputs()["access_rate_per_ms"]
        for family, (on, off) in laws.items():
            for keys in FITTED_KEY_COUNTS:
                group = hitrate.SessionGroup(keys, on, off, rate)
                rows.append({"trace": trace.name.split(".trace")[0], "family": family, "keys": keys,
                             "entries": ENTRIES, "on_mean_ms": on.mean, "off_mean_ms": off.mean,
                             "access_rate_per_ms": rate,
                             "ks_on": result.on_fits[family]["ks"] if family in result.on_fits else 0.0,
                             "ks_off": result.off_fits[family]["ks"] if family in result.off_fits else 0.0,
                             "correlation_ms": correlation_ms(on, off),
                             "predicted": hitrate.predict(ENTRIES, [group]).hit_rate,
                             "markov_f": markov.hit_rate_estimate(ENTRIES, keys, on.mean, off.mean)})
                run_length = min(accesses_for(on, off, keys, rate, accesses, correlation_times), MAX_RUN_ACCESSES)
                points.append({"on_period": on.spec(), "off_period": off.spec(), "access_rate": rate, "keys": keys,
                               "entries": ENTRIES, "accesses": max(accesses, run_length)})
    df = pd.concat([pd.DataFrame(rows), reference(points, out, jobs, quiet, "predictor-fitted", min_seeds)], axis=1)
    df["predicted_minus_simulated"] = df["predicted"] - df["simulated"]
    df["resolved"] = df["simulated_ci95"] <= REFERENCE_HALF_WIDTH
    return df


def within_bound(df: pd.DataFrame) -> bool:
    """The issue's criterion on fitted laws: every point's reference resolved to REFERENCE_HALF_WIDTH and the
    predictor within FITTED_BOUND of its mean."""
    return bool(df.resolved.all() and df.predicted_minus_simulated.abs().max() <= FITTED_BOUND)


def predictor_fitted(out: Path, accesses: int, jobs: int = 2, quiet: bool = False,
                     correlation_times: int = CORRELATION_TIMES, seeds: int = 1, **_) -> pd.DataFrame:
    df = fitted_table(out, accesses, correlation_times, jobs, quiet, min_seeds=max(seeds, MIN_SEEDS))
    fig = fitted_figure(df)
    worst = df.loc[df.predicted_minus_simulated.abs().idxmax()]
    save_figure(df, fig, out, FITTED_FIGURE, {
        "entries": ENTRIES, "keys": FITTED_KEY_COUNTS, "families": FITTED_FAMILIES, "min_accesses": accesses,
        "correlation_times": correlation_times, "max_run_accesses": MAX_RUN_ACCESSES,
        "min_seeds": max(seeds, MIN_SEEDS), "max_seeds": MAX_SEEDS, "reference_half_width": REFERENCE_HALF_WIDTH,
        "worst_abs_difference": float(abs(worst.predicted_minus_simulated)),
        "worst_point": {name: worst[name].item() if hasattr(worst[name], "item") else worst[name]
                        for name in ("trace", "family", "keys", "predicted", "simulated", "simulated_ci95", "seeds")},
        "all_resolved": bool(df.resolved.all()), "within_bound": within_bound(df)})
    return df


def fitted_figure(df: pd.DataFrame):
    fig, axes = style.subplots(1, 2, width=12, height=5.2)
    markers = dict(zip(FITTED_FAMILIES, "osD^", strict=True))
    scatter, errors = axes
    for i, (trace, part) in enumerate(df.groupby("trace")):
        for family, rows in part.groupby("family"):
            label = trace if family == FITTED_FAMILIES[0] else None
            scatter.errorbar(rows["simulated"], rows["predicted"], xerr=rows["simulated_ci95"], fmt=markers[family],
                             color=f"C{i}", ms=5, mfc="none", elinewidth=0.8, label=label)
            errors.errorbar(rows["simulated"], 100 * rows["predicted_minus_simulated"],
                            yerr=100 * rows["simulated_ci95"], fmt=markers[family], color=f"C{i}", ms=5, mfc="none",
                            elinewidth=0.8, capsize=2)
    low = min(df.simulated.min(), df.predicted.min())
    scatter.plot([low, 1], [low, 1], color="grey", lw=0.8)
    scatter.set_xlabel("cachesim hit rate (mean of seeds, 95 % interval)")
    scatter.set_ylabel("predicted hit rate")
    scatter.legend(fontsize=7)
    for bound in (-100 * FITTED_BOUND, 100 * FITTED_BOUND):
        errors.axhline(bound, color="grey", lw=0.8, ls="--")
    errors.axhline(0, color="grey", lw=0.6)
    errors.set_xlabel("cachesim hit rate (mean of seeds)")
    errors.set_ylabel("predicted - simulated (points; bars: the reference's 95 % interval)")
    worst = df.loc[df.predicted_minus_simulated.abs().idxmax()]
    fig.suptitle(f"Predictor vs cachesim on ON/OFF laws fitted to the shipped NPB traces (o lognormal, s Weibull, "
                 f"D hyperexp, ^ measured periods); 1024 entries LRU, 2 000 - 10 000 keys\nworst |difference| "
                 f"{100 * abs(worst.predicted_minus_simulated):.2f} points ({worst.trace} {worst.family}, "
                 f"{worst['keys']} keys: {worst.predicted:.4f} vs {worst.simulated:.4f} +- "
                 f"{worst.simulated_ci95:.4f}, {worst.seeds} seeds); widest reference interval "
                 f"+-{100 * df.simulated_ci95.max():.2f} points", fontsize=9)
    return fig
