"""Issue 16, item 3: an expected error is a message and exit code 2 (130 for Ctrl-C); a traceback is for bugs.

Output paths under a regular file, or that are folders, were an OSError traceback in every command that writes.
"""

import argparse
import errno
import json

import pytest

from ibsec.cli.main import run_command
from ibsec.engine.binary import EngineError
from ibsec.errors import ConfigError

from .helpers import PAPER_16, ibsec, no_traceback, recording_engine


@pytest.fixture
def afile(tmp_path):
    """A regular file: no output can be made under it."""
    path = tmp_path / "afile"
    path.write_text("not a folder\n")
    return path


def sweep_spec(tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"kind": "analytic", "set": {"model": "hitrate", "entries": 3, "on_mean": 1,
                                                          "off_mean": 1}, "grid": {"processes": [4, 5]}}))
    return str(spec)


COMMANDS = {
    "run --out": lambda t, out: ["run", str(PAPER_16), "--out", out],
    "run --perf-json": lambda t, out: ["run", str(PAPER_16), "--perf-json", out],
    "run --sweep-load --out": lambda t, out: ["run", str(PAPER_16), "--sweep-load", "0.1,0.2", "--out", out],
    "sweep --out": lambda t, out: ["sweep", sweep_spec(t), "--out", out],
    "figures --out": lambda t, out: ["figures", "fig3", "--out", out],
    "study --out": lambda t, out: ["study", "--out", out],
    "reproduce --out": lambda t, out: ["reproduce", "--quick", "--out", out],
    "trace gen --out": lambda t, out: ["trace", "gen", "CG", "--procs", "4", "--class", "S", "--out", out],
    "trace gen-default --out": lambda t, out: ["trace", "gen-default", "--out", out],
    "cachesim --sweep --out": lambda t, out: ["cachesim", "--sweep", "keys=10,20", "--out", out],
    "hwcost --out": lambda t, out: ["hwcost", "--out", out],
    "compare-schedulers --out": lambda t, out: ["compare-schedulers", "--out", out],
}


@pytest.mark.unit
@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_output_under_a_regular_file_is_a_message_and_exit_2(command, tmp_path, afile, monkeypatch):
    """Item 3: `--out afile/x` (afile a regular file) in every command that writes: exit 2, the path named,
    no traceback, and no engine run."""
    fake, calls = recording_engine(tmp_path)
    monkeypatch.setenv("IBSEC_ENGINE", str(fake))
    done = ibsec(*COMMANDS[command](tmp_path, str(afile / "x")))
    assert done.returncode == 2, done.stderr
    assert no_traceback(done) and str(afile) in done.stderr
    assert not calls.exists()


@pytest.mark.unit
@pytest.mark.parametrize("command", ["run --out", "run --perf-json", "cachesim --sweep --out", "hwcost --out",
                                     "trace gen --out"])
def test_an_output_file_that_is_a_folder_is_a_message_and_exit_2(command, tmp_path, monkeypatch):
    """Item 3: an output file that is an existing folder: exit 2 naming it, no traceback."""
    fake, calls = recording_engine(tmp_path)
    monkeypatch.setenv("IBSEC_ENGINE", str(fake))
    folder = tmp_path / "folder"
    folder.mkdir()
    done = ibsec(*COMMANDS[command](tmp_path, str(folder)))
    assert done.returncode == 2 and no_traceback(done)
    assert "is a folder, not a file" in done.stderr and not calls.exists()


@pytest.mark.unit
def test_an_empty_output_name_is_not_called_a_folder(tmp_path, monkeypatch):
    """Item 3 (and 19: `--out ''` said "is a directory")."""
    fake, _ = recording_engine(tmp_path)
    monkeypatch.setenv("IBSEC_ENGINE", str(fake))
    done = ibsec("run", str(PAPER_16), "--out", "")
    assert done.returncode == 2 and "an empty file name" in done.stderr


def command_raising(error: BaseException) -> argparse.Namespace:
    def func(args):
        raise error

    return argparse.Namespace(func=func)


@pytest.mark.unit
@pytest.mark.parametrize("error,code,message", [
    (OSError(errno.ENOTDIR, "Not a directory", "afile/r.json"), 2, "ibsec: error: afile/r.json: Not a directory"),
    (PermissionError(errno.EACCES, "Permission denied", "/ro/r.json"), 2, "/ro/r.json: Permission denied"),
    (OSError(errno.ENOSPC, "No space left on device"), 2, "No space left on device"),
    (ConfigError("--out", "bad"), 2, "ibsec: error: invalid '--out': bad"),
    (EngineError("the network did not drain", 3), 3, "the network did not drain"),
    (KeyboardInterrupt(), 130, "ibsec: error: interrupted"),
])
def test_one_handler_turns_every_expected_error_into_a_message(error, code, message, capsys):
    """Item 3: the top-level handler (cli/main.py run_command): OSError, ConfigError, IbsecError, EngineError,
    KeyboardInterrupt each become one line on stderr and an exit code."""
    assert run_command(command_raising(error)) == code
    assert message in capsys.readouterr().err


@pytest.mark.unit
def test_a_bug_is_still_a_traceback():
    """Item 3: anything else is a bug in ibsec and is not hidden behind a message."""
    with pytest.raises(ZeroDivisionError):
        run_command(command_raising(ZeroDivisionError("a bug")))
