"""Issue 27, items 2 and 6: `ibsec collect DIR` read every *.json unbounded (a link to /dev/zero: MemoryError at
11 GB) and blocked forever on a FIFO named *.json. Every result file now goes through the one bounded reader
(ibsec/input_files.py): a folder scan opens without blocking and skips, with a warning naming it, anything that
is not a regular file (a device, FIFO or socket cannot be a result the engine wrote, and one stray node should
not stop the gathering of a sweep's results); a file is refused beyond a byte bound before it is read.

The old code is run under a 4 GiB address-space limit, so that its unbounded read fails instead of filling the
machine's memory."""

import os
import resource

import pytest

from .helpers import REPO, no_traceback
from .helpers import ibsec as run_ibsec

pytestmark = pytest.mark.unit

RESULT = REPO / "tests" / "golden" / "expected" / "attack" / "result.json"
MEMORY_LIMIT = 4 * 2**30
MAX_RESULT_BYTES = 64 * 2**20  # runs/collect.py's bound (imported where the tests need it, so that the old code,
# without it, can be run)


def _limited_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def collect(*args, timeout=60):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "ibsec.cli", "collect", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, preexec_fn=_limited_memory, check=False)


@pytest.fixture
def runs(tmp_path):
    """A sweep's runs/ folder with one sound result."""
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "a.json").write_bytes(RESULT.read_bytes())
    return folder


def test_n02_a_link_to_dev_zero_in_a_folder_is_skipped_with_a_warning(runs, tmp_path, engine):
    (runs / "z.json").symlink_to("/dev/zero")
    done = collect(runs, "--out", tmp_path / "t.csv")
    assert done.returncode == 0 and no_traceback(done), done.stderr
    assert f"warning: {runs / 'z.json'}: a device, not a regular file" in done.stderr
    assert len((tmp_path / "t.csv").read_text().splitlines()) == 2  # header and the one result


def test_n02_a_link_to_dev_zero_named_is_read_only_up_to_the_bound(tmp_path):
    link = tmp_path / "z.json"
    link.symlink_to("/dev/zero")
    done = collect(link, "--out", tmp_path / "t.csv")
    assert done.returncode == 2 and no_traceback(done), done.stderr
    assert f"{link}: more than {MAX_RESULT_BYTES} bytes" in done.stderr


def test_n06_a_fifo_in_a_folder_is_skipped_not_waited_for(runs, tmp_path, engine):
    os.mkfifo(runs / "f.json")
    done = collect(runs, "--out", tmp_path / "t.csv", timeout=60)
    assert done.returncode == 0 and no_traceback(done), done.stderr
    assert f"warning: {runs / 'f.json'}: a FIFO, not a regular file" in done.stderr


def test_n02_a_regular_file_beyond_the_bound_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:
        handle.truncate(MAX_RESULT_BYTES + 1)  # sparse: no disk, and never read
    done = run_ibsec("collect", str(big), "--out", str(tmp_path / "t.csv"))
    assert done.returncode == 2 and no_traceback(done), done.stderr
    assert f"{big}: {MAX_RESULT_BYTES + 1} bytes; an ibsec-engine result is at most" in done.stderr


# ---- the reader itself ----------------------------------------------------------

def test_n02_the_collect_bound_is_the_one_tested():
    from ibsec.runs.collect import MAX_RESULT_BYTES as bound

    assert bound == MAX_RESULT_BYTES


def test_n02_the_reader_bounds_a_stream_it_was_given(tmp_path):
    from ibsec.input_files import InputError, read_input_bytes

    link = tmp_path / "z"
    link.symlink_to("/dev/zero")
    with pytest.raises(InputError, match=r"more than 1000 bytes; a test input is at most 1000 bytes"):
        read_input_bytes(link, "a test input", max_bytes=1000)


def test_n06_the_reader_refuses_special_files_a_scan_found_without_opening_them_for_long(tmp_path):
    from ibsec.input_files import NotARegularFile, read_input_bytes

    os.mkfifo(tmp_path / "f")
    with pytest.raises(NotARegularFile, match="a FIFO, not a regular file"):
        read_input_bytes(tmp_path / "f", found_by_scan=True)


def test_n02_the_reader_names_the_file_and_line(tmp_path):
    from ibsec.input_files import InputError, read_input_text

    path = tmp_path / "lines.txt"
    path.write_bytes(b"ok\n" + b"x" * 50 + b"\nok\n")
    with pytest.raises(InputError, match=rf"^{path}:2: a line of 50 bytes, longer than the 10 allowed$"):
        read_input_text(path, max_line_bytes=10)
    path.write_bytes(b"ok\nbad \xff\n")
    with pytest.raises(InputError, match=rf"^{path}:2: not UTF-8 text"):
        read_input_text(path)
    with pytest.raises(InputError, match=rf"^{tmp_path}: a folder, not an input file$"):
        read_input_text(tmp_path)
