"""Issue 16, item 13 (Python): `--out` onto a device node, FIFO or symlink replaced it with a regular file
(temporary file, then rename). Every Python writer goes through output/files.py write_output: atomic
replace for regular files and new paths only; a device, FIFO or `-` written in place; a symlink followed,
the file it names replaced and the link kept.

Only private nodes in tmp_path: never the machine's /dev/null or /dev/full as an output.
"""

import os
import stat
import threading

import pytest

from ibsec.output.files import write_output, write_text_output

from .helpers import ibsec, no_traceback


class FifoReader:
    """Reads a FIFO to its end on a thread (a FIFO's writer blocks until a reader opens it)."""

    def __init__(self, fifo):
        self.data = b""
        self.thread = threading.Thread(target=self._read, args=(fifo,), daemon=True)
        self.thread.start()

    def _read(self, fifo):
        with open(fifo, "rb") as handle:
            self.data = handle.read()

    def result(self) -> bytes:
        self.thread.join(timeout=30)
        assert not self.thread.is_alive(), "the FIFO was never written and closed"
        return self.data


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.mark.unit
def test_a_fifo_is_written_in_place(fifo):
    """Item 13: the reader gets the output, and the FIFO is still a FIFO."""
    reader = FifoReader(fifo)
    write_text_output(fifo, "hello\n")
    assert reader.result() == b"hello\n"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in fifo.parent.iterdir()) == ["fifo"]  # no temporary file left beside it


@pytest.mark.unit
def test_a_private_character_device_is_written_in_place(tmp_path):
    """Item 13: the issue's reproducer, `mknod ./mynull c 1 3`, as a Python output: still a device after."""
    node = tmp_path / "mynull"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError) as error:
        pytest.skip(f"cannot make a private device node here ({error})")
    write_text_output(node, "into the void\n")
    assert stat.S_ISCHR(os.lstat(node).st_mode)
    assert os.stat(node).st_rdev == os.makedev(1, 3)


@pytest.mark.unit
def test_a_symlink_is_followed_and_kept(tmp_path):
    """Item 13: the file the link names is replaced; the link stays a link to it."""
    target = tmp_path / "data" / "result.csv"
    target.parent.mkdir()
    target.write_text("old\n")
    link = tmp_path / "result.csv"
    link.symlink_to(target)
    write_text_output(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new\n" and not target.is_symlink()


@pytest.mark.unit
def test_a_dangling_symlink_creates_the_file_it_names(tmp_path):
    """Item 13: as open() would, and the link stays."""
    link = tmp_path / "out.json"
    link.symlink_to(tmp_path / "elsewhere.json")
    write_text_output(link, "{}\n")
    assert link.is_symlink() and (tmp_path / "elsewhere.json").read_text() == "{}\n"


@pytest.mark.unit
def test_a_regular_file_is_still_replaced_atomically(tmp_path):
    """Item 13: a regular file is written beside and renamed (a new inode), so a kill never leaves it half-written."""
    path = tmp_path / "r.csv"
    path.write_text("old\n")
    before = os.stat(path).st_ino
    write_text_output(path, "new\n")
    assert path.read_text() == "new\n" and os.stat(path).st_ino != before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv"]


@pytest.mark.unit
def test_a_failed_write_leaves_a_regular_file_as_it_was(tmp_path):
    """Item 13: the atomic path, unchanged: the old content survives a writer that fails."""
    path = tmp_path / "r.csv"
    path.write_text("old\n")

    def failing(file):
        file.write_text("half")
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError):
        write_output(path, failing)
    assert path.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["r.csv"]


@pytest.mark.unit
def test_dash_is_standard_output(capfdbinary, tmp_path, monkeypatch):
    """Item 13: '-' writes to standard output, and no file named '-' appears."""
    monkeypatch.chdir(tmp_path)
    write_text_output("-", "to stdout\n")
    assert capfdbinary.readouterr().out == b"to stdout\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.unit
def test_a_folder_is_not_replaced(tmp_path):
    """Item 13: a folder as an output is an error, not a rename over it."""
    with pytest.raises(IsADirectoryError):
        write_text_output(tmp_path, "x")


@pytest.mark.unit
def test_ibsec_trace_gen_into_a_fifo_and_through_a_symlink(tmp_path, fifo):
    """Item 13 through a command: `ibsec trace gen --out FIFO` streams into it; `--out LINK` keeps the link."""
    reader = FifoReader(fifo)
    done = ibsec("trace", "gen", "CG", "--procs", "4", "--class", "S", "--scale", "0.1", "--out", str(fifo))
    assert done.returncode == 0, done.stderr
    assert reader.result().startswith(b"ibsec-trace") and stat.S_ISFIFO(os.lstat(fifo).st_mode)

    target = tmp_path / "cg.trace"
    link = tmp_path / "link.trace"
    link.symlink_to(target)
    done = ibsec("trace", "gen", "CG", "--procs", "4", "--class", "S", "--scale", "0.1", "--out", str(link))
    assert done.returncode == 0 and no_traceback(done)
    assert link.is_symlink() and target.read_bytes().startswith(b"ibsec-trace")
