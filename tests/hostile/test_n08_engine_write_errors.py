"""Issue 27, item 8: write errors of every output are fatal, the VCD's included.

On a full disk `sim.vcd` was cut at 512 KiB and the run exited 0: SystemC writes the VCD itself and never says
that a write failed. It now writes into a FIFO whose content the engine copies into the output
(core/piped_output.h), so the VCD is checked, written atomically and its write errors reported like any output's.

A full disk is made without privileges, portably: a file size limit (RLIMIT_FSIZE, as `ulimit -f`) with SIGXFSZ
ignored, so that a write past the limit fails with EFBIG, as one on a full disk fails with ENOSPC. The limit holds
for regular files only: the result on standard output (a pipe) is not affected.
"""

import resource
import signal
import subprocess

import pytest

from .engine import PAPER16, REPO, engine, refused

pytestmark = pytest.mark.unit
QUICK = ["--set", "traffic.messages=200", "--set", "traffic.warmup_messages=0", "-q"]


def run_with_file_limit(limit_bytes: int, *arguments: str) -> subprocess.CompletedProcess:
    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG from write() instead of a signal
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    return subprocess.run([engine(), *arguments], capture_output=True, text=True, timeout=120, check=False,
                          preexec_fn=limit)


def test_n08_a_vcd_cut_short_by_a_write_error_is_an_error_and_leaves_nothing(tmp_path):
    """Item 8: the issue's case. The VCD of this run is far above 64 KiB."""
    result = run_with_file_limit(64 << 10, "run", PAPER16, *QUICK, "--set", f"sim.vcd={tmp_path / 'w'}")
    assert refused(result, "sim.vcd", f"writing '{tmp_path / 'w.vcd'}' failed")
    assert list(tmp_path.iterdir()) == []  # no cut VCD, no temporary


def test_n08_the_same_run_without_the_limit_writes_the_vcd(tmp_path):
    """Item 8: the counterpart: the limit is what made the run fail."""
    result = run_with_file_limit(resource.RLIM_INFINITY, "run", PAPER16, *QUICK, "--set",
                                 f"sim.vcd={tmp_path / 'w'}")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "w.vcd").stat().st_size > 64 << 10


@pytest.mark.parametrize("output", [["--set", "sim.event_log={}"], ["--out", "{}"],
                                    ["--set", "sim.detail=links", "--out", "{}"]])
def test_n08_every_output_write_error_is_an_error(tmp_path, output):
    """Item 8's neighbours, which held before (kept as guards): the per-packet log, the result and its tables go
    through the same checked writer as the VCD now does."""
    arguments = [a.format(tmp_path / "r.json") for a in output]
    result = run_with_file_limit(1024, "run", PAPER16, *QUICK, *arguments)
    assert result.returncode == 2 and "failed" in result.stderr
    assert not any(p.name.startswith("r.json") for p in tmp_path.iterdir())


def test_n08_trace_convert_write_error_is_an_error(tmp_path):
    """Item 8, found on its neighbour: `trace convert` wrote through boost::iostreams straight into the file's
    buffer, so the stream never saw its write errors: a trace cut at the limit was left, and the exit was 0. Every
    output's buffer now remembers a failed write (core/atomic_file.cpp, CheckedFileBuffer)."""
    out = tmp_path / "mg.trace"
    result = run_with_file_limit(1024, "trace", "convert", str(REPO / "tests" / "golden" / "inputs" / "mg.trace.gz"),
                                 str(out))
    assert result.returncode == 2 and "failed" in result.stderr
    assert list(tmp_path.iterdir()) == []
