"""Issue 27, items 20 and 26: configuration files were parsed whatever their size (a TOML config holding a 50 MB
string took 6 GB and echoed the whole value in its error; a 9 MB YAML list took 253 s and 2.3 GB), and errors
quoted keys and values whole. Every config (JSON, TOML, YAML, and a sweep spec) is now read by one bounded reader
(ibsec/user_text.py: at most MAX_USER_TEXT_BYTES, refused before parsing), and a message quotes at most a short
prefix of a key or value."""

import json
import subprocess
import time

import pytest

from ibsec.engine.config import check_config_keys, read_config
from ibsec.errors import ConfigError
from ibsec.runs.spec import load_spec
from ibsec.user_text import MAX_USER_TEXT_BYTES

from .helpers import ibsec, no_traceback

pytestmark = pytest.mark.unit

OVER = MAX_USER_TEXT_BYTES + 1
# A message names the file and the key, and quotes at most a short excerpt: far below this.
LONGEST_MESSAGE = 400


def over_the_bound(name: str) -> str:
    """A config just over the bound, cheap for any parser (a comment, or a long string), so that the code before
    the fix takes it quickly too and the test fails on what it accepts, not on its time."""
    if name.endswith(".toml"):
        return f'[nic]\nsecurity = "{"x" * OVER}"\n'
    if name.endswith(".yaml"):
        return f"# {'x' * OVER}\nnetwork:\n  nodes: 16\n"
    return f'{{"nic": {{"security": "{"x" * OVER}"}}}}'


@pytest.mark.parametrize("name", ["big.toml", "big.yaml", "big.json"])
def test_n20_26_a_config_over_the_bound_is_refused_before_it_is_parsed(tmp_path, name):
    config = tmp_path / name
    config.write_text(over_the_bound(name))
    with pytest.raises(ConfigError) as refused:
        read_config(config)
    message = str(refused.value)
    assert f"at most {MAX_USER_TEXT_BYTES} bytes" in message and str(config) in message
    assert len(message) < LONGEST_MESSAGE


def test_n20_26_ibsec_run_refuses_a_long_yaml_list_at_once(tmp_path, engine):
    """The shape of item 26 (a YAML list of numbers), 2 MiB: minutes of parsing before the fix."""
    config = tmp_path / "list.yaml"
    config.write_text("trace:\n  jobs: [" + ", ".join(["1"] * (OVER // 3 + 1)) + "]\n")
    started = time.monotonic()
    done = ibsec("run", str(config), "--quiet", timeout=60)
    assert done.returncode == 2 and no_traceback(done), done.stderr
    assert f"at most {MAX_USER_TEXT_BYTES} bytes" in done.stderr and str(config) in done.stderr
    assert time.monotonic() - started < 20
    assert len(done.stderr) < LONGEST_MESSAGE


def test_n20_26_a_sweep_spec_over_the_bound_is_refused(tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(f'kind = "run"\ndescription = "{"x" * OVER}"\n')
    with pytest.raises(ConfigError, match=f"at most {MAX_USER_TEXT_BYTES} bytes") as refused:
        load_spec(spec)
    assert len(str(refused.value)) < LONGEST_MESSAGE


def test_n20_a_long_unknown_key_is_quoted_short(tmp_path, engine):
    config = tmp_path / "key.toml"
    config.write_text(f'[nic]\n{"k" * 500_000} = 1\n')
    with pytest.raises(ConfigError, match="unknown parameter") as refused:
        check_config_keys(config, read_config(config))
    assert len(str(refused.value)) < LONGEST_MESSAGE and "500004 characters" in str(refused.value)


def test_n20_a_long_value_no_parameter_takes_is_quoted_short(tmp_path):
    config = tmp_path / "value.yaml"
    config.write_text(f"nic:\n  security: !!binary {'QUFB' * 200_000}\n")
    with pytest.raises(ConfigError, match="'nic.security': b'AAAAA") as refused:
        read_config(config)
    assert len(str(refused.value)) < LONGEST_MESSAGE


def test_n20_the_engine_quotes_a_long_value_short(tmp_path, engine):
    """The engine's own messages (a JSON config it reads itself, a value it refuses) are cut as well
    (core/errors.cpp)."""
    config = tmp_path / "long.json"
    config.write_text(json.dumps({"nic": {"security": "x" * 900_000}}))
    done = subprocess.run([engine, "run", str(config), "--quiet"], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 2 and "invalid 'nic.security': unknown card configuration 'xxx" in done.stderr
    assert len(done.stderr) < 2500 and "characters)" in done.stderr
