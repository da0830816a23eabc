"""Issue 27, item 12: the capture library renamed its trace over whatever IBSEC_TRACE named, so a device node, a
FIFO or a symlink became a regular file (as root, IBSEC_TRACE=/dev/null would destroy the machine's /dev/null).

The writer discipline of every output: the trace goes to a regular file or a new name, never a device, FIFO,
symlink or directory, written to a temporary file beside it and renamed. Anything else is refused at MPI_Init,
with IBSEC_TRACE and the path on stderr and a non-zero exit, and is left as it was.

Only private nodes in tmp_path: never the machine's /dev/null as a target.
"""

import os
import stat

import pytest

from .mpi_capture import build, needs_mpi, run_captured, started

pytestmark = [pytest.mark.model, needs_mpi]


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    return build("unwaited", tmp_path_factory.mktemp("n12"))


def refused_at_init(run, target) -> bool:
    return (run.returncode != 0 and not started(run)
            and f"ibsec_capture: rank 0: IBSEC_TRACE '{target}'" in run.stderr)


def only(folder, *names) -> bool:
    """No temporary file or trace left beside the target."""
    return sorted(p.name for p in folder.iterdir()) == sorted(names)


def test_n12_a_fifo_is_refused_and_kept(program, tmp_path):
    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)
    run = run_captured(program, fifo)
    assert refused_at_init(run, fifo), run.stderr
    assert "is a FIFO" in run.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and only(tmp_path, "trace.fifo")


def test_n12_a_device_node_is_refused_and_kept(program, tmp_path):
    node = tmp_path / "mynull"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a private null device
    except OSError as error:
        pytest.skip(f"cannot make a private device node here ({error})")
    run = run_captured(program, node)
    assert refused_at_init(run, node), run.stderr
    assert "is a device" in run.stderr
    assert stat.S_ISCHR(os.lstat(node).st_mode) and os.lstat(node).st_rdev == os.makedev(1, 3)
    assert only(tmp_path, "mynull")


@pytest.mark.parametrize("points_to", ["a regular file", "nothing"])
def test_n12_a_symlink_is_refused_and_kept(program, tmp_path, points_to):
    target = tmp_path / "real.trace"
    if points_to == "a regular file":
        target.write_text("old\n")
    link = tmp_path / "link.trace"
    link.symlink_to(target)
    run = run_captured(program, link)
    assert refused_at_init(run, link), run.stderr
    assert "is a symbolic link" in run.stderr
    assert link.is_symlink() and os.readlink(link) == str(target)
    if points_to == "a regular file":
        assert target.read_text() == "old\n" and only(tmp_path, "link.trace", "real.trace")
    else:
        assert only(tmp_path, "link.trace")


def test_n12_a_regular_file_is_still_replaced_atomically(program, tmp_path):
    """The allowed case, unchanged: a regular file is replaced by a new one (a new inode), nothing left beside."""
    trace = tmp_path / "old.trace"
    trace.write_text("old\n")
    before = os.stat(trace).st_ino
    run = run_captured(program, trace)
    assert run.returncode == 0, run.stderr
    assert trace.read_text().startswith("ibsec-trace") and os.stat(trace).st_ino != before
    assert only(tmp_path, "old.trace")


def test_n12_a_fifo_made_during_the_run_is_not_replaced(tmp_path):
    """Checked again before the rename at MPI_Finalize: the complete trace is left beside it, and the exit is 1."""
    trace = tmp_path / "late.trace"
    run = run_captured(build("fifo_at_trace", tmp_path), trace)
    assert run.returncode != 0 and f"IBSEC_TRACE '{trace}' is a FIFO now, not replaced" in run.stderr, run.stderr
    assert stat.S_ISFIFO(os.lstat(trace).st_mode)
    left = [p for p in tmp_path.iterdir() if p.name.startswith("late.trace.tmp.")]
    assert len(left) == 1 and left[0].read_text().startswith("ibsec-trace")
