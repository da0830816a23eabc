"""The NAS generators against what the real NPB programs do.

The constants below were measured from traces that libibsec_capture recorded
of the NPB 3.4 MPI programs (unmodified, gfortran 12 -O2, Open MPI 4.1.4,
16 processes on the project's two-core development machine, `mpirun
--oversubscribe -np 16 ./bin/BENCH.CLASS.x`), counted with
ibsec.workloads.compare: point-to-point messages and their bytes (messages
from a process to itself excluded: they cross no network, and the capture
library leaves them out), sender -> receiver pairs, collective calls per
operation and communicator (`world`, or `all` for a split or dup of it with
every process), and the CPU time each process computed between its MPI calls
(the mean over the processes; trace format version 3), which the machine
model (workloads/machine.py) is fitted to.

test_generated_traces_match_the_shipped_captures compares each real trace
the package ships (ibsec/data/npb/, docs/real-traces.md) with its generated
counterpart through compare_with_real.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from conftest import run_engine
from ibsec.paper.real_workloads import GENERATED, shipped_real_traces
from ibsec.workloads import generate, make_params
from ibsec.workloads.compare import compare_with_real, summarize_workload

SHIPPED = shipped_real_traces(("S", "W", "A"))


class Real(NamedTuple):
    messages: int
    message_bytes: int
    pairs: int
    compute_s: float  # CPU time per process between MPI calls, the mean over the processes
    collectives: dict[str, int]  # "op communicator" -> calls


# Captures of NPB 3.4 on 16 processes (Open MPI 4.1.4), see the module's docstring.
REAL = {
    ("CG", "S"): Real(45440, 51472384, 44, 0.0098, {"barrier world": 1, "bcast world": 1, "reduce world": 1}),
    ("CG", "W"): Real(45440, 256477184, 44, 0.0281, {"barrier world": 1, "bcast world": 1, "reduce world": 1}),
    ("CG", "A"): Real(45440, 512733184, 44, 0.0804, {"barrier world": 1, "bcast world": 1, "reduce world": 1}),
    ("MG", "S"): Real(6704, 3890944, 72, 0.0017, {"allreduce all": 88, "barrier all": 6, "bcast all": 7,
                                                 "reduce all": 1}),
    ("MG", "W"): Real(9584, 53196544, 72, 0.0165, {"allreduce all": 88, "barrier all": 6, "bcast all": 7,
                                                  "reduce all": 1}),
    ("MG", "A"): Real(11024, 206992128, 72, 0.1010, {"allreduce all": 88, "barrier all": 6, "bcast all": 7,
                                                    "reduce all": 1}),
    ("LU", "S"): Real(27108, 9915648, 48, 0.0051, {"allreduce world": 10, "barrier world": 2, "bcast world": 10}),
    ("LU", "W"): Real(462516, 456665760, 48, 0.3274, {"allreduce world": 10, "barrier world": 2,
                                                      "bcast world": 10}),
    ("LU", "A"): Real(759204, 1461906432, 48, 1.7711, {"allreduce world": 10, "barrier world": 2,
                                                       "bcast world": 10}),
    ("SP", "S"): Real(38880, 44421120, 96, 0.0111, {"allreduce all": 2, "barrier all": 1, "barrier world": 1,
                                                   "bcast all": 4, "reduce all": 1}),
    ("SP", "W"): Real(154080, 1818261504, 96, 0.3185, {"allreduce all": 2, "barrier all": 1, "barrier world": 1,
                                                       "bcast all": 4, "reduce all": 1}),
    ("SP", "A"): Real(154080, 5922579456, 96, 1.8409, {"allreduce all": 2, "barrier all": 1, "barrier world": 1,
                                                       "bcast all": 4, "reduce all": 1}),
    ("BT", "S"): Real(23520, 52208640, 96, 0.0106, {"allreduce all": 2, "barrier all": 1, "barrier world": 1,
                                                   "bcast all": 6, "reduce all": 1}),
    ("BT", "W"): Real(77280, 564658560, 96, 0.1476, {"allreduce all": 2, "barrier all": 1, "barrier world": 1,
                                                    "bcast all": 6, "reduce all": 1}),
    ("BT", "A"): Real(77280, 3533592960, 96, 2.8205, {"allreduce all": 2, "barrier all": 1, "barrier world": 1,
                                                      "bcast all": 6, "reduce all": 1}),
    ("FT", "S"): Real(0, 0, 0, 0.0037, {"alltoall all": 8, "barrier world": 1, "bcast world": 5, "reduce world": 6}),
    ("FT", "W"): Real(0, 0, 0, 0.0086, {"alltoall all": 8, "barrier world": 1, "bcast world": 5, "reduce world": 6}),
    ("FT", "A"): Real(0, 0, 0, 0.2165, {"alltoall all": 8, "barrier world": 1, "bcast world": 5, "reduce world": 6}),
}

MESSAGE_TOLERANCE = 0.02  # the generators' promise on message counts
COMPUTE_TOLERANCE = 0.10  # ... and on each process's computation (the fit is exact; the gaps' noise is not)


def tier(cls: str):
    """Class S is quick; W and A build hundreds of thousands of messages."""
    return pytest.mark.unit if cls == "S" else pytest.mark.model


CASES = [pytest.param(bench, cls, marks=tier(cls), id=f"{bench}-{cls}") for bench, cls in REAL]


@pytest.mark.parametrize("bench,cls", CASES)
def test_messages_and_collectives_match_the_capture(bench, cls):
    real = REAL[(bench, cls)]
    got = summarize_workload(make_params(bench, 16, cls, 1.0, 1))
    assert got.messages == pytest.approx(real.messages, rel=MESSAGE_TOLERANCE)
    assert got.message_bytes == pytest.approx(real.message_bytes, rel=MESSAGE_TOLERANCE)
    assert len(got.pairs) == real.pairs
    assert {f"{op} {comm}": n for (op, comm), n in got.collectives.items()} == real.collectives


@pytest.mark.parametrize("bench,cls", CASES)
def test_computation_per_process_is_the_captures(bench, cls):
    """The generated run computes, per process, the CPU time the real one did: the machine model's costs are
    the capture's CPU time, so the generated run is one with a CPU per process (docs/workloads.md)."""
    got = summarize_workload(make_params(bench, 16, cls, 1.0, 1))
    assert got.compute_ns / 16 * 1e-9 == pytest.approx(REAL[(bench, cls)].compute_s, rel=COMPUTE_TOLERANCE)


@pytest.mark.unit
def test_lu_class_s_runs_on_16_processes_with_3_points_per_process(tmp_path):
    """NPB 3.4 runs LU class S (12^3) on a 4 x 4 grid: subdomain needs 3 points per axis, not 4."""
    params = make_params("LU", 16, "S", 1.0, 1)
    result = generate(params, tmp_path / "lu.trace")
    # The capture records no message a process sends itself: compare the messages to other processes.
    assert result.stats.application_messages - result.stats.self_messages == REAL[("LU", "S")].messages


def shipped_captures() -> list:
    # Model tier at every class: a comparison generates and reads a whole benchmark's trace (2-3 s at class S).
    return [pytest.param(bench, path, marks=pytest.mark.model, id=f"{bench}-{cls}")
            for (bench, cls), path in SHIPPED.items() if bench in GENERATED]


@pytest.mark.parametrize("bench,capture", shipped_captures())
def test_generated_traces_match_the_shipped_captures(tmp_path, engine, bench, capture):
    cls = capture.name.split(".")[1].upper()
    real = tmp_path / "real.trace.gz"  # the comparison reads text traces
    assert run_engine(engine, "trace", "convert", str(capture), str(real)).returncode == 0
    generated = tmp_path / "generated.trace.gz"
    generate(make_params(bench, 16, cls, 1.0, 1), generated)
    result = compare_with_real(generated, real)
    assert result.ok, result.text()
    assert result.same_call_sequences() == 16, result.text()
