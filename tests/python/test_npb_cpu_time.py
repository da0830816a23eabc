"""Compute time on real programs: NPB CG and MG class S captured on 2 processes with a CPU each and on 2 confined
to one CPU, replayed from CPU time (docs/replay.md, "Compute time"; docs/real-traces.md, "Execution time on real
traces").

The confined processes yield the CPU while they wait, as Open MPI's do by itself when it runs more processes than
cores (capture/mpi.py: it cannot see a taskset). Polling instead, each waiting process would hold the one CPU for a
whole time slice, and the code after every switch ran 2 to 5 times slower even in CPU time (docs/real-traces.md).

The issue asked for 10 %; measured seven times each on the 2-vCPU development machine (2026-11-29), the confined
capture's CPU-time replay came to 0.81 to 1.08 of the other's for CG and 0.69 to 1.19 for MG.
Runs of 8 to 50 ms vary that much by themselves, and confined processes compute partly faster (a message's data
is in the receiver's cache, not another core's). The test holds 40 %, which polling processes miss by far (CG 2.4,
MG 1.6 times here), and that a compute event's CPU time never exceeds its wall time.
"""

from __future__ import annotations

import json
import os

import pytest

from conftest import REPO, run_engine
from ibsec.capture import npb
from ibsec.capture.npb_capture import capture

CONFIG = REPO / "configs" / "paper-16.json"
# The least share of its wall time the reference capture (a CPU per process) must have run on a CPU.
OWN_CPU_SHARE = 0.8
# How far apart the two captures' CPU-time replays may be (the module's docstring says why not 10 %).
CPU_REPLAYS_APART = 0.4

pytestmark = [pytest.mark.npb, pytest.mark.model, pytest.mark.quiet]


@pytest.fixture(scope="module")
def build():
    if npb.find_tarball() is None:
        pytest.skip(f"NPB is absent: no {npb.TARBALL} in {npb.npb_folder()}")
    if (os.cpu_count() or 1) < 2:
        pytest.skip("needs 2 CPUs, to capture 2 processes with a CPU each")
    return npb.build([("cg", "S"), ("mg", "S")], REPO / "build" / "npb", npb.tarball())


def replayed_ms(engine: str, trace, compute: str, out) -> float:
    done = run_engine(engine, "run", str(CONFIG), "--trace", str(trace), "--set", f"replay.compute={compute}",
                      "--quiet", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())["replay"]["simulated_execution_time_ns"] * 1e-6


@pytest.mark.parametrize("bench", ["cg", "mg"])
def test_cpu_time_brings_an_oversubscribed_capture_near_the_one_with_a_cpu_each(bench, build, engine, tmp_path):
    traces = {name: capture(build, bench, "S", 2, tmp_path, "zst", cpus, f"{bench}.{name}.trace.zst").path
              for name, cpus in (("own", None), ("one", "0"))}
    times = {(name, compute): replayed_ms(engine, trace, compute, tmp_path / f"{name}.{compute}.json")
             for name, trace in traces.items() for compute in ("wall", "cpu")}
    reference = times[("own", "wall")]  # a CPU each: auto takes wall time
    if times[("own", "cpu")] < OWN_CPU_SHARE * reference:
        # Open MPI's processes poll while they wait, so with a CPU each their CPU time is nearly their wall time;
        # less means something else took the CPUs during the reference capture, which is then no reference.
        pytest.skip(f"the machine was busy: the capture with a CPU each ran {times[('own', 'cpu')]:.0f} ms of CPU "
                    f"in {reference:.0f} ms ({times})")
    ratio = times[("one", "cpu")] / times[("own", "cpu")]
    assert abs(ratio - 1) < CPU_REPLAYS_APART, times
    assert times[("one", "cpu")] <= times[("one", "wall")], times
    auto = json.loads((tmp_path / "one.cpu.json").read_text())["replay"]["jobs"][0]
    assert auto["compute"] == "cpu"
