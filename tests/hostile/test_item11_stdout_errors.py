"""Issue 16, item 11: write errors on standard output were ignored (`ibsec run $C > /dev/full` exited 0 with
the result lost). ibsec flushes and checks its standard output at exit, and the engine's result passes
through it.

/dev/full is only opened here as a standard output, as a shell's `> /dev/full` does: never given as --out.
"""

import os

import pytest

from .helpers import PAPER_16, ibsec, no_traceback

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")

QUICK_RUN = ["--set", "network.nodes=2", "--set", "traffic.messages=20", "--set", "traffic.warmup_messages=0"]


def ibsec_to_full_disk(*args: str):
    with open("/dev/full", "w") as full:
        return ibsec(*args, stdout=full, timeout=120)


@pytest.mark.unit
def test_a_printed_result_lost_to_a_full_disk_is_an_error():
    """Item 11: a command that prints its result (here `ibsec analytic hitrate`)."""
    done = ibsec_to_full_disk("analytic", "hitrate", "--entries", "3", "--processes", "4", "--on-mean", "1",
                              "--off-mean", "1", "--json")
    assert done.returncode == 2 and no_traceback(done)
    assert "No space left on device" in done.stderr


@pytest.mark.unit
def test_an_engine_result_lost_to_a_full_disk_is_an_error(engine):
    """Item 11: `ibsec run $C > /dev/full`: the engine's result JSON goes through ibsec's checked stdout."""
    done = ibsec_to_full_disk("run", str(PAPER_16), *QUICK_RUN, "--quiet")
    assert done.returncode != 0 and no_traceback(done)
    assert "No space left on device" in done.stderr


@pytest.mark.unit
def test_the_result_still_reaches_a_working_stdout(engine):
    """Item 11: the pass-through keeps the result byte for byte."""
    import json

    done = ibsec("run", str(PAPER_16), *QUICK_RUN, "--quiet")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["statistics"]["packets_measured"] > 0


class BufferedFullStdout:
    """A block-buffered standard output on a full disk: writes succeed, the flush at exit fails."""

    def __init__(self, fd: int):
        self.fd = fd

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        raise OSError(28, "No space left on device")

    def fileno(self) -> int:
        return self.fd


@pytest.mark.unit
def test_a_failed_flush_at_exit_is_an_error(tmp_path, monkeypatch, capsys):
    """Item 11: the result is written to a buffer and lost only when it is flushed, after the command ended."""
    from ibsec.cli.main import main

    with open(tmp_path / "stands-for-stdout", "w") as own:  # what the failed stdout is pointed away from
        monkeypatch.setattr("sys.stdout", BufferedFullStdout(own.fileno()))
        code = main(["analytic", "hitrate", "--entries", "3", "--processes", "4", "--on-mean", "1",
                     "--off-mean", "1"])
    assert code == 2
    assert "ibsec: error: cannot write standard output: No space left on device" in capsys.readouterr().err
