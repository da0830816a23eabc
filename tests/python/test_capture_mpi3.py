"""libibsec_capture and MPI-3: requests that share a handle, every point-to-point and collective call of MPI-3
from C and Fortran, the calls it does not record, the encodings it writes, and the facts about the hosts.

The helpers (building, running under the library, the independent parser and checks) are test_capture.py's.
"""

import subprocess
from pathlib import Path

import pytest

from conftest import run_engine
from test_capture import MPICC, PROGRAMS, check_semantics, mpirun, parse

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
    mine = [(op, args) for rank, _, _, op, args in parsed.events if rank == 0 and op != "compute"]
    assert [op for op, _ in mine] == ["isend"] * 3 + ["wait"] * 3, mine
    assert {tuple(args[:3]) for op, args in mine if op == "isend"} == {(2, 64, 105)}
    assert len({args[3] for op, args in mine if op == "isend"}) == 3, "each isend has a request of its own"
    assert not [line for line in parsed.header if line.startswith("note ")], parsed.header
    validate(engine, trace)
