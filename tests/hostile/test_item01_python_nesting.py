"""Issue 16, item 1 (its Python part): a nested sweep spec gave a Python RecursionError. Sweep specs and the
config files ibsec reads itself say "nested too deeply" instead. (The engine's own config flattening is the
C++ side's: test_engine_*.)"""

import pytest

from .helpers import ibsec, no_traceback

DEPTH = 20000


@pytest.fixture
def nested_json(tmp_path):
    path = tmp_path / "d.json"
    path.write_text('{"a":' * DEPTH + "1" + "}" * DEPTH + "\n")
    return path


@pytest.mark.unit
def test_a_deeply_nested_json_spec(nested_json, tmp_path):
    """Item 1: `ibsec sweep d.json` with objects nested 20 000 deep."""
    done = ibsec("sweep", str(nested_json), "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and no_traceback(done)
    assert "invalid 'SPEC': nested too deeply" in done.stderr


@pytest.mark.unit
def test_a_deeply_nested_toml_spec(tmp_path):
    """Item 1: the same in TOML (arrays nested 20 000 deep)."""
    spec = tmp_path / "d.toml"
    spec.write_text("a = " + "[" * DEPTH + "]" * DEPTH + "\n")
    done = ibsec("sweep", str(spec), "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and no_traceback(done)
    assert "nested too deeply" in done.stderr


@pytest.mark.unit
def test_a_deeply_nested_config_read_by_ibsec(nested_json, tmp_path):
    """Item 1: a load sweep reads its config in Python (read_config) before any engine run."""
    done = ibsec("run", str(nested_json), "--sweep-load", "0.1", "--out", str(tmp_path / "x"))
    assert done.returncode == 2 and no_traceback(done)
    assert "nested too deeply" in done.stderr
