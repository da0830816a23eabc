"""Items 11, 13, 14, 19: outputs are checked before a run, written safely, and their failures reported."""

import os
import stat
import subprocess
import time

import pytest

from .engine import PAPER16, engine, refused, run

pytestmark = pytest.mark.unit
QUICK = ["--set", "traffic.messages=200", "--set", "traffic.warmup_messages=0", "-q"]


def test_item11_a_result_lost_on_a_full_standard_output_is_an_error():
    # A redirection of standard output, not an --out target: /dev/full itself is never replaced.
    with open("/dev/full", "w") as full:
        completed = subprocess.run([engine(), "run", PAPER16, *QUICK], stdout=full, stderr=subprocess.PIPE,
                                   text=True, timeout=60, check=False)
    assert completed.returncode == 2 and "cannot write standard output" in completed.stderr


# Issue 27 (items 12-17) made outputs regular files or new paths only: a device, FIFO or symlink as an output is
# refused before the run and left as it was (it was written through before).
@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
def test_item13_an_out_onto_a_device_is_refused_and_the_device_kept(tmp_path):
    device = tmp_path / "mynull"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a private null device, never the machine's
    assert refused(run("run", PAPER16, *QUICK, "--out", str(device)), "--out", "is a device")
    assert stat.S_ISCHR(os.stat(device).st_mode)


def test_item13_an_out_onto_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "results.fifo"
    os.mkfifo(fifo)
    assert refused(run("run", PAPER16, *QUICK, "--out", str(fifo), timeout=20), "--out", "is a FIFO")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_item13_an_out_onto_a_symlink_is_refused_and_the_file_it_names_kept(tmp_path):
    target = tmp_path / "target.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert refused(run("run", PAPER16, *QUICK, "--out", str(link)), "--out", "is a symbolic link")
    assert link.is_symlink() and target.read_text() == "old"


@pytest.mark.parametrize("option", ["--out", "--perf-json"])
def test_item14_an_unwritable_output_is_refused_before_the_run(tmp_path, option):
    start = time.monotonic()
    result = run("run", PAPER16, "--set", "traffic.messages=100000000", "-q", option,
                 str(tmp_path / "missing" / "r.json"))
    assert refused(result, option, "is not a folder")
    assert time.monotonic() - start < 10  # the hundred-million-message run never started


@pytest.mark.parametrize("key", ["sim.vcd", "sim.event_log"])
def test_item14_item19_an_unwritable_log_is_refused_before_elaboration(tmp_path, key):
    assert refused(run("run", PAPER16, *QUICK, "--set", f"{key}={tmp_path / 'missing' / 'x'}"), key)


def test_item14_a_directory_as_output_is_refused(tmp_path):
    assert refused(run("run", PAPER16, *QUICK, "--out", str(tmp_path)), "--out", "is a directory")


@pytest.mark.parametrize("option", ["--out", "--perf-json"])
def test_item19_an_empty_output_name_says_so(option):
    assert refused(run("run", PAPER16, *QUICK, option, ""), option, "is empty")
