"""libibsec_capture and MPI-3: requests that share a handle, every point-to-point and collective call of MPI-3
from C and Fortran, the calls it does not record, the encodings it writes, and the facts about the hosts.

The helpers (building, running under the library, the independent parser and checks) are test_capture.py's.
"""

import gzip
import json
import os
import re
import socket
import subprocess
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from test_capture import (
    ARGUMENTS,
    COLLECTIVES,
    MPICC,
    MPIF90,
    POINT_TO_POINT,
    PROGRAMS,
    Capture,
    Trace,
    capture,
    check_semantics,
    mpirun,
    parse,
)

from conftest import REPO, run_engine

pytestmark = [pytest.mark.model, pytest.mark.skipif(
    MPICC is None,
    reason="MPI is not installed: mpicc and mpirun are needed (Debian: apt-get install libopenmpi-dev openmpi-bin)")]


def build(workdir: Path, program: Path) -> Path:
    fortran = program.suffix == ".f90"
    exe = workdir / (program.stem + ("_f" if fortran else ""))
    command = [MPIF90 if fortran else MPICC, "-O1", "-o", str(exe), str(program)]
    # In WORKDIR: a Fortran compiler writes the program's module files where it runs.
    built = subprocess.run(command, capture_output=True, text=True, check=False, cwd=workdir)
    assert built.returncode == 0, f"{' '.join(command)} failed:\n{built.stderr}"
    return exe


def run_captured(exe: Path, lib: str, trace: Path, *args: str, env: dict | None = None,
                 mpirun_env: dict | None = None) -> subprocess.CompletedProcess:
    """Runs EXE on 4 processes with the library preloaded, writing TRACE; ENV is set for the processes,
    MPIRUN_ENV for mpirun."""
    exports = ["-x", f"IBSEC_TRACE={trace}", "-x", f"LD_PRELOAD={lib}"]
    for name, value in (env or {}).items():
        exports += ["-x", f"{name}={value}"]
    run = mpirun(*exports, str(exe), *args, env=mpirun_env)
    assert run.returncode == 0, f"mpirun failed ({run.returncode}):\n{run.stdout}\n{run.stderr}"
    return run


def validate(engine: str, trace: Path) -> None:
    result = run_engine(engine, "trace", "validate", str(trace))
    assert result.returncode == 0, f"ibsec-engine trace validate: {result.returncode}\n{result.stdout}{result.stderr}"


def test_small_isends_sharing_a_request(tmp_path, capture_lib, engine):
    """Open MPI 4 hands every MPI_Isend of up to 256 bytes the same pre-completed request: three in flight
    before one MPI_Waitall are three isends and three waits, not one (the trace used to fail validation with
    'receive 0 -> 2 tag 105 ... was never sent')."""
    trace = tmp_path / "small.trace"
    run_captured(build(tmp_path, PROGRAMS / "small_isend.c"), capture_lib, trace)
    parsed = parse(trace)
    check_semantics(parsed)
    mine = [e for e in parsed.events if e.rank == 0 and e.op != "compute"]
    assert [e.op for e in mine] == ["isend"] * 3 + ["wait"] * 3, mine
    assert {(e.args["peer"], e.args["bytes"], e.args["tag"]) for e in mine if e.op == "isend"} == {(2, 64, 105)}
    assert len({e.args["req"] for e in mine if e.op == "isend"}) == 3, "each isend has a request of its own"
    assert not [note for note in parsed.notes() if not note.startswith("host ")], parsed.header
    validate(engine, trace)


def check_report(trace: Trace, report: dict[int, dict[str, int]]) -> None:
    """Per rank, every op's events, the bytes, the wildcard receives, the self-messages and the messages on
    other communicators are what the program counted (tests/capture/mpi3_calls.c says how it counts)."""
    for rank, counted in report.items():
        mine = [e for e in trace.events if e.rank == rank]
        ops = Counter(e.op for e in mine)
        assert {op: ops[op] for op in ARGUMENTS if op != "compute"} == \
            {op: counted[op] for op in ARGUMENTS if op != "compute"}, f"rank {rank}: events per op"
        found = {
            "send_bytes": sum(e.args["bytes"] for e in mine if e.op in ("send", "isend")),
            "recv_bytes": sum(e.args["bytes"] for e in mine if e.op in ("recv", "irecv")),
            "coll_bytes": sum(e.bytes for e in mine if e.op in COLLECTIVES),
            "any": sum(e.args.get("posted", 0) for e in mine),
            "self": sum(1 for e in mine if e.op in ("send", "isend") and e.args["peer"] == rank),
            "comm_p2p": sum(1 for e in mine if e.op in POINT_TO_POINT and e.args["comm"] != 0),
        }
        assert found == {key: counted[key] for key in found}, f"rank {rank}"


@pytest.fixture(scope="module")
def c_calls(tmp_path_factory, capture_lib) -> Capture:
    return capture(tmp_path_factory.mktemp("mpi3-c"), PROGRAMS / "mpi3_calls.c", capture_lib)


def test_every_c_call_recorded(c_calls):
    trace = parse(c_calls.trace)
    check_semantics(trace)
    check_report(trace, c_calls.report)
    selves = sum(counted["self"] for counted in c_calls.report.values())
    assert f"{selves} messages were sent by a process to itself (recorded)" in trace.notes()
    assert not [n for n in trace.notes() if not n.startswith("host ") and "to itself" not in n], trace.notes()


def test_every_c_call_validates(c_calls, engine):
    validate(engine, c_calls.trace)


needs_fortran = pytest.mark.skipif(
    MPIF90 is None, reason="no MPI Fortran compiler (mpif90/mpifort; Debian: apt-get install gfortran)")


@pytest.fixture(scope="module")
def fortran_calls(tmp_path_factory, capture_lib) -> Capture:
    if MPIF90 is None:
        pytest.skip("no MPI Fortran compiler (mpif90/mpifort; Debian: apt-get install gfortran)")
    return capture(tmp_path_factory.mktemp("mpi3-fortran"), PROGRAMS / "mpi3_calls.f90", capture_lib)


@needs_fortran
def test_every_fortran_call_recorded(fortran_calls):
    """The same calls from Fortran: `use mpi`, `include 'mpif.h'` and `use mpi_f08` reach the library's
    Fortran entry points, not its C wrappers."""
    trace = parse(fortran_calls.trace)
    assert trace.origin.endswith(" program=mpi3_calls_f"), trace.origin
    check_semantics(trace)
    check_report(trace, fortran_calls.report)
    assert not [n for n in trace.notes() if not n.startswith("host ") and "to itself" not in n], trace.notes()


@needs_fortran
def test_every_fortran_call_validates(fortran_calls, engine):
    validate(engine, fortran_calls.trace)


# -- Replay --

def replay(engine: str, trace: Path, workdir: Path) -> None:
    """Replays TRACE on the paper's 16-node cluster: every op the library records must replay to the end."""
    out = workdir / (trace.name + ".json")
    result = run_engine(engine, "run", str(REPO / "configs" / "paper-16.json"), "--trace", str(trace), "--quiet",
                        "--out", str(out))
    assert result.returncode == 0, f"ibsec-engine run: {result.returncode}\n{result.stdout}{result.stderr}"
    assert json.loads(out.read_text())["replay"]["completed"] is True


def test_small_isends_replay(tmp_path, capture_lib, engine):
    trace = tmp_path / "small.trace"
    run_captured(build(tmp_path, PROGRAMS / "small_isend.c"), capture_lib, trace)
    replay(engine, trace, tmp_path)


def test_every_c_call_replays(c_calls, engine, tmp_path):
    replay(engine, c_calls.trace, tmp_path)


@needs_fortran
def test_every_fortran_call_replays(fortran_calls, engine, tmp_path):
    replay(engine, fortran_calls.trace, tmp_path)


# -- What is not recorded is said --

def made_calls(report: Path) -> dict[str, int]:
    """The calls a program reports it made (`rank R NAME COUNT ...` lines), summed over its ranks."""
    total = Counter()
    for line in report.read_text().splitlines():
        words = line.split()
        total.update({words[i]: int(words[i + 1]) for i in range(2, len(words), 2)})
    return dict(total)


def unrecorded_note(name: str, count: int, on_intercommunicators: bool = False) -> re.Pattern:
    if on_intercommunicators:
        return re.compile(rf"{count} MPI_{name} calls on intercommunicators were not recorded")
    return re.compile(rf"{count} MPI_{name} calls were not recorded \(.+\)")


def check_said(trace: Trace, stderr: str, expected: list[re.Pattern]) -> None:
    """Each expected note is in the header once, and on stderr as rank 0's `note:` line."""
    notes = trace.notes()
    prefix = "ibsec_capture: rank 0: note: "
    said = [line[len(prefix):] for line in stderr.splitlines() if line.startswith(prefix)]
    for pattern in expected:
        assert len([n for n in notes if pattern.fullmatch(n)]) == 1, f"no note {pattern.pattern!r} in {notes}"
        assert len([n for n in said if pattern.fullmatch(n)]) == 1, f"not said on stderr: {pattern.pattern!r}"
    assert said == notes, "stderr says the notes of the header"


def test_unrecorded_calls_are_noted(tmp_path, capture_lib, engine):
    """One-sided communication, neighbourhood collectives, collectives on an intercommunicator, MPI_Cancel,
    MPI_Comm_idup and MPI-IO are not recorded: each is named with its count in a note and on stderr, and the
    trace is still valid."""
    trace, report = tmp_path / "unrecorded.trace", tmp_path / "report.txt"
    run = run_captured(build(tmp_path, PROGRAMS / "unrecorded.c"), capture_lib, trace, str(report),
                       str(tmp_path / "io.dat"))
    made = made_calls(report)
    inter = {"Barrier", "Bcast"}
    expected = [unrecorded_note(name, n, name in inter) for name, n in made.items() if n]
    expected += [re.compile(f"{made['Cancel']} cancelled requests were not recorded"),
                 re.compile(rf"{made['Comm_idup']} operations on communicators made by MPI_Comm_idup were not "
                            r"recorded \(.+\)")]
    parsed = parse(trace)
    check_said(parsed, run.stderr, expected)
    check_semantics(parsed)
    validate(engine, trace)


@needs_fortran
def test_unrecorded_fortran_calls_are_noted(tmp_path, capture_lib):
    """The Fortran entry points of unrecorded calls count them too, and pass a CHARACTER argument's hidden
    length on (MPI_File_open creates the file it names)."""
    trace, data = tmp_path / "unrecorded_f.trace", tmp_path / "io_f.dat"
    run = run_captured(build(tmp_path, PROGRAMS / "unrecorded.f90"), capture_lib, trace, str(data))
    assert data.is_file() and data.stat().st_size == 4 * 32, "MPI_File_open got the file name"
    calls = {"Win_create": 4, "Win_fence": 8, "Put": 4, "Win_free": 4, "File_open": 4, "File_write_at": 4,
             "File_close": 4}
    check_said(parse(trace), run.stderr, [unrecorded_note(name, n) for name, n in calls.items()])


# -- The encoding the name asks for --

def per_rank(trace: Trace) -> dict[int, list[tuple]]:
    """Each rank's events without their times: what two runs of a deterministic program share."""
    events = defaultdict(list)
    for e in trace.events:
        if e.op != "compute":
            events[e.rank].append((e.op, tuple(sorted(e.args.items())), tuple(e.counts or ())))
    return dict(events)


@pytest.fixture(scope="module")
def mpi3_exe(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("mpi3-exe"), PROGRAMS / "mpi3_calls.c")


@pytest.fixture(scope="module")
def text_capture(mpi3_exe, capture_lib, tmp_path_factory) -> Trace:
    workdir = tmp_path_factory.mktemp("mpi3-text")
    run_captured(mpi3_exe, capture_lib, workdir / "plain.trace", str(workdir / "report.txt"))
    return parse(workdir / "plain.trace")


def convert(engine: str, source: Path, target: Path) -> Path:
    result = run_engine(engine, "trace", "convert", str(source), str(target))
    assert result.returncode == 0, f"ibsec-engine trace convert: {result.returncode}\n{result.stderr}"
    return target


MAGIC = {"gz": b"\x1f\x8b", "zst": b"\x28\xb5\x2f\xfd", "ibtb": b"IBSECTRB"}


@pytest.mark.parametrize("suffix", [".trace.gz", ".trace.zst", ".ibtb", ".ibtb.gz", ".ibtb.zst"])
def test_trace_suffix_chooses_the_encoding(suffix, tmp_path, mpi3_exe, capture_lib, engine, text_capture):
    """IBSEC_TRACE ending in .gz, .zst, .ibtb (possibly compressed) is written in that encoding: the engine
    reads it back, as text, to the same events as a text capture of the program, and the binary records are
    byte for byte what the engine's own writer makes of them."""
    captured = tmp_path / f"captured{suffix}"
    run_captured(mpi3_exe, capture_lib, captured, str(tmp_path / "report.txt"))
    data = captured.read_bytes()
    assert data.startswith(MAGIC[suffix.rsplit(".", 1)[1]]), data[:8]
    validate(engine, captured)
    back = parse(convert(engine, captured, tmp_path / "back.trace"))
    check_semantics(back)
    assert per_rank(back) == per_rank(text_capture)
    assert back.notes() == text_capture.notes()
    assert back.comms == text_capture.comms
    if suffix == ".trace.gz":
        assert gzip.decompress(data) == (tmp_path / "back.trace").read_bytes(), "the text is canonical"
    if suffix.startswith(".ibtb"):
        plain = convert(engine, captured, tmp_path / "plain.ibtb").read_bytes()
        rewritten = convert(engine, tmp_path / "back.trace", tmp_path / "rewritten.ibtb").read_bytes()
        assert plain == rewritten, "the records are those the engine writes"
        if suffix == ".ibtb":
            assert data == rewritten


# -- Facts about the hosts --

def expected_cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def test_host_note(tmp_path, capture_lib):
    """Each host's CPUs and ranks are a note; 4 ranks on a machine of fewer CPUs are oversubscribed."""
    trace = tmp_path / "small.trace"
    # Unbound, each process may run on every CPU this test may: their union is what the note counts.
    run_captured(build(tmp_path, PROGRAMS / "small_isend.c"), capture_lib, trace,
                 mpirun_env={"OMPI_MCA_hwloc_base_binding_policy": "none"})
    cpus = expected_cpus()
    hosts = [n for n in parse(trace).notes() if n.startswith("host ")]
    suffix = " oversubscribed" if 4 > cpus else ""
    assert hosts == [f"host {socket.gethostname()} cpus {cpus} ranks 4{suffix}"], hosts


def test_host_notes_of_simulated_hosts(tmp_path, capture_lib):
    """With IBSEC_CAPTURE_SIMULATE_HOSTS every process is a host of its own: one note each, none
    oversubscribed."""
    trace = tmp_path / "small.trace"
    run_captured(build(tmp_path, PROGRAMS / "small_isend.c"), capture_lib, trace,
                 env={"IBSEC_CAPTURE_SIMULATE_HOSTS": "1000"},
                 mpirun_env={"OMPI_MCA_hwloc_base_binding_policy": "none"})
    hosts = [n for n in parse(trace).notes() if n.startswith("host ")]
    name = socket.gethostname()[:40]
    assert hosts == [f"host {name}#{r} cpus {expected_cpus()} ranks 1" for r in range(4)], hosts
