"""Issue 27, item 14: a program that never waited an MPI_Isend got an exit-0 capture that failed
`ibsec-engine trace validate`: the library dropped the isend and kept its receive.

Now a request never completed before MPI_Finalize gets a `wait` there, and rank 0 keeps each message with both
its ends or not at all (traces/capture/README.md, "Requests never completed"): the replay needs a receive for
every send and a send for every receive. tests/capture/unwaited.c has one message per case (its tags):

  1  isend never waited, received                  kept, both ends
  2  exact irecv never waited, its message sent     kept, both ends
  3  MPI_ANY_SOURCE irecv never waited, then a      left out with its send (its source is unknown), and
     blocking recv on the channel                   the next message, whose ends now pair wrongly
  4  isend never waited, never received             left out
  5  isend waited, received                         kept
  6  exact irecv freed, its buffer larger           kept, with the size sent (not the buffer's)
"""

import subprocess

import pytest

from .mpi_capture import build, needs_mpi, run_captured

pytestmark = [pytest.mark.model, needs_mpi]

P2P = {"send", "recv", "isend", "irecv"}


def messages(trace_text: str) -> dict[int, list[str]]:
    """tag -> the point-to-point ops of the trace on it, as 'RANK OP BYTES', sorted."""
    lines = trace_text.splitlines()
    by_tag: dict[int, list[str]] = {}
    for line in lines[lines.index("events") + 1:]:
        words = line.split()
        if len(words) > 6 and words[3] in P2P:
            by_tag.setdefault(int(words[6]), []).append(f"{words[0]} {words[3]} {words[5]}")
    return {tag: sorted(ops) for tag, ops in by_tag.items()}


@pytest.fixture(scope="module")
def captured(tmp_path_factory):
    folder = tmp_path_factory.mktemp("n14")
    trace = folder / "unwaited.trace"
    return trace, run_captured(build("unwaited", folder), trace)


def test_n14_a_capture_with_unwaited_requests_validates(captured, engine):
    trace, run = captured
    assert run.returncode == 0, run.stderr
    validated = subprocess.run([engine, "trace", "validate", str(trace)], capture_output=True, text=True,
                               check=False, timeout=60)
    assert validated.returncode == 0, validated.stdout + validated.stderr


def test_n14_each_message_is_kept_with_both_ends_or_left_out(captured):
    trace, run = captured
    assert run.returncode == 0, run.stderr
    assert messages(trace.read_text()) == {1: ["0 isend 64", "1 recv 64"], 2: ["0 send 64", "1 irecv 64"],
                                           5: ["0 isend 64", "1 recv 64"], 6: ["0 send 50", "1 irecv 50"]}


def test_n14_stderr_says_what_was_done(captured):
    _, run = captured
    assert run.returncode == 0, run.stderr
    # Each process with requests never completed says so; rank 0's notes say what was kept and left out.
    assert "ibsec_capture: rank 0: 2 requests were never completed before MPI_Finalize" in run.stderr
    assert "ibsec_capture: rank 1: 2 requests were never completed before MPI_Finalize" in run.stderr
    notes = [line for line in run.stderr.splitlines() if line.startswith("ibsec_capture: rank 0: note: ")]
    assert any("requests were never completed before MPI_Finalize; each was given a wait" in n for n in notes), notes
    assert any("1 receive requests posted with MPI_ANY_SOURCE or MPI_ANY_TAG were never completed" in n
               for n in notes), notes
    assert any("2 point-to-point operations were left out: the other end of their message was not recorded" in n
               for n in notes), notes
    assert any("1 messages were left out: their send and receive disagree on the size" in n for n in notes), notes
