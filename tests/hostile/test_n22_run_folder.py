"""Issue 27, item 22: `ibsec.run(folder=<a read-only path or a file>)` raised a raw OSError, not the documented
IbsecError. The folder is checked as the commands check an output folder (output/files.py check_output_folder),
before anything runs: a ConfigError naming `folder`. The same for `ibsec.sweep(out=...)`."""

import os

import pytest

import ibsec
from ibsec.errors import ConfigError

pytestmark = pytest.mark.unit


def _not_writable(tmp_path):
    """A folder this process cannot write: read-only for a user; for root (who may write anything), /proc."""
    if os.geteuid() == 0:
        return "/proc/ibsec-runs"
    folder = tmp_path / "read-only"
    folder.mkdir(mode=0o555)
    return folder / "runs"


@pytest.fixture(params=["a file", "under a file", "not writable"])
def bad_folder(request, tmp_path):
    file = tmp_path / "afile"
    file.write_text("x")
    return {"a file": file, "under a file": file / "runs", "not writable": _not_writable(tmp_path)}[request.param]


def test_n22_run_into_a_folder_that_cannot_be_one(bad_folder):
    with pytest.raises(ConfigError) as raised:
        ibsec.run("paper-16", folder=bad_folder)
    assert raised.value.field == "folder"


def test_n22_sweep_into_a_folder_that_cannot_be_one(bad_folder):
    spec = {"kind": "analytic", "grid": {"processes": [4]}, "set": {"model": "hitrate", "entries": 64,
                                                                     "preset": "BT"}}
    with pytest.raises(ConfigError) as raised:
        ibsec.sweep(spec, out=bad_folder, workers=1)
    assert raised.value.field == "out"
