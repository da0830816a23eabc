"""Conformance of `ibsec trace import` (DUMPI) with ibsec's own capture library, on real programs: NPB 3.4 CG, MG,
FT, IS, LU, BT and SP, class S, 4 processes (built once from ../shared/npb into build/npb, as test_npb.py does).

sst-dumpi, the tracer, is built once from its unmodified source (../shared/sst-dumpi/src, or $IBSEC_DUMPI_SRC) into
a cache outside the checkout ($XDG_CACHE_HOME/ibsec, else ~/.cache/ibsec), against the installed Open MPI, with its
Fortran bindings (Open MPI's Fortran calls do not pass through the C MPI_* functions). ibsec itself never uses it:
the importer is ibsec's own reader; the tracer only writes the traces to import, and its dumpi2ascii is an
independent count of their records.

For each benchmark:
1. run it under libdumpi (LD_PRELOAD) and under libibsec_capture; NPB must verify both runs;
2. `ibsec trace import` the DUMPI .meta file, `ibsec trace validate` both traces;
3. compare them (trace_conformance.py): per pair the point-to-point messages and bytes, sent and received; per
   communicator and member the sequence of collectives with roots and sizes -- exactly, alltoallv included (DUMPI
   records each destination's count);
4. the import notes no call left out and the records it read, which dumpi2ascii counts the same;
5. replay both with `ibsec run paper-16 --trace ... --quiet --out ...` and compare packets (exact), SKC hit rate and
   mean latency (trace_conformance.compare_replays; tolerances and why). Both traces
   carry CPU times (DUMPI's process clock, the capture library's thread clock), which the replays take for compute.

And tests/capture/ring_halo.c the same way: what NPB does not do at 4 ranks -- receives from MPI_ANY_SOURCE and
MPI_ANY_TAG, statuses ignored, MPI_Waitany, MPI_Testall, MPI_Sendrecv, MPI_Comm_split into two communicators of two.

Skipped, with the reason, without NPB, Open MPI, the sst-dumpi source or the tools that build it (autoconf,
automake, libtool).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from test_npb import CACHE, CLASS, npb_build, npb_tarball  # noqa: F401  (the session's fixtures, shared)
from trace_conformance import (
    EXACT,
    compare_collectives,
    compare_point_to_point,
    compare_replays,
    read_calls,
    replay_figures,
)

from conftest import REPO, run_ibsec
from ibsec.capture import npb
from ibsec.capture.mpi import mpirun_command

NPROCS = 4
BENCHMARKS = ("cg", "mg", "ft", "is", "lu", "bt", "sp")
EXTRA = ("bt", "sp")  # beyond what test_npb.py builds
DUMPI_SRC_ENV = "IBSEC_DUMPI_SRC"
BUILD_TOOLS = ("autoconf", "automake", "libtoolize", "make", "mpicc", "mpif77", "mpif90")

pytestmark = [pytest.mark.npb, pytest.mark.model]


def dumpi_source() -> Path:
    explicit = os.environ.get(DUMPI_SRC_ENV)
    return Path(explicit) if explicit else REPO.parent / "shared" / "sst-dumpi" / "src"


def cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ibsec"


def tree_digest(root: Path) -> str:
    """SHA-256 over the source tree's file names and bytes: a changed source is built afresh."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def build_dumpi(source: Path, home: Path) -> None:
    """bootstrap, configure (libdumpi with its Fortran bindings, libundumpi for dumpi2ascii), make, install: the
    sst-dumpi README's way, with the Open MPI 4.1 setting it names."""
    work = home / "src"
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(source, work)
    env = dict(os.environ, CC="mpicc", CXX="mpicxx", F77="mpif77", FC="mpif90", MPIF77="mpif77", MPIF90="mpif90",
               CPPFLAGS="-DOMPI_OMIT_MPI1_COMPAT_DECLS=0")
    # Fortran through --enable-f77 alone: its mpi_send_ etc. serve `use mpi` too, and the --enable-f90 library
    # fails to link with Debian 12's gfortran (libtool passes it "-l-L...").
    steps = [["./bootstrap.sh"],
             ["./configure", f"--prefix={home / 'install'}", "--enable-libdumpi", "--enable-libundumpi",
              "--enable-f77"],
             ["make", f"-j{os.cpu_count() or 1}"], ["make", "install"]]
    for step in steps:
        done = subprocess.run(step, cwd=work, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"sst-dumpi: {' '.join(step)} exited {done.returncode}:\n{done.stdout[-3000:]}\n"
                               f"{done.stderr[-3000:]}")
    (home / "built").write_text("ok\n")


@pytest.fixture(scope="session")
def dumpi(stage_times):
    """The installed sst-dumpi (its lib and bin folders), built once per source into the cache."""
    source = dumpi_source()
    if not (source / "bootstrap.sh").is_file():
        pytest.skip(f"the sst-dumpi source is absent (looked in {source}; ${DUMPI_SRC_ENV} points elsewhere)")
    missing = [tool for tool in BUILD_TOOLS if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"building sst-dumpi needs {', '.join(missing)} (Debian: apt-get install autoconf automake "
                    "libtool libopenmpi-dev gfortran)")
    home = cache_root() / f"sst-dumpi-{tree_digest(source)[:16]}"
    home.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with open(home.parent / f"{home.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (home / "built").is_file():
            build_dumpi(source, home)
    stage_times.append(("sst-dumpi", f"build (cache {home})", time.monotonic() - started))
    return home / "install"


@pytest.fixture(scope="session")
def npb_all(npb_build, npb_tarball):  # noqa: F811
    """test_npb.py's build with BT and SP added (same cache)."""
    return npb.build([(bench, CLASS) for bench in BENCHMARKS], CACHE, npb_tarball)


def run_under_dumpi(build, bench, workdir, install):
    """BENCH under libdumpi; the .meta file of its trace."""
    lib = install / "lib"
    preload = f"{lib / 'libdumpif77.so'}:{lib / 'libdumpi.so'}"
    run = npb.run(build, bench, CLASS, NPROCS, workdir, env={"LD_PRELOAD": preload}, timeout=300)
    assert run.verification, f"NPB {bench}.{CLASS} under DUMPI did not verify:\n{run.stdout[-2000:]}"
    metas = sorted(workdir.glob("*.meta"))
    assert len(metas) == 1, f"{bench}: DUMPI wrote {[m.name for m in metas]}"
    return metas[0]


def ibsec_ok(*args):
    completed = run_ibsec(*args)
    assert completed.returncode == 0, f"ibsec {' '.join(args)} exited {completed.returncode}:\n{completed.stderr}"
    return completed


def replay(trace: Path, out: Path) -> dict:
    ibsec_ok("run", "paper-16", "--trace", str(trace), "--quiet", "--out", str(out))
    result = json.loads(out.read_text())
    assert result["replay"]["completed"] is True, result["replay"]
    return result


def notes(trace: Path) -> list[str]:
    with open(trace) as lines:
        return [line.removeprefix("note ").strip() for line in lines if line.startswith("note import:")]


def dumpi2ascii_records(install: Path, meta: Path) -> int:
    """Every record of the run as dumpi2ascii, sst-dumpi's own reader, prints it: one "entering" line each."""
    records = 0
    for binary in sorted(meta.parent.glob(f"{meta.stem}-*.bin")):
        printed = subprocess.run([str(install / "bin" / "dumpi2ascii"), str(binary)], capture_output=True,
                                 text=True, check=True)
        records += sum(1 for line in printed.stdout.splitlines() if re.search(r"\bentering\b", line))
    return records


@pytest.mark.parametrize("bench", BENCHMARKS, ids=[f"{b}.{CLASS}.{NPROCS}" for b in BENCHMARKS])
def test_dumpi_import_agrees_with_the_capture_library(bench, npb_all, dumpi, engine, capture_lib,  # noqa: F811
                                                      tmp_path, stage_times):
    started = time.monotonic()
    meta = run_under_dumpi(npb_all, bench, tmp_path / "dumpi", dumpi)
    captured = tmp_path / "captured.trace"
    run = npb.run(npb_all, bench, CLASS, NPROCS, tmp_path / "captured",
                  env={"LD_PRELOAD": capture_lib, "IBSEC_TRACE": str(captured)}, timeout=300)
    assert run.verification, f"NPB {bench}.{CLASS} under the capture library did not verify:\n{run.stdout[-2000:]}"
    imported = tmp_path / "imported.trace"
    ibsec_ok("trace", "import", str(meta), "--out", str(imported))
    for trace in (captured, imported):
        ibsec_ok("trace", "validate", str(trace))
    said = notes(imported)
    assert not [n for n in said if n.startswith("import: not imported")], said
    assert "import: every MPI call that moves data was imported" in said, said

    mine, theirs = read_calls(captured), read_calls(imported)
    compare_point_to_point(mine, theirs)
    compare_collectives(mine, theirs, approximated=EXACT)

    read = next(int(m.group(1)) for n in said if (m := re.match(r"import: (\d+) DUMPI records in", n)))
    assert read == dumpi2ascii_records(dumpi, meta)
    replays = replay(captured, tmp_path / "captured.json"), replay(imported, tmp_path / "imported.json")
    compare_replays(*replays)
    figures = [replay_figures(r) for r in replays]
    messages, sent = sum(theirs.sent.values()), sum(theirs.sent_bytes.values())
    collectives = sum(len(calls) for calls in theirs.collectives.values())
    stage_times.append((f"{bench}.{CLASS}.{NPROCS}",
                        f"DUMPI conformance: {read} records, {messages} messages, {sent} bytes, "
                        f"{collectives} collective calls agree; replays: {figures[0]['packets']} packets, hit rate "
                        f"{figures[0]['hit rate']:.5f}/{figures[1]['hit rate']:.5f}, mean latency "
                        f"{figures[0]['latency']:.0f}/{figures[1]['latency']:.0f} ns", time.monotonic() - started))


def test_dumpi_import_of_ring_halo_agrees_with_the_capture_library(dumpi, engine, capture_lib, tmp_path):
    if shutil.which("mpicc") is None:
        pytest.skip("mpicc is absent (Debian: apt-get install libopenmpi-dev)")
    program = tmp_path / "ring_halo"
    subprocess.run(["mpicc", "-O2", "-o", str(program), str(REPO / "tests" / "capture" / "ring_halo.c")], check=True)
    runs = {"dumpi": {"LD_PRELOAD": str(dumpi / "lib" / "libdumpi.so")},
            "captured": {"LD_PRELOAD": capture_lib, "IBSEC_TRACE": str(tmp_path / "captured.trace")}}
    for name, env in runs.items():
        (tmp_path / name).mkdir()
        subprocess.run(mpirun_command(NPROCS, program, env), cwd=tmp_path / name, capture_output=True, timeout=120,
                       check=True)
    meta = next((tmp_path / "dumpi").glob("*.meta"))
    imported = tmp_path / "imported.trace"
    ibsec_ok("trace", "import", str(meta), "--out", str(imported))
    ibsec_ok("trace", "validate", str(imported))
    mine, theirs = read_calls(tmp_path / "captured.trace"), read_calls(imported)
    compare_point_to_point(mine, theirs)
    compare_collectives(mine, theirs, approximated=EXACT)
    said = notes(imported)
    assert "import: every MPI call that moves data was imported" in said, said
    # ring_halo's MPI_STATUS_IGNORE receives from a known source: their sender as posted, their send's size; said so.
    assert any(n.startswith("import: repaired") and "without a recorded status" in n for n in said), said
    # Receives posted with MPI_ANY_SOURCE are `any` in both traces.
    assert posted_any(imported) == posted_any(tmp_path / "captured.trace") > 0


def posted_any(trace: Path) -> int:
    with open(trace) as lines:
        return sum(1 for line in lines if line.rstrip().endswith(" any"))
