"""libibsec_capture and MPI-3: requests that share a handle, every point-to-point and collective call of MPI-3
from C and Fortran, the calls it does not record, the encodings it writes, and the facts about the hosts.

The helpers (building, running under the library, the independent parser and checks) are test_capture.py's.
"""

import subprocess
from collections import Counter
from pathlib import Path

import pytest

from conftest import run_engine
from test_capture import (ARGUMENTS, COLLECTIVES, MPICC, MPIF90, POINT_TO_POINT, PROGRAMS, Capture, Trace, capture,
                          check_semantics, mpirun, parse)

pytestmark = [pytest.mark.model, pytest.mark.skipif(
    MPICC is None,
    reason="MPI is not installed: mpicc and mpirun are needed (Debian: apt-get install libopenmpi-dev openmpi-bin)")]


def build(workdir: Path, program: Path) -> Path:
    exe = workdir / program.stem
    command = [MPICC, "-O1", "-o", str(exe), str(program)]
    built = subprocess.run(command, capture_output=True, text=True, check=False)
    assert built.returncode == 0, f"{' '.join(command)} failed:\n{built.stderr}"
    return exe


def run_captured(exe: Path, lib: str, trace: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """Runs EXE on 4 processes with the library preloaded, writing TRACE."""
    exports = ["-x", f"IBSEC_TRACE={trace}", "-x", f"LD_PRELOAD={lib}"]
    for name, value in (env or {}).items():
        exports += ["-x", f"{name}={value}"]
    run = mpirun(*exports, str(exe), *args)
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
