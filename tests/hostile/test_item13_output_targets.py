"""Issue 16, item 13 (Python): `--out` onto a device node, FIFO or symlink replaced it with a regular file
(temporary file, then rename). Issue 27 (second pass, one writer discipline for the engine, the package and the
capture library): an output is a regular file or a new path, written atomically, or `-`; a device, FIFO,
socket or symlink is refused and left exactly as it was (output/files.py write_output and check_output_file).

Only private nodes in tmp_path: never the machine's /dev/null or /dev/full as an output.
"""

import os
import stat

import pytest

from ibsec.errors import ConfigError
from ibsec.output.files import check_output_file, write_output, write_text_output

from .helpers import ibsec, no_traceback


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


def refused(path, lstat_before):
    """write_text_output(path) refused, naming the path, and what was there left as it was, nothing beside it."""
    with pytest.raises(ConfigError, match="an output is a regular file or a new path") as error:
        write_text_output(path, "new\n")
    assert str(path) in str(error.value)
    after = os.lstat(path)
    assert (after.st_mode, after.st_ino, after.st_rdev) == (lstat_before.st_mode, lstat_before.st_ino,
                                                            lstat_before.st_rdev)
    assert not [p for p in path.parent.iterdir() if p.name.startswith(f".{path.name}.")]  # no temporary file


@pytest.mark.unit
def test_a_fifo_is_refused_and_stays_a_fifo(fifo):
    """Item 13 / issue 27: no reader is needed, because nothing is opened: the FIFO is refused as it is."""
    refused(fifo, os.lstat(fifo))
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    with pytest.raises(ConfigError, match="is a FIFO"):
        check_output_file(fifo, "--out")


@pytest.mark.unit
def test_a_private_character_device_is_refused_and_stays_a_device(tmp_path):
    """Item 13: the issue's reproducer, `mknod ./mynull c 1 3`, as a Python output: still the device after."""
    node = tmp_path / "mynull"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError) as error:
        pytest.skip(f"cannot make a private device node here ({error})")
    refused(node, os.lstat(node))
    assert stat.S_ISCHR(os.lstat(node).st_mode) and os.stat(node).st_rdev == os.makedev(1, 3)


@pytest.mark.unit
def test_a_symlink_is_refused_and_neither_it_nor_its_file_changes(tmp_path):
    """Issue 27: writing through a link writes where the user did not look; the engine refuses it too."""
    target = tmp_path / "data" / "result.csv"
    target.parent.mkdir()
    target.write_text("old\n")
    link = tmp_path / "result.csv"
    link.symlink_to(target)
    refused(link, os.lstat(link))
    assert os.readlink(link) == str(target) and target.read_text() == "old\n"


@pytest.mark.unit
def test_a_dangling_symlink_is_refused_and_creates_nothing(tmp_path):
    link = tmp_path / "out.json"
    link.symlink_to(tmp_path / "elsewhere.json")
    refused(link, os.lstat(link))
    assert not (tmp_path / "elsewhere.json").exists()


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
def test_ibsec_trace_gen_refuses_a_fifo_and_a_symlink_before_it_runs(tmp_path, fifo):
    """Item 13 through a command: `ibsec trace gen --out FIFO` or `--out LINK` is refused with exit 2, the
    FIFO and the link as they were; `--out -` streams the trace."""
    target = tmp_path / "cg.trace"
    link = tmp_path / "link.trace"
    link.symlink_to(target)
    for out in (fifo, link):
        done = ibsec("trace", "gen", "CG", "--procs", "4", "--class", "S", "--scale", "0.1", "--out", str(out))
        assert done.returncode == 2 and no_traceback(done), done.stderr
        assert str(out) in done.stderr and "an output is a regular file or a new path" in done.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and link.is_symlink() and not target.exists()
    done = ibsec("trace", "gen", "CG", "--procs", "4", "--class", "S", "--scale", "0.1", "--out", "-")
    assert done.returncode == 0 and done.stdout.startswith("ibsec-trace"), done.stderr
