"""A rebuilt (or different) engine makes every resumable command run its points again.

Each command runs three times on a tiny input: with "build 1" of the engine,
again with build 1 (every point comes from its store: no engine call), then
with "build 2" (every point runs again). A build is a script that logs its
arguments and runs the real engine; builds differ by a comment, so their
digests differ as two builds of the binary would (the digest is of the file
IBSEC_ENGINE names). The engine calls are counted in the shared log.
"""

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import REPO

GOLDEN_INPUTS = REPO / "tests" / "golden" / "inputs"
CONFIGS = REPO / "configs"
pytestmark = pytest.mark.model


class Builds:
    """Engine builds in a folder, all logging to one file."""

    def __init__(self, folder: Path, real: str):
        self.folder, self.real = folder, real
        self.log = folder / "engine-calls.log"

    def build(self, number: int) -> Path:
        path = self.folder / f"build-{number}" / "ibsec-engine"
        if not path.exists():
            path.parent.mkdir(parents=True)
            path.write_text(f'#!/bin/sh\n# build {number}\n'
                            f'case "$1" in run|cachesim) echo "$*" >> "{self.log}";; esac\n'
                            f'exec "{self.real}" "$@"\n')
            path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return path

    def calls(self) -> int:
        return len(self.log.read_text().splitlines()) if self.log.exists() else 0


@pytest.fixture
def builds(tmp_path, engine) -> Builds:
    return Builds(tmp_path / "engines", engine)


def ibsec(engine: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "IBSEC_ENGINE": str(engine)}
    return subprocess.run([sys.executable, "-m", "ibsec.cli", *args], capture_output=True, text=True, check=False,
                          env=env, cwd=cwd)


def calls_per_build(builds: Builds, run) -> list[int]:
    """Engine calls made by `run(engine)` with build 1, build 1 again, then build 2."""
    counts = []
    for number in (1, 1, 2):
        before = builds.calls()
        run(builds.build(number))
        counts.append(builds.calls() - before)
    return counts


def command_reruns(builds: Builds, tmp_path: Path, *args: str) -> list[int]:
    def run(engine: Path) -> None:
        done = ibsec(engine, *args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr

    return calls_per_build(builds, run)


def assert_reran(counts: list[int]) -> None:
    first, again, rebuilt = counts
    assert first > 0, "the command ran the engine"
    assert again == 0, "with the same engine every point came from the store"
    assert rebuilt == first, "with another engine every point ran again"


@pytest.fixture
def tiny_mix(tmp_path) -> Path:
    for name in ("cg.trace.gz", "mg.trace.gz"):
        shutil.copy(GOLDEN_INPUTS / name, tmp_path / name)
    mix = tmp_path / "tiny.mix"
    mix.write_text("cg.trace.gz\nmg.trace.gz\n")
    return mix


def workload_set(folder: Path) -> Path:
    """The study's seven workload traces, each a copy of one small CG trace (a missing one would be generated)."""
    from ibsec.workloads.defaults import DEFAULT_SET

    folder.mkdir(parents=True, exist_ok=True)
    for item in DEFAULT_SET:
        shutil.copy(GOLDEN_INPUTS / "cg.trace.gz", folder / item.file_name)
    return folder


# ---- one case per resumable command ----------------------------------------------------

def test_run_sweep_load_reruns_after_a_rebuild(builds, tmp_path):
    counts = command_reruns(builds, tmp_path, "run", str(CONFIGS / "paper-16.json"), "--set", "traffic.messages=2000",
                            "--sweep-load", "0.02,0.04", "--out", "load", "--quiet")
    assert_reran(counts)
    assert counts[0] == 2
    assert pd.read_csv(tmp_path / "load.csv")["offered_load"].tolist() == [0.02, 0.04]


def test_finished_cachesim_sweep_keeps_no_store_to_reuse(builds, tmp_path):
    """A cachesim sweep removes its store once every point is in its table, so a rerun, with this engine or
    another, computes every point (an unfinished one resumes: test_sweep.py)."""
    counts = command_reruns(builds, tmp_path, "cachesim", "--preset", "FT", "--accesses", "20000",
                            "--sweep", "keys=100,200", "--out", "keys.csv", "--quiet")
    assert counts == [2, 2, 2]


def test_figures_rerun_after_a_rebuild(builds, tmp_path):
    counts = command_reruns(builds, tmp_path, "figures", "fig9", "--accesses", "5000", "--out", "figs", "--quiet")
    assert_reran(counts)
    assert counts[0] == len(pd.read_csv(tmp_path / "figs" / "fig9_associativity.csv"))


def test_study_reruns_after_a_rebuild(builds, tmp_path):
    traces = workload_set(tmp_path / "workloads")
    counts = command_reruns(builds, tmp_path, "study", "--traces", str(traces), "--out", "results",
                            "--skip-packet-size", "--skip-real", "--jobs", "2", "--quiet")
    assert_reran(counts)
    assert counts[0] == 6  # seven copies of one trace under six card configurations: six distinct runs
    assert len(pd.read_csv(tmp_path / "results" / "fig5_workloads.csv")) == 7 * 6


def test_compare_schedulers_reruns_after_a_rebuild(builds, tmp_path, tiny_mix):
    counts = command_reruns(builds, tmp_path, "compare-schedulers", "--mix", str(tiny_mix), "--out", "sched",
                            "--schedulers", "gang", "--configs", "SKC,Prefetch", "--skc", "4", "--pb", "2",
                            "--jobs", "2", "--quiet")
    assert_reran(counts)
    assert counts[0] == 2


def test_prefetch_sweep_reruns_after_a_rebuild(builds, tmp_path, tiny_mix):
    counts = command_reruns(builds, tmp_path, "prefetch-sweep", "--mix", str(tiny_mix), "--out", "sched",
                            "--schedulers", "gang", "--skc-sizes", "2", "--pb-fixed", "1", "--pb-sizes", "1",
                            "--skc-fixed", "2", "--jobs", "2", "--quiet")
    assert_reran(counts)
    assert counts[0] == 2  # SKC-2 and SKC-2+Prefetch-1, shared by both halves of the plan


@pytest.mark.parametrize("kind", ["run", "cachesim"])
def test_sweep_reruns_after_a_rebuild(builds, tmp_path, kind):
    spec = tmp_path / "spec.json"
    if kind == "run":
        spec.write_text(json.dumps({"kind": "run", "config": str(CONFIGS / "paper-16.json"),
                                    "set": {"traffic.messages": 2000},
                                    "grid": {"nic.security": ["SKC-2", "NoSKC"]}}))
    else:
        spec.write_text(json.dumps({"kind": "cachesim", "set": {"preset": "FT", "accesses": 20000},
                                    "grid": {"keys": [100, 200]}}))
    counts = command_reruns(builds, tmp_path, "sweep", str(spec), "--out", "sweep", "--workers", "2", "--quiet")
    assert_reran(counts)
    assert counts[0] == 2


def test_reproduce_reruns_after_a_rebuild(builds, tmp_path, tiny_mix, monkeypatch):
    """`ibsec reproduce` with a plan as small as its steps allow, called in this process (the command line
    offers only the quick and full plans, minutes long)."""
    from ibsec.paper.reproduce import Context, Plan, reproduce
    from ibsec.runs.cluster import ClusterOptions

    tiny = Plan("tiny", accesses=2000, mixes=(str(tiny_mix),), fig7_skc_sizes=(2,), fig7_pb_sizes=(1,), xval=False,
                fig7_mix=str(tiny_mix), consistency_ranks=(), real_benchmarks=("cg",), real_classes=("S",))
    traces = workload_set(tmp_path / "workloads")
    context = Context(tmp_path / "results", traces, tmp_path / "mixes", tiny, 2, True, ["reproduce"],
                      ClusterOptions(workers=2))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))

    def run(engine: Path) -> None:
        monkeypatch.setenv("IBSEC_ENGINE", str(engine))
        reproduce(context)

    counts = calls_per_build(builds, run)
    assert_reran(counts)
    assert (tmp_path / "results" / "REPORT.md").is_file()
