"""Issue 27, item 4: a 1 KB YAML "billion laughs" config (nine lists of nine aliases of the one before) spun
forever in `ibsec run`, in a sweep spec's config and in `ibsec.run`, also under a key no parameter has: every
later step walked its 10^9 values. A configuration now takes no aliases: refused at once, naming the file and
the line of the anchored value."""

import subprocess
import sys
import time

import pytest

from .helpers import ibsec, no_traceback

pytestmark = pytest.mark.unit

# On the code before the fix each of these ran until killed; a few seconds is plenty for the refusal.
PATIENCE = 30


def laughs(key: str = "traffic") -> str:
    """Nine levels of nine aliases each: 9^9 "lol" in 1 KB."""
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 9):
        items = ", ".join([f"*l{level - 1}"] * 9)
        lines.append(f"l{level}: &l{level} [{items}]")
    body = "\n".join("  " + line for line in lines)
    return f"{key}:\n{body}\n"


def check_refused(stderr: str, config) -> None:
    assert str(config) in stderr
    assert "a configuration takes no aliases (*name)" in stderr and "line 2" in stderr


@pytest.mark.parametrize("key", ["traffic", "no_such_parameter"])
def test_n04_ibsec_run_refuses_a_billion_laughs_config(tmp_path, engine, key):
    config = tmp_path / "laughs.yaml"
    config.write_text(laughs(key))
    assert len(config.read_bytes()) < 1024
    started = time.monotonic()
    done = ibsec("run", str(config), "--quiet", timeout=PATIENCE)
    assert done.returncode == 2 and no_traceback(done), done.stderr
    check_refused(done.stderr, config)
    assert time.monotonic() - started < PATIENCE


def test_n04_a_sweep_spec_naming_a_billion_laughs_config_is_refused(tmp_path, engine):
    config = tmp_path / "laughs.yaml"
    config.write_text(laughs())
    spec = tmp_path / "spec.toml"
    spec.write_text('kind = "run"\nconfig = "laughs.yaml"\n[grid]\n"traffic.load" = [0.1, 0.2]\n')
    done = ibsec("sweep", str(spec), "--out", str(tmp_path / "out"), timeout=PATIENCE)
    assert done.returncode == 2 and no_traceback(done), done.stderr
    check_refused(done.stderr, config)


def test_n04_the_python_api_refuses_a_billion_laughs_config(tmp_path, engine):
    """ibsec.run in a fresh interpreter, so that a spin fails the test at PATIENCE instead of hanging the suite."""
    config = tmp_path / "laughs.yaml"
    config.write_text(laughs("bogus"))
    program = ("import ibsec\nfrom ibsec.errors import IbsecError\n"
               "try:\n"
               f"    ibsec.run({str(config)!r}, folder={str(tmp_path / 'runs')!r})\n"
               "except IbsecError as error:\n"
               "    print(error)\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=PATIENCE,
                          check=False)
    assert done.returncode == 0 and no_traceback(done), done.stderr
    check_refused(done.stdout, config)

