"""Issue 27, item 25 (Python side): `ibsec trace info big.trace --json | head` reported the closed pipe as "a bug
in ibsec-engine". A reader that goes away ends the engine as it ends any tool (SIGPIPE, or an error exit after
EPIPE); ibsec passes that status on quietly (engine/binary.py run_to_our_stdout), for `ibsec trace
info|validate|convert` and `ibsec params`. Any other signal is still reported as a bug."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import ibsec

from .helpers import fake_engine, no_traceback

pytestmark = pytest.mark.unit

SHIPPED_TRACE = next((Path(ibsec.__file__).parent / "data" / "npb").glob("cg.S.16.*"))


def ibsec_into_a_closed_pipe(*args, env=None):
    """`ibsec ARGS` whose standard output is a pipe nobody reads any more (as after `| head` has ended)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run([sys.executable, "-m", "ibsec.cli", *args], stdout=write_end, stderr=subprocess.PIPE,
                              text=True, timeout=60, check=False, env={**os.environ, **(env or {})})
    finally:
        os.close(write_end)


def test_n25_the_engine_ending_on_a_closed_pipe_is_no_bug(engine):
    for args in (["trace", "info", str(SHIPPED_TRACE), "--json"], ["params", "--json"]):
        done = ibsec_into_a_closed_pipe(*args)
        assert "bug" not in done.stderr and no_traceback(done), done.stderr
        assert done.returncode in (0, 128 + 13, 2), (args, done.returncode, done.stderr)


def test_n25_an_engine_killed_by_sigpipe_ends_ibsec_quietly_with_141(tmp_path):
    engine = fake_engine(tmp_path, "kill -PIPE $$\n")
    done = ibsec_into_a_closed_pipe("trace", "info", str(SHIPPED_TRACE), env={"IBSEC_ENGINE": str(engine)})
    assert done.returncode == 141 and done.stderr == "", done.stderr


def test_n25_another_signal_is_still_a_bug(tmp_path):
    engine = fake_engine(tmp_path, "kill -SEGV $$\n")
    done = ibsec_into_a_closed_pipe("trace", "info", str(SHIPPED_TRACE), env={"IBSEC_ENGINE": str(engine)})
    assert done.returncode == 128 + 11 and "SIGSEGV" in done.stderr and "bug in ibsec-engine" in done.stderr
