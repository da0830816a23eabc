"""`ibsec reproduce`: every figure and table of the paper, then results/REPORT.md.

Each step is one of the figure commands (`ibsec figures`, `ibsec study`,
`ibsec compare-schedulers`, `ibsec prefetch-sweep`, `ibsec hwcost`) with the
plan's sizes; each keeps its runs in its resumable store, so an interrupted
reproduction redoes only what is missing. `--quick` differs from the full
plan only in how many points and look-ups are simulated, never in how a
point is simulated, so its numbers are the full run's at lower resolution.
"""

from __future__ import annotations

import contextlib
import difflib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..engine.binary import engine_digest
from ..output.figures import command_line
from ..output.provenance import written_now
from ..runs.cluster import ClusterOptions, dask_executor
from ..runs.store import points_run_on
from . import report


@dataclass(frozen=True)
class Plan:
    """How much of each figure to simulate."""

    name: str
    # cachesim look-ups per point (Fig. 8, 9, the cross-check and the predictor steps' least), chosen by the plan
    # rather than left to the engine's default (`ibsec-engine params --command cachesim`): see FULL and QUICK.
    accesses: int
    mixes: tuple[str, ...]  # Fig. 6
    fig7_skc_sizes: tuple[int, ...]
    fig7_pb_sizes: tuple[int, ...]
    xval: bool  # the Markov-vs-simulation cross-check (not a paper figure)
    fig7_mix: str = "nas15"  # a built-in mix or a mix file
    # the synthetic traces' rank counts in the consistency check; None: all of consistency.SYNTHETIC_RANKS, (): none
    consistency_ranks: tuple[int, ...] | None = None
    # Table 1 on real programs: the NPB benchmarks and classes captured on this machine; None: all of
    # table1_real.BENCHMARKS and CLASSES
    real_benchmarks: tuple[str, ...] | None = None
    real_classes: tuple[str, ...] | None = None


# Quick: a quarter of the full plan's look-ups, for a run of minutes. Full: 4 000 000 rather than the engine's
# default, which keeps the committed Fig. 8 and 9 tables (made at 4 000 000) what they are, point for point, in
# less time (docs/reproducing.md).
QUICK = Plan("quick", accesses=1_000_000, mixes=("nas15", "ft-jbb6"), fig7_skc_sizes=(2, 5, 10, 20, 30),
             fig7_pb_sizes=(1, 4, 16), xval=False, consistency_ranks=(64,), real_classes=("S",))
FULL = Plan("full", accesses=4_000_000, mixes=("nas15", "ft-jbb6"), fig7_skc_sizes=(2, 5, 10, 15, 20, 25, 30),
            fig7_pb_sizes=(1, 2, 4, 8, 16), xval=True)

SCHEDULERS = ["local", "sb", "dcs-sb", "pb", "gang"]
FIG7_SCHEDULERS = ["dcs-sb", "gang"]
FIG6_SKC, FIG6_PB = 10, 8  # §4.3
FIG7_PB_FIXED, FIG7_SKC_FIXED = 2, [5, 20]


@dataclass
class Context:
    out: Path
    traces: Path
    mix_traces: Path
    plan: Plan
    jobs: int  # thread pool of a step whose points run off the cluster; the cluster sets the parallelism
    quiet: bool
    argv: list[str]
    cluster: ClusterOptions = field(default_factory=ClusterOptions)
    skip: tuple[str, ...] = ()  # step names (`steps`) left out


@dataclass(frozen=True)
class Step:
    name: str  # what --skip takes
    title: str
    action: Callable[[], object]


def steps(ctx: Context) -> list[Step]:
    """Every step of the plan, in the order they run: cheap analytic figures first."""
    from . import anchors, card_design, consistency, figures, predictor, table1_real, workload_study

    cache_options = {"accesses": ctx.plan.accesses, "jobs": ctx.jobs, "quiet": ctx.quiet}
    replay_options = {"jobs": ctx.jobs, "quiet": ctx.quiet}
    todo = [
        Step("fig3", "Fig. 3 (Markov capacity)", lambda: figures.fig3(ctx.out)),
        Step("fig8", "Fig. 8 (hit rate vs keys, cachesim)", lambda: figures.fig8(ctx.out, **cache_options)),
        Step("fig9", "Fig. 9 (associativity, cachesim)", lambda: figures.fig9(ctx.out, **cache_options)),
    ]
    if ctx.plan.xval:
        todo += [
            Step("xval", "Markov vs simulation cross-check", lambda: figures.xval(ctx.out, **cache_options)),
            Step("predictor-fig8", "Hit-rate predictor vs cachesim (Fig. 8's grid)",
                 lambda: predictor.predictor_fig8(ctx.out, **cache_options)),
            Step("predictor-fitted", "Hit-rate predictor vs cachesim (fitted real-trace traffic)",
                 lambda: predictor.predictor_fitted(ctx.out, **cache_options)),
        ]
    ranks = consistency.SYNTHETIC_RANKS if ctx.plan.consistency_ranks is None else ctx.plan.consistency_ranks
    synthetic = f", synthetic at {', '.join(str(r) for r in ranks)} ranks" if ranks else ""
    todo += [
        Step("consistency", f"Cache models vs the cycle-level SKC (real traces at 16 nodes{synthetic})",
             lambda: consistency.consistency(ctx.out, ranks=ranks, **replay_options)),
        Step("fig5", "Fig. 5(a-c) and Table 1 (workload replays)",
             lambda: workload_study.fig5(ctx.out, ctx.traces, **replay_options)),
        Step("fig5d", "Fig. 5(d) (packet size)", lambda: workload_study.fig5d(ctx.out, ctx.traces, **replay_options)),
        Step("card-noskc-overlap", "Card design: NoSKC with overlapping key reads",
             lambda: card_design.noskc_overlap(ctx.out, ctx.traces, **replay_options)),
        Step("card-paper-mode", "Card design: the paper-mode card",
             lambda: card_design.paper_mode(ctx.out, ctx.traces, **replay_options)),
    ]
    todo += [Step(f"fig6-{Path(mix).stem}", f"Fig. 6 ({mix}, coschedulers)", lambda mix=mix: _fig6(ctx, mix))
             for mix in ctx.plan.mixes]
    todo.append(Step("fig7", f"Fig. 7 ({ctx.plan.fig7_mix}, SKC and buffer sizes)", lambda: _fig7(ctx)))
    todo.append(Step("hwcost", "§3.1 hardware cost", lambda: _hardware(ctx)))
    todo.append(Step("table1-real", "Table 1 on real programs (NPB captured on this machine, then replayed)",
                     lambda: table1_real.real_table1_where_possible(
                         ctx.out, jobs=ctx.jobs, quiet=ctx.quiet, argv=ctx.argv,
                         benchmarks=ctx.plan.real_benchmarks or table1_real.BENCHMARKS,
                         classes=ctx.plan.real_classes or table1_real.CLASSES)))
    todo.append(Step("anchors", "Today's anchors: every key on the card (Lee & Kim 2007, sRDMA 2020)",
                     lambda: anchors.run(ctx.out, jobs=ctx.jobs, quiet=ctx.quiet, argv=ctx.argv)))
    return todo


def chosen_steps(ctx: Context) -> list[Step]:
    """The plan's steps less those --skip names; ConfigError for a name that is no step of the plan."""
    from ..errors import ConfigError

    todo = steps(ctx)
    names = [step.name for step in todo]
    for name in ctx.skip:
        if name not in names:
            close = difflib.get_close_matches(name, names, n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise ConfigError("--skip", f"{name!r} is no step of the {ctx.plan.name} plan; {hint}"
                                        f"the steps are {', '.join(names)}")
    return [step for step in todo if step.name not in ctx.skip]


def _study(ctx: Context, mix_name: str):
    from .coschedule import Study
    from .mixes import load_mix

    return Study(load_mix(mix_name, ctx.mix_traces), ctx.out / "schedulers", [], ctx.jobs, ctx.quiet)


def _fig6(ctx: Context, mix: str):
    from .coschedule import CONFIGS, compare_schedulers

    configs = [c for c in CONFIGS if c != "NoSecurity"]
    return compare_schedulers(_study(ctx, mix), SCHEDULERS, configs, FIG6_SKC, FIG6_PB, argv=ctx.argv)


def _fig7(ctx: Context):
    from .coschedule import prefetch_sweep

    return prefetch_sweep(_study(ctx, ctx.plan.fig7_mix), FIG7_SCHEDULERS, list(ctx.plan.fig7_skc_sizes), FIG7_PB_FIXED,
                          list(ctx.plan.fig7_pb_sizes), FIG7_SKC_FIXED, argv=ctx.argv)


def _hardware(ctx: Context):
    from ..models import hwcost

    return hwcost.write_paper_table(ctx.out)


def paper_names() -> dict[str, list[str]]:
    """Every engine name the paper's figures choose, by registry: the paper's own lists (which five schedulers
    Fig. 6 compares, which card configurations Fig. 5 shows), which the engine must still register."""
    from .coschedule import CONFIGS, security_mode
    from .figures import SECURITY_CONFIGS
    from .workload_study import MTU_SWEEP_CONFIGS, STUDY_CONFIGS

    modes = [*STUDY_CONFIGS, *MTU_SWEEP_CONFIGS, *SECURITY_CONFIGS,
             *(security_mode(c, FIG6_SKC, FIG6_PB) for c in CONFIGS),
             *(security_mode("Prefetch", n, FIG7_PB_FIXED) for n in FIG7_SKC_FIXED)]
    return {"schedulers": list(dict.fromkeys([*SCHEDULERS, *FIG7_SCHEDULERS])),
            "security_modes": list(dict.fromkeys(modes))}


def check_paper_names() -> None:
    """ConfigError before anything runs if the engine no longer registers a name the paper's figures use."""
    from ..engine.registries import require_registered

    for section, given in paper_names().items():
        require_registered(section, given, f"the paper's {section.replace('_', ' ')}")


def reproduce(ctx: Context) -> Path:
    """Run every step, then write REPORT.md; return its path."""
    started, started_utc = time.monotonic(), written_now()
    check_paper_names()
    todo = chosen_steps(ctx)
    with contextlib.ExitStack() as stack:
        # Every step's points run on one Dask cluster (local by default), as `ibsec sweep`'s do.
        stack.enter_context(points_run_on(stack.enter_context(dask_executor(ctx.cluster))))
        for number, step in enumerate(todo, 1):
            step_started = time.monotonic()
            print(f"[{number}/{len(todo)}] {step.title}", flush=True)
            step.action()
            if not ctx.quiet:
                print(f"      done in {time.monotonic() - step_started:.0f} s", flush=True)
    # A skipped step's tables are read as they are in the folder: the report names each one's date and engine.
    run = report.Run(command_line(ctx.argv), ctx.plan.name, time.monotonic() - started, engine_digest(),
                     ran=tuple(step.name for step in todo),
                     skipped=tuple(step.name for step in steps(ctx) if step.name in ctx.skip), started=started_utc)
    path = report.write_report(ctx.out, run)
    print(f"wrote {path} after {(time.monotonic() - started) / 60:.1f} min", flush=True)
    return path
