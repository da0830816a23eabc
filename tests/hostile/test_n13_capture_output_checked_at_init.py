"""Issue 27, item 13: an IBSEC_TRACE that could not take the trace was found only at MPI_Finalize, after the
whole run (a directory: the rename failed, the trace was lost), or at MPI_Init with a message that named the
temporary file and not IBSEC_TRACE.

Now rank 0 checks IBSEC_TRACE in MPI_Init, before the program runs: anything but a regular file or a new name
in an existing, writable folder stops the job there (MPI_Abort, exit status 1) with one stderr line naming
IBSEC_TRACE and the path, and the program never gets past MPI_Init.
"""

import os

import pytest

from .mpi_capture import build, needs_mpi, run_captured, started

pytestmark = [pytest.mark.model, needs_mpi]


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    return build("unwaited", tmp_path_factory.mktemp("n13"))


def assert_refused_at_init(run, target, reason):
    assert run.returncode != 0, run.stderr
    assert not started(run), f"the program ran past MPI_Init:\n{run.stdout}"
    line = next((line for line in run.stderr.splitlines() if f"IBSEC_TRACE '{target}'" in line), None)
    assert line is not None and line.startswith("ibsec_capture: rank 0: "), run.stderr
    assert reason in line, line


def test_n13_a_directory_is_refused_at_init(program, tmp_path):
    folder = tmp_path / "traces"
    folder.mkdir()
    run = run_captured(program, folder)
    assert_refused_at_init(run, folder, "is a directory")
    assert os.listdir(folder) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["traces"]


def test_n13_a_missing_folder_is_refused_at_init(program, tmp_path):
    target = tmp_path / "no-such-folder" / "x.trace"
    run = run_captured(program, target)
    assert_refused_at_init(run, target, "No such file or directory")
    assert not target.parent.exists()


def test_n13_a_file_as_folder_is_refused_at_init(program, tmp_path):
    (tmp_path / "plain").write_text("not a folder\n")
    target = tmp_path / "plain" / "x.trace"
    run = run_captured(program, target)
    assert_refused_at_init(run, target, "Not a directory")
    assert (tmp_path / "plain").read_text() == "not a folder\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into any folder")
def test_n13_an_unwritable_folder_is_refused_at_init(program, tmp_path):
    folder = tmp_path / "read-only"
    folder.mkdir(mode=0o500)
    target = folder / "x.trace"
    try:
        run = run_captured(program, target)
    finally:
        folder.chmod(0o700)
    assert_refused_at_init(run, target, "Permission denied")
    assert os.listdir(folder) == []
