"""Conformance of `ibsec trace import` (OTF2) with ibsec's own capture library, on real programs: NPB 3.4 CG, MG,
FT, IS and LU, class S, 4 processes (built once from ../shared/npb into build/npb, as test_npb.py does).

For each benchmark:
1. run it under EZTrace 2.0 (`eztrace -t openmpi`, OTF2) and under libibsec_capture; NPB must verify both runs;
2. `ibsec trace import` the OTF2 archive, `ibsec trace validate` both traces;
3. compare them (trace_conformance.py): per pair the point-to-point messages and bytes, sent and received; per
   communicator and member the sequence of collectives with roots and sizes -- with the documented alltoallv
   approximation expected exactly (IS), and the import's notes saying every repair it made;
4. replay both with `ibsec run paper-16 --trace ... --quiet --out ...` and compare packets (exact), SKC hit rate and
   mean latency (tolerances and why: trace_conformance.py). Both replays take compute from wall time
   (`replay.compute=wall`): OTF2 carries no CPU time, and both runs were equally oversubscribed.

Skipped, with the reason, without NPB, Open MPI, EZTrace or an engine built with libotf2.
"""

import json
import shutil
import subprocess
import time

import pytest
from test_npb import CLASS, npb_build, npb_tarball  # noqa: F401  (the session's fixtures, shared)
from trace_conformance import (
    compare_collectives,
    compare_point_to_point,
    compare_replays,
    read_calls,
    spread_alltoallv,
)

from conftest import run_engine, run_ibsec
from ibsec.capture import npb
from ibsec.capture.mpi import mpirun_command

NPROCS = 4
BENCHMARKS = ("cg", "mg", "ft", "is", "lu")
# Repairs each benchmark's EZTrace archive needs, beyond the two every EZTrace archive needs (one group id shared
# by a COMM_LOCATIONS and a COMM_GROUP group; each process's own definition of the world and its duplicates, merged):
# IS's C MPI_Wait records no receive completion, and its alltoallv counts are spread. Clock shifts (EZTrace's ranks
# keep clocks of their own) depend on the run and are checked apart.
EXTRA_REPAIRS = {"is": ("receive completion missing under MPI_Wait", "alltoallv per-member counts are not in OTF2")}
EVERY_EZTRACE_REPAIR = ("an MPI COMM_LOCATIONS and a COMM_GROUP group share an id",
                        "OTF2 communicators with the same members as another")
CLOCK_REPAIR = "ranks' clocks disagree"

pytestmark = [pytest.mark.npb, pytest.mark.model]


@pytest.fixture(scope="session")
def eztrace(npb_tarball, engine, tmp_path_factory):  # noqa: F811
    """The eztrace command; skips without it or without the engine's OTF2 reader."""
    found = shutil.which("eztrace")
    if found is None:
        pytest.skip("EZTrace is absent (Debian: apt-get install eztrace)")
    probe = tmp_path_factory.mktemp("otf2-probe") / "probe.otf2"
    probe.write_text("not an archive\n")
    answer = run_engine(engine, "trace", "import", str(probe), "--out", str(probe.with_suffix(".trace")))
    if "was not found when this engine was built" in answer.stderr:
        pytest.skip(f"the engine has no OTF2 reader: {answer.stderr.strip()}")
    return found


def run_under_eztrace(build, bench, workdir, eztrace_path):
    """BENCH under EZTrace's Open MPI module; the OTF2 anchor it wrote."""
    workdir.mkdir(parents=True)
    command = [*mpirun_command(NPROCS, eztrace_path), "-t", "openmpi", str(build.binary(bench, CLASS))]
    completed = subprocess.run(command, cwd=workdir, capture_output=True, text=True, timeout=300, check=False)
    assert completed.returncode == 0 and npb.VERIFIED.search(completed.stdout), \
        f"{' '.join(command)} exited {completed.returncode}:\n{completed.stdout[-2000:]}\n{completed.stderr[-2000:]}"
    return workdir / f"{bench}.{CLASS}.x_trace" / "eztrace_log.otf2"


def ibsec_ok(*args):
    completed = run_ibsec(*args)
    assert completed.returncode == 0, f"ibsec {' '.join(args)} exited {completed.returncode}:\n{completed.stderr}"
    return completed


def replay(trace, out):
    ibsec_ok("run", "paper-16", "--trace", str(trace), "--set", "replay.compute=wall", "--quiet", "--out", str(out))
    result = json.loads(out.read_text())
    assert result["replay"]["completed"] is True, result["replay"]
    return result


def import_notes(trace):
    with open(trace) as lines:
        return [line.removeprefix("note ").strip() for line in lines
                if line.startswith("note import: repaired") or line.startswith("note import: not imported")]


def check_repairs(bench, notes):
    """The import says exactly the repairs this benchmark's archive needs, and imported every data-moving call."""
    expected = EVERY_EZTRACE_REPAIR + EXTRA_REPAIRS.get(bench, ())
    made = [n for n in notes if CLOCK_REPAIR not in n]
    assert not [n for n in made if n.startswith("import: not imported")], made
    assert len(made) == len(expected) and all(any(e in n for n in made) for e in expected), \
        f"{bench}: expected repairs {expected}, the import noted {made}"


@pytest.mark.parametrize("bench", BENCHMARKS, ids=[f"{b}.{CLASS}.{NPROCS}" for b in BENCHMARKS])
def test_otf2_import_agrees_with_the_capture_library(bench, npb_build, eztrace, engine, capture_lib,  # noqa: F811
                                                     tmp_path, stage_times):
    started = time.monotonic()
    anchor = run_under_eztrace(npb_build, bench, tmp_path / "eztrace", eztrace)
    captured = tmp_path / "captured.trace"
    run = npb.run(npb_build, bench, CLASS, NPROCS, tmp_path / "captured",
                  env={"LD_PRELOAD": capture_lib, "IBSEC_TRACE": str(captured)}, timeout=300)
    assert run.verification, f"NPB {bench}.{CLASS} under the capture library did not verify:\n{run.stdout[-2000:]}"
    imported = tmp_path / "imported.trace"
    ibsec_ok("trace", "import", str(anchor), "--out", str(imported))
    for trace in (captured, imported):
        ibsec_ok("trace", "validate", str(trace))
    check_repairs(bench, import_notes(imported))

    mine, theirs = read_calls(captured), read_calls(imported)
    compare_point_to_point(mine, theirs)
    compare_collectives(mine, theirs)

    approximated = tmp_path / "captured-spread.trace"
    spread = spread_alltoallv(captured, approximated)
    assert (spread > 0) == (bench in EXTRA_REPAIRS), f"{bench}: {spread} alltoallv calls"
    compare_replays(replay(approximated, tmp_path / "captured.json"), replay(imported, tmp_path / "imported.json"))
    stage_times.append((f"{bench}.{CLASS}.{NPROCS}", "OTF2 conformance (run twice, import, compare, replay)",
                        time.monotonic() - started))
