"""The coscheduling study (paper 4.3): job mixes under node schedulers, with and without prefetch.

A mix of jobs shares the 16-node cluster (`trace.jobs`); each node
time-shares its CPUs among the jobs' processes under a scheduling policy
(`scheduler.policy`). The cards' key caches then see the sessions of
several jobs, and a prefetch buffer fed with the scheduler's hints
(SKC-n+Prefetch-m) can load a job's keys before it is switched in.

- compare_schedulers (Fig. 6): every scheduler x card configuration
  (NoSKC, SKC-n, SKC-n+Prefetch-m); latency, hit rates, job completion.
- prefetch_sweep (Fig. 7): SKC size with and without a buffer, and buffer
  size at fixed SKC sizes, per scheduler.

Every engine run is one point of a resumable store, DIR/<mix>.runs/, shared
by both commands: a point (an EnginePoint) is identified by the engine
binary, the traces' contents, the scheduler, the card's security mode and
the extra overrides, so a re-run (or the other command asking for the same
run) reuses finished points, and a rebuilt engine runs them again.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from ..engine.binary import EngineError, parameters
from ..engine.config import parse_override
from ..engine.point import EnginePoint, EngineRun, point_identity
from ..errors import ConfigError
from ..output import figure_style as style
from ..runs.store import load_store, point_key, run_points
from .mixes import Mix

CONFIGS = ("NoSecurity", "NoSKC", "SKC", "Prefetch")
# The study sets these itself; a --set of one of them would silently change what a row means.
STUDY_KEYS = ("trace.jobs", "trace.file", "scheduler.policy", "nic.security")
ENGINE_KEYS = ("trace.jobs", "scheduler.policy")


# ---- what to run ---------------------------------------------------------------

def parse_names(text: str, known: tuple[str, ...], option: str) -> list[str]:
    """'SKC,Prefetch' -> ['SKC', 'Prefetch']; an unknown name is a ConfigError listing the known ones."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise ConfigError(option, f"give at least one of: {', '.join(known)}")
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ConfigError(option, f"unknown {', '.join(map(repr, unknown))} (known: {', '.join(known)})")
    return list(dict.fromkeys(names))


def parse_schedulers(text: str, option: str) -> list[str]:
    """'local,gang' -> ['local', 'gang']: any scheduler the engine registers (engine/registries.py)."""
    from ..engine.registries import names, require_registered

    given = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    if not given:
        raise ConfigError(option, f"give at least one of: {', '.join(names('schedulers'))}")
    return require_registered("schedulers", given, option)


def parse_sizes(text: str, option: str) -> list[int]:
    """'2,5,10' -> [2, 5, 10], each a whole number >= 1."""
    sizes = []
    for item in (t.strip() for t in text.split(",")):
        if not item.isdigit() or int(item) < 1:
            raise ConfigError(option, f"expected whole numbers >= 1 separated by commas, got {text!r}")
        sizes.append(int(item))
    return list(dict.fromkeys(sizes))


def security_mode(config: str, skc: int, pb: int) -> str:
    """A configuration name of the study -> the engine's nic.security."""
    modes = {"NoSecurity": "NoSecurity", "NoSKC": "NoSKC", "SKC": f"SKC-{skc}",
             "Prefetch": f"SKC-{skc}+Prefetch-{pb}"}
    if config not in modes:
        raise ConfigError("--configs", f"unknown {config!r} (known: {', '.join(CONFIGS)})")
    return modes[config]


def check_overrides(overrides: list[str]) -> list[str]:
    for text in overrides:
        key, _ = parse_override(text)
        if key in STUDY_KEYS:
            raise ConfigError("--set", f"{key} is set by the study itself (use --mix, --schedulers, --configs)")
    return list(overrides)


@dataclass
class Study:
    """A mix and the runs asked of it, with the resumable store in out/<mix>.runs/."""

    mix: Mix
    out: Path
    overrides: list[str]
    jobs: int = 1
    quiet: bool = False
    seeds: int = 1  # > 1: every run once per seed 1..seeds (the schedulers' start order is random)

    @property
    def runs(self) -> Path:
        return self.out / f"{self.mix.name}.runs"

    @property
    def seed_list(self) -> list[int | None]:
        """The seeds each run takes; [None] (the config's seed, no override) without --seeds."""
        return list(range(1, self.seeds + 1)) if self.seeds > 1 else [None]

    def point(self, scheduler: str, security: str, seed: int | None = None) -> EnginePoint:
        """One engine run of the study: the mix's traces under a scheduler and a card configuration (and seed).

        Its identity holds the traces' contents, not their paths: a regenerated trace is run again,
        a moved one is not; and the engine's digest: a rebuilt engine runs it again."""
        overrides = (f"trace.jobs={json.dumps(self.traces)}", f"scheduler.policy={scheduler}",
                     f"nic.security={security}", *self.overrides, *([f"seed={seed}"] if seed else []))
        return EnginePoint(overrides=overrides, label=f"{scheduler}_{security}" + (f"_seed-{seed}" if seed else ""))

    @cached_property
    def traces(self) -> list[str]:
        return [str(path.resolve()) for path in self.mix.traces]


# ---- running -------------------------------------------------------------------

def run_study_points(study: Study, points: list[EnginePoint], label: str) -> dict[str, dict]:
    """Run the points not yet in the store; {point key: row} for every point (a point asked twice runs once)."""
    store = study.runs / "points.jsonl"
    done = load_store(store)
    if any(point_key(p.identity) not in done for p in points):
        require_engine_support()
    study.runs.mkdir(parents=True, exist_ok=True)
    rows = run_points(points, functools.partial(run_one, str(study.runs)), store=store, jobs=study.jobs,
                      quiet=study.quiet, label=label, key=point_identity)
    return {p.key: row for p, row in zip(points, rows, strict=True)}


def require_engine_support() -> None:
    """Fail early, before any run, if the engine predates job mixes and schedulers."""
    known = {p.get("key") for p in parameters()}
    missing = [k for k in ENGINE_KEYS if k not in known]
    if missing:
        raise EngineError(f"this ibsec-engine has no {', '.join(missing)}: rebuild it with scheduler support")


def run_one(runs: str, point: EnginePoint) -> dict:
    run = point.run(Path(runs))
    return {**result_row(run), "exit_code": run.exit_code, "result_file": run.result_file.name}


STATISTICS = ("latency_mean_ns", "skc_hit_rate", "skc_only_hit_rate", "prefetch_buffer_hit_rate", "key_misses",
              "packets_delivered", "prefetches_issued", "prefetches_used", "prefetches_wasted", "context_switches")


def result_row(run: EngineRun) -> dict:
    """The numbers the study shows, from one engine result; a missing key names itself and the file."""
    row = run.row()
    jobs = run.value("replay", "jobs")
    for name in STATISTICS:
        run.value("statistics", name)
    study_row = {name: row[name] for name in STATISTICS}
    study_row["mean_job_completion_time_ns"] = run.value("replay", "mean_job_completion_time_ns")
    study_row["jobs"] = len(jobs)
    study_row["jobs_completed"] = sum(1 for job in jobs if job.get("completed"))
    study_row["last_job_completion_time_ns"] = max((job.get("completion_time_ns") or 0 for job in jobs), default=0)
    return study_row


# ---- Fig. 6: schedulers x configurations ------------------------------------------

def compare_schedulers(study: Study, schedulers: list[str], configs: list[str], skc: int, pb: int,
                       argv: list[str] | None = None) -> pd.DataFrame:
    """Every scheduler under every configuration; writes fig6_<mix>.csv/.png and returns the table."""
    plan = [(s, c, security_mode(c, skc, pb), seed) for s in schedulers for c in configs for seed in study.seed_list]
    points = [study.point(s, mode, seed) for s, _, mode, seed in plan]
    rows = run_study_points(study, points, "scheduler runs")
    df = pd.DataFrame([{"mix": study.mix.name, "scheduler": s, "configuration": c, "security": mode,
                        **({"seed": seed} if seed else {}), **rows[p.key]}
                       for (s, c, mode, seed), p in zip(plan, points, strict=True)])
    fig = fig6_plot(df, study.mix.name)
    save_table(df, fig, study.out, f"fig6_{study.mix.name}",
               {"mix": study.mix.name, "jobs": [j.label for j in study.mix.jobs], "schedulers": schedulers,
                "configurations": {c: security_mode(c, skc, pb) for c in configs}, "overrides": study.overrides,
                "seeds": study.seeds,
                "prefetch_vs_skc": prefetch_effect(seed_means(df)).to_dict(orient="records")}, argv)
    return df


def seed_means(df: pd.DataFrame, keys: tuple[str, ...] = ("scheduler", "configuration")) -> pd.DataFrame:
    """One row per `keys`: the mean over the seeds of each number (the fewest jobs completed, the worst exit
    code), the first of the rest; the table itself when it has no seeds."""
    if "seed" not in df.columns:
        return df
    rest = [c for c in df.columns if c not in (*keys, "seed")]
    fixed = {"jobs_completed": "min", "jobs": "min", "exit_code": "max"}  # the worst seed
    how = {c: fixed.get(c) or ("mean" if pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
                               else "first") for c in rest}
    return df.groupby(list(keys), sort=False, as_index=False).agg(how)


def summary_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per scheduler and configuration, in the units a reader wants."""
    return pd.DataFrame({
        "scheduler": df["scheduler"],
        "configuration": df["configuration"],
        "latency_us": df["latency_mean_ns"] * 1e-3,
        "hit_rate": df["skc_hit_rate"],
        "skc_only_hit_rate": df["skc_only_hit_rate"],
        "buffer_hit_rate": df["prefetch_buffer_hit_rate"],
        "mean_job_completion_s": df["mean_job_completion_time_ns"] * 1e-9,
        "context_switches": df["context_switches"],
        "jobs_completed": df["jobs_completed"].astype(str) + "/" + df["jobs"].astype(str),
    })


def prefetch_effect(df: pd.DataFrame) -> pd.DataFrame:
    """Prefetch against SKC per scheduler: latency change (%) and hit-rate change (percentage points)."""
    by = df.set_index(["scheduler", "configuration"])
    rows = []
    for scheduler in dict.fromkeys(df["scheduler"]):
        if (scheduler, "SKC") in by.index and (scheduler, "Prefetch") in by.index:
            skc, pre = by.loc[(scheduler, "SKC")], by.loc[(scheduler, "Prefetch")]
            rows.append({"scheduler": scheduler,
                         "latency_change_percent": (pre["latency_mean_ns"] / skc["latency_mean_ns"] - 1.0) * 100.0,
                         "hit_rate_change_points": (pre["skc_hit_rate"] - skc["skc_hit_rate"]) * 100.0})
    return pd.DataFrame(rows, columns=["scheduler", "latency_change_percent", "hit_rate_change_points"])


def fig6_plot(df: pd.DataFrame, mix: str):
    """(a) latency and (b) job completion per scheduler and configuration, on log axes (NoSKC's latency and the
    local scheduler's completion are several times the others')."""
    fig, (left, right) = style.subplots(1, 2, width=10.0, height=3.6)
    style.grouped_bars(left, df, "scheduler", "configuration", "latency_mean_ns", lambda v: v * 1e-3)
    left.set_ylabel(f"mean network latency ({style.MICROSECONDS})")
    left.set_title("(a) network latency", loc="left")
    style.grouped_bars(right, df, "scheduler", "configuration", "mean_job_completion_time_ns", lambda v: v * 1e-9)
    right.set_ylabel("mean job completion time (s)")
    right.set_title("(b) job completion time", loc="left")
    for ax in (left, right):  # log: a local scheduler's minutes would flatten the coschedulers' seconds
        ax.set_xlabel("scheduler")
        ax.set_yscale("log")
        style.plain_numbers(ax)
        ax.set_ylabel(f"{ax.get_ylabel()}, log")
    style.legend_outside(right, title="card")
    fig.suptitle(f"Mix {mix} on 16 nodes: schedulers and key caching (synthetic traces)" + _seeds_line(df))
    return fig


def _seeds_line(df: pd.DataFrame) -> str:
    """A title's second line saying what bars and points are, when the table has several seeds."""
    seeds = df["seed"].nunique() if "seed" in df.columns else 1
    return f"\nmean of {seeds} seeds; error bars: their range (min to max)" if seeds > 1 else ""


def save_table(df: pd.DataFrame, fig, out: Path, name: str, meta: dict, argv: list[str] | None) -> None:
    """The table (CSV, Parquet), the plot and meta.json, as every figure."""
    style.save_figure(df, fig, out, name, meta, argv)


# ---- Fig. 7: SKC size and prefetch-buffer size ----------------------------------------

def fig7_plan(schedulers: list[str], skc_sizes: list[int], pb_fixed: int, pb_sizes: list[int],
              skc_fixed: list[int]) -> list[dict]:
    """Rows of Fig. 7: (a/c) SKC sweep with and without the buffer, (b/d) buffer sweep per fixed SKC."""
    plan = []
    for s in schedulers:
        for n in skc_sizes:
            plan.append({"scheduler": s, "sweep": "skc", "skc_entries": n, "pb_entries": 0, "security": f"SKC-{n}"})
            plan.append({"scheduler": s, "sweep": "skc", "skc_entries": n, "pb_entries": pb_fixed,
                         "security": f"SKC-{n}+Prefetch-{pb_fixed}"})
        for n in skc_fixed:
            # The unbuffered run is the reference line of the buffer sweep.
            plan.append({"scheduler": s, "sweep": "pb", "skc_entries": n, "pb_entries": 0, "security": f"SKC-{n}"})
            for m in pb_sizes:
                plan.append({"scheduler": s, "sweep": "pb", "skc_entries": n, "pb_entries": m,
                             "security": f"SKC-{n}+Prefetch-{m}"})
    return plan


def prefetch_sweep(study: Study, schedulers: list[str], skc_sizes: list[int], pb_fixed: int, pb_sizes: list[int],
                   skc_fixed: list[int], argv: list[str] | None = None) -> pd.DataFrame:
    """Fig. 7 for each scheduler; writes fig7_<mix>.csv/.png and returns the table."""
    plan = [{**p, **({"seed": seed} if seed else {})}
            for p in fig7_plan(schedulers, skc_sizes, pb_fixed, pb_sizes, skc_fixed) for seed in study.seed_list]
    points = [study.point(p["scheduler"], p["security"], p.get("seed")) for p in plan]
    rows = run_study_points(study, points, "prefetch-sweep runs")
    df = pd.DataFrame([{"mix": study.mix.name, **p, **rows[point.key]} for p, point in zip(plan, points, strict=True)])
    save_table(df, fig7_plot(df, schedulers, study.mix.name), study.out, f"fig7_{study.mix.name}",
               {"mix": study.mix.name, "schedulers": schedulers, "skc_sizes": skc_sizes, "pb_fixed": pb_fixed,
                "pb_sizes": pb_sizes, "skc_fixed": skc_fixed, "overrides": study.overrides, "seeds": study.seeds},
               argv)
    return df


def fig7_tables(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per scheduler and sweep: latency (µs) and hit rate by SKC entries (rows) and buffer entries (columns)."""
    tables = {}
    df = df.assign(latency_us=df["latency_mean_ns"] * 1e-3, hit_rate=df["skc_hit_rate"])
    for (scheduler, sweep), part in df.groupby(["scheduler", "sweep"], sort=False):
        title = f"{scheduler}, {'SKC size' if sweep == 'skc' else 'prefetch buffer size'} sweep " \
                "(columns: prefetch buffer entries, 0 = no buffer)"
        wide = part.pivot_table(index="skc_entries", columns="pb_entries", values=["latency_us", "hit_rate"])
        tables[title] = wide[["latency_us", "hit_rate"]]  # pivot_table sorts the values; latency first
    return tables


def fig7_plot(df: pd.DataFrame, schedulers: list[str], mix: str):
    """Per scheduler: latency and hit rate against SKC size (a, b) and buffer size (c, d). Hit rates above 0.9
    everywhere in a panel are drawn as miss rates on a log axis, where 0.98 and 0.998 are a decade apart."""
    fig, axes = style.subplots(len(schedulers), 4, width=15.0, height=3.1 * len(schedulers) + 0.6, squeeze=False)
    for row, scheduler in zip(axes, schedulers, strict=True):
        part = df[df["scheduler"] == scheduler]
        _skc_sweep_panels(row[0], row[1], part[part["sweep"] == "skc"])
        _pb_sweep_panels(row[2], row[3], part[part["sweep"] == "pb"])
        row[0].set_ylabel(f"{scheduler}\nlatency ({style.MICROSECONDS})")
        row[2].set_ylabel(f"latency ({style.MICROSECONDS})")
    for ax, title in zip(axes[0], ("(a) latency vs SKC size", "(b) hits vs SKC size",
                                   "(c) latency vs buffer size", "(d) hits vs buffer size"), strict=True):
        ax.set_title(title, loc="left")
    fig.suptitle(f"Mix {mix}: session key cache and prefetch buffer sizes (synthetic traces)" + _seeds_line(df))
    return fig


def _skc_sweep_panels(latency_ax, hit_ax, df: pd.DataFrame) -> None:
    show = style.hit_rate_axis(hit_ax, df["skc_hit_rate"])
    for buffered, part in df.groupby(df["pb_entries"] > 0, sort=True):
        label = f"SKC+Prefetch-{int(part['pb_entries'].iloc[0])}" if buffered else "SKC only"
        look = style.config_style("Prefetch" if buffered else "SKC")
        style.line_over_seeds(latency_ax, part, "skc_entries", "latency_mean_ns", lambda v: v * 1e-3, label=label,
                              **look)
        style.line_over_seeds(hit_ax, part, "skc_entries", "skc_hit_rate", show, label=label, **look)
    for ax in (latency_ax, hit_ax):
        ax.set_xlabel("SKC entries")
    style.log_scale_if_wide(latency_ax, df["latency_mean_ns"])
    style.legend_outside(hit_ax)


def _pb_sweep_panels(latency_ax, hit_ax, df: pd.DataFrame) -> None:
    show = style.hit_rate_axis(hit_ax, df["skc_hit_rate"])
    for i, (skc, part) in enumerate(df.groupby("skc_entries", sort=True)):
        buffered, bare = part[part["pb_entries"] > 0], part[part["pb_entries"] == 0]
        look = style.series_style(i)
        style.line_over_seeds(latency_ax, buffered, "pb_entries", "latency_mean_ns", lambda v: v * 1e-3,
                              label=f"SKC-{skc}", **look)
        style.line_over_seeds(hit_ax, buffered, "pb_entries", "skc_hit_rate", show, label=f"SKC-{skc}", **look)
        if len(bare):  # the same SKC without a buffer (mean over the seeds), for reference
            latency_ax.axhline(bare["latency_mean_ns"].mean() * 1e-3, color=look["color"], ls="--", lw=0.8)
            hit_ax.axhline(float(np.asarray(show([bare["skc_hit_rate"].mean()]))[0]), color=look["color"], ls="--",
                           lw=0.8)
    sizes = sorted(set(df.loc[df["pb_entries"] > 0, "pb_entries"]))
    for ax in (latency_ax, hit_ax):
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes, [str(int(m)) for m in sizes])  # 1, 2, 4 rather than 2^0, 2^1, 2^2
        ax.set_xlabel("prefetch buffer entries (dashed: no buffer)")
    style.log_scale_if_wide(latency_ax, df["latency_mean_ns"])
    style.legend_outside(hit_ax)
