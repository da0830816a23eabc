"""libibsec_capture: capture real MPI programs (C and Fortran, preloaded or linked) and check their traces.

The programs in tests/capture/ count what they send, receive and call; the trace must say the same, follow
docs/trace-format.md to the byte, and pass `ibsec-engine trace validate`.
"""

import os
import re
import shutil
import subprocess
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import REPO, run_engine

PROGRAMS = REPO / "tests" / "capture"
NPROCS = 4

MPICC = shutil.which("mpicc")
MPIF90 = shutil.which("mpif90") or shutil.which("mpifort")
MPIRUN = shutil.which("mpirun")

pytestmark = [pytest.mark.model, pytest.mark.skipif(
    not (MPICC and MPIRUN),
    reason="MPI is not installed: mpicc and mpirun are needed (Debian: apt-get install libopenmpi-dev openmpi-bin)")]
needs_fortran = pytest.mark.skipif(
    MPIF90 is None, reason="no MPI Fortran compiler (mpif90/mpifort; Debian: apt-get install gfortran)")

# Arguments of each op after RANK START END OP (traces/trace_ops.def, format version 3), COUNTS not included.
ARGUMENTS = {
    "compute": ("cpu",), "send": ("peer", "bytes", "tag", "comm"), "recv": ("peer", "bytes", "tag", "comm", "posted"),
    "isend": ("peer", "bytes", "tag", "req", "comm"), "irecv": ("peer", "bytes", "tag", "req", "comm", "posted"),
    "wait": ("req",), "barrier": ("comm",),
    **{op: ("comm", "root", "bytes") for op in ("bcast", "reduce", "gather", "scatter")},
    **{op: ("comm", "bytes") for op in ("allreduce", "allgather", "alltoall", "scan", "exscan")},
    **{op: ("comm",) for op in ("alltoallv", "allgatherv", "reduce_scatter")},
    **{op: ("comm", "root") for op in ("gatherv", "scatterv")},
    "ibarrier": ("comm", "req"),
    **{op: ("comm", "root", "bytes", "req") for op in ("ibcast", "ireduce", "igather", "iscatter")},
    **{op: ("comm", "bytes", "req") for op in ("iallreduce", "iallgather", "ialltoall", "iscan", "iexscan")},
    **{op: ("comm", "req") for op in ("ialltoallv", "iallgatherv", "ireduce_scatter")},
    **{op: ("comm", "root", "req") for op in ("igatherv", "iscatterv")},
}
WITH_COUNTS = {"alltoallv", "allgatherv", "gatherv", "scatterv", "reduce_scatter", "ialltoallv", "iallgatherv",
               "igatherv", "iscatterv", "ireduce_scatter"}
COLLECTIVES = {op for op, args in ARGUMENTS.items() if args[:1] == ("comm",)}
ROOTED = {op for op, args in ARGUMENTS.items() if "root" in args}
POINT_TO_POINT = {"send", "recv", "isend", "irecv"}
NUMBER = re.compile(r"0|[1-9][0-9]*")


def mpirun(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """mpirun -np 4 on this machine, whatever its number of cores and whoever runs it."""
    command = [MPIRUN, "-np", str(NPROCS), "--oversubscribe"]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    return subprocess.run([*command, *args], capture_output=True, text=True, check=False, timeout=300,
                          env={**os.environ, **(env or {})})


@dataclass
class Capture:
    trace: Path
    report: dict[int, dict[str, int]]  # rank -> what the program counted
    run: subprocess.CompletedProcess


def capture(workdir: Path, program: Path, lib: str, linked: bool = False, env: dict | None = None) -> Capture:
    """Builds PROGRAM with the MPI compiler wrapper and runs it on 4 processes under libibsec_capture
    (LD_PRELOAD, or linked in when LINKED), with the environment variables ENV set for the processes."""
    workdir.mkdir(parents=True, exist_ok=True)
    fortran = program.suffix == ".f90"
    exe = workdir / (program.stem + ("_f" if fortran else ""))
    compiler = MPIF90 if fortran else MPICC
    command = [compiler, "-O1", "-o", str(exe), str(program)]
    if linked:
        libdir = str(Path(lib).parent)
        command += [f"-L{libdir}", f"-Wl,-rpath,{libdir}", "-libsec_capture"]
    # In WORKDIR: a Fortran compiler writes the program's module files where it runs.
    built = subprocess.run(command, capture_output=True, text=True, check=False, cwd=workdir)
    assert built.returncode == 0, f"{' '.join(command)} failed:\n{built.stderr}"

    trace, report = workdir / "program.trace", workdir / "report.txt"
    exports = ["-x", f"IBSEC_TRACE={trace}"]
    if not linked:
        exports += ["-x", f"LD_PRELOAD={lib}"]
    for name, value in (env or {}).items():
        exports += ["-x", f"{name}={value}"]
    run = mpirun(*exports, str(exe), str(report))
    assert run.returncode == 0, f"mpirun failed ({run.returncode}):\n{run.stdout}\n{run.stderr}"
    counts = {}
    for line in report.read_text().splitlines():
        words = line.split()
        assert words[0] == "rank" and len(words) % 2 == 0, line
        counts[int(words[1])] = {words[i]: int(words[i + 1]) for i in range(2, len(words), 2)}
    assert sorted(counts) == list(range(NPROCS))
    return Capture(trace, counts, run)


@dataclass
class Event:
    rank: int
    start: int
    end: int
    op: str
    args: dict[str, int]
    counts: list[int] | None = None  # ops with COUNTS

    @property
    def bytes(self) -> int:
        """BYTES, or the sum of the COUNTS."""
        return sum(self.counts) if self.counts is not None else self.args.get("bytes", 0)


@dataclass
class Trace:
    header: list[str]
    processes: int
    origin: str
    comms: dict[int, list[int]] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)

    def members(self, comm: int) -> list[int] | None:
        return list(range(self.processes)) if comm == 0 else self.comms.get(comm)

    def notes(self) -> list[str]:
        return [line[len("note "):] for line in self.header if line.startswith("note ")]


POSTED = {"exact": 0, "any": 1}


def parse(path: Path) -> Trace:
    """Reads a text trace, asserting the layout docs/trace-format.md and traces/trace_ops.def prescribe
    (version 3: canonical text, header order, arguments, counts, trailer; CPU times on the thread's clock)."""
    data = path.read_bytes()
    assert data.endswith(b"\n"), "the last line must end with a newline"
    lines = data.decode("ascii").split("\n")[:-1]
    for number, line in enumerate(lines, 1):
        assert line == " ".join(line.split(" ")) and "  " not in line and line == line.strip() and "\t" not in line, \
            f"line {number} is not single-spaced: {line!r}"
    assert lines[0] == "ibsec-trace 3"
    assert re.fullmatch(r"processes [1-9][0-9]*", lines[1]), lines[1]
    assert lines[2] == "time_unit ns"
    assert lines[3].startswith("origin "), lines[3]
    assert lines[4] == "cpu_time thread", lines[4]
    trace = Trace(header=[], processes=int(lines[1].split()[1]), origin=lines[3])
    i = 5
    while lines[i].startswith("note "):
        i += 1
    while lines[i].startswith("comm "):
        words = lines[i].split()
        assert all(NUMBER.fullmatch(w) for w in words[1:]), lines[i]
        ident, members = int(words[1]), [int(w) for w in words[2:]]
        assert ident >= 1 and ident not in trace.comms and members, lines[i]
        assert len(set(members)) == len(members) and all(0 <= m < trace.processes for m in members), lines[i]
        trace.comms[ident] = members
        i += 1
    assert lines[i] == "events", f"line {i + 1}: expected 'events', got {lines[i]!r}"
    trace.header = lines[:i + 1]
    body, trailer = lines[i + 1:-1], lines[-1]
    for line in body:
        trace.events.append(parse_event(trace, line))
    assert trailer == f"end {len(body)}", f"trailer {trailer!r} for {len(body)} events"
    return trace


def parse_event(trace: Trace, line: str) -> Event:
    words = line.split(" ")
    assert len(words) >= 4 and words[3] in ARGUMENTS, line
    op, names = words[3], ARGUMENTS[words[3]]
    counts = words.pop() if op in WITH_COUNTS else None
    assert len(words) == 4 + len(names), f"{op} takes {len(names)} arguments: {line}"
    if "posted" in names:
        assert words[-1] in POSTED, line
        words[-1] = str(POSTED[words[-1]])
    assert all(NUMBER.fullmatch(w) for w in words[:3] + words[4:]), line
    event = Event(int(words[0]), int(words[1]), int(words[2]), op, dict(zip(names, map(int, words[4:]), strict=True)))
    if op == "compute":
        assert event.args["cpu"] <= event.end - event.start, f"{line}: more CPU than wall time on the thread's clock"
    if counts is not None:
        assert all(NUMBER.fullmatch(c) for c in counts.split(",")), line
        event.counts = [int(c) for c in counts.split(",")]
        members = trace.members(event.args["comm"])
        assert members is not None and len(event.counts) == len(members), f"{line}: one count per member"
    return event


def check_semantics(trace: Trace) -> None:
    """What `trace validate` checks, independently: order, arguments, communicators, requests, message
    matching per (communicator, source, destination, tag), collective sequences."""
    previous_start = 0
    last_end = defaultdict(int)
    open_requests = defaultdict(set)
    sent, received = defaultdict(list), defaultdict(list)  # (comm, from, to, tag) -> bytes in order
    coll_sequences = defaultdict(lambda: defaultdict(list))  # comm -> rank -> [(op, root, bytes or counts)]
    for e in trace.events:
        where = f"{e.rank} {e.start} {e.end} {e.op} {e.args} {e.counts or ''}"
        assert 0 <= e.rank < trace.processes, where
        assert e.start >= previous_start, f"{where}: not sorted by START"
        assert e.end >= e.start, where
        assert e.start >= last_end[e.rank], f"{where}: starts before rank {e.rank}'s previous event ended"
        previous_start, last_end[e.rank] = e.start, e.end
        if "comm" in e.args:
            members = trace.members(e.args["comm"])
            assert members is not None and e.rank in members, f"{where}: not a member of the communicator"
            assert e.args.get("peer", e.rank) in members and e.args.get("root", e.rank) in members, where
        if e.op in POINT_TO_POINT:
            peer, tag, comm = e.args["peer"], e.args["tag"], e.args["comm"]
            if e.op in ("send", "isend"):
                sent[(comm, e.rank, peer, tag)].append(e.args["bytes"])
            else:
                received[(comm, peer, e.rank, tag)].append(e.args["bytes"])
        if "req" in e.args and e.op != "wait":
            assert e.args["req"] not in open_requests[e.rank], f"{where}: request already open"
            open_requests[e.rank].add(e.args["req"])
        elif e.op == "wait":
            assert e.args["req"] in open_requests[e.rank], f"{where}: no open request {e.args['req']}"
            open_requests[e.rank].remove(e.args["req"])
        if e.op in COLLECTIVES:
            agreed = e.counts if e.op.lstrip("i") in ("allgatherv", "reduce_scatter") else e.bytes
            if e.op.lstrip("i") in ("alltoallv", "gatherv", "scatterv"):
                agreed = None  # each member lists its own part (the root all of them)
            if e.op.lstrip("i") in ("gatherv", "scatterv") and e.rank != e.args["root"]:
                own = trace.members(e.args["comm"]).index(e.rank)
                assert all(c == 0 for i, c in enumerate(e.counts) if i != own), f"{where}: counts of others"
            coll_sequences[e.args["comm"]][e.rank].append((e.op, e.args.get("root"), agreed))
    assert not any(open_requests.values()), f"requests never waited for: {dict(open_requests)}"
    assert set(sent) == set(received), f"unmatched messages: {set(sent) ^ set(received)}"
    for key in sent:
        assert sent[key] == received[key], f"messages {key}: sent {sent[key]}, received {received[key]}"
    for comm, by_rank in coll_sequences.items():
        sequences = [by_rank.get(m, []) for m in trace.members(comm)]
        assert all(s == sequences[0] for s in sequences), f"communicator {comm}: members disagree: {sequences}"


def check_counts(trace: Trace, report: dict[int, dict[str, int]]) -> None:
    """Per rank, the trace's messages and collectives are what the program counted."""
    for rank, counted in report.items():
        mine = [e for e in trace.events if e.rank == rank]
        sends = [e.args["bytes"] for e in mine if e.op in ("send", "isend")]
        recvs = [e.args["bytes"] for e in mine if e.op in ("recv", "irecv")]
        assert len(sends) == counted["sends"], f"rank {rank}: sends"
        assert sum(sends) == counted["send_bytes"], f"rank {rank}: bytes sent"
        assert len(recvs) == counted["recvs"], f"rank {rank}: receives"
        assert sum(recvs) == counted["recv_bytes"], f"rank {rank}: bytes received"
        collectives = Counter(e.op for e in mine if e.op in COLLECTIVES)
        expected = {op: n for op, n in counted.items() if op in COLLECTIVES}
        assert dict(collectives) == expected, f"rank {rank}: collectives"


@pytest.fixture(scope="module")
def c_capture(tmp_path_factory, capture_lib) -> Capture:
    return capture(tmp_path_factory.mktemp("capture-c"), PROGRAMS / "ring_halo.c", capture_lib)


@pytest.fixture(scope="module")
def fortran_capture(tmp_path_factory, capture_lib) -> Capture:
    if MPIF90 is None:
        pytest.skip("no MPI Fortran compiler (mpif90/mpifort; Debian: apt-get install gfortran)")
    return capture(tmp_path_factory.mktemp("capture-fortran"), PROGRAMS / "ring_halo.f90", capture_lib)


def test_c_trace_header(c_capture):
    assert c_capture.trace.is_file()
    trace = parse(c_capture.trace)
    assert trace.processes == NPROCS
    assert re.fullmatch(r"origin captured libibsec_capture 1 \(Open MPI \d+\.\d+\.\d+\S*\) program=ring_halo",
                        trace.origin), trace.origin
    # MPI_Comm_split into even and odd ranks, used by an MPI_Bcast.
    assert sorted(trace.comms.values()) == [[0, 2], [1, 3]]
    assert not [note for note in trace.notes() if not note.startswith("host ")], "nothing should have been dropped"
    assert "wrote" in c_capture.run.stderr


def test_c_trace_counts(c_capture):
    trace = parse(c_capture.trace)
    assert {op: c_capture.report[0][op] for op in ("allreduce", "alltoall")} == {"allreduce": 1, "alltoall": 1}
    check_counts(trace, c_capture.report)


def test_c_trace_semantics(c_capture):
    check_semantics(parse(c_capture.trace))


def test_c_trace_validates(c_capture, engine):
    result = run_engine(engine, "trace", "validate", str(c_capture.trace))
    assert result.returncode == 0, f"ibsec-engine trace validate: {result.returncode}\n{result.stdout}{result.stderr}"


@needs_fortran
def test_fortran_trace(fortran_capture):
    """Open MPI's Fortran bindings call PMPI_* in C directly; the library's Fortran entry points record them."""
    trace = parse(fortran_capture.trace)
    assert trace.processes == NPROCS
    assert trace.origin.startswith("origin captured libibsec_capture 1 (Open MPI ")
    assert trace.origin.endswith(" program=ring_halo_f")
    assert fortran_capture.report[0]["allreduce"] == 1
    check_counts(trace, fortran_capture.report)
    check_semantics(trace)


@needs_fortran
def test_fortran_trace_validates(fortran_capture, engine):
    result = run_engine(engine, "trace", "validate", str(fortran_capture.trace))
    assert result.returncode == 0, f"ibsec-engine trace validate: {result.returncode}\n{result.stdout}{result.stderr}"


def test_linked_at_build_time(tmp_path, capture_lib):
    """Linking the library into the program (no LD_PRELOAD) records the same."""
    result = capture(tmp_path, PROGRAMS / "ring_halo.c", capture_lib, linked=True)
    trace = parse(result.trace)
    check_counts(trace, result.report)
    check_semantics(trace)


def test_hosts_with_skewed_clocks(tmp_path, capture_lib, engine):
    """Processes on different hosts read different clocks; the library measures their offsets so that the
    trace has one time line. IBSEC_CAPTURE_SIMULATE_HOSTS puts each process on a host of its own whose clock
    is rank x 1 s ahead."""
    result = capture(tmp_path, PROGRAMS / "ring_halo.c", capture_lib,
                     env={"IBSEC_CAPTURE_SIMULATE_HOSTS": "1000000000"})
    trace = parse(result.trace)
    check_counts(trace, result.report)
    check_semantics(trace)
    first_start = {}
    for e in trace.events:
        first_start.setdefault(e.rank, e.start)
    # Without the offsets, rank 3's events would start 3 s after rank 0's.
    assert max(first_start.values()) - min(first_start.values()) < 500_000_000, first_start
    result = run_engine(engine, "trace", "validate", str(result.trace))
    assert result.returncode == 0, f"ibsec-engine trace validate: {result.returncode}\n{result.stdout}{result.stderr}"


def test_unwritable_trace_fails_at_init(tmp_path, capture_lib):
    """A trace path that cannot be written stops the run at MPI_Init, with the reason on stderr."""
    exe = tmp_path / "ring_halo"
    subprocess.run([MPICC, "-o", str(exe), str(PROGRAMS / "ring_halo.c")], check=True, capture_output=True)
    missing = tmp_path / "no-such-directory" / "x.trace"
    run = mpirun("-x", f"LD_PRELOAD={capture_lib}", "-x", f"IBSEC_TRACE={missing}", str(exe))
    assert run.returncode != 0
    assert f"ibsec_capture: rank 0: IBSEC_TRACE '{missing}' cannot be written: cannot create the trace file" \
        in run.stderr
    assert not missing.parent.exists()
