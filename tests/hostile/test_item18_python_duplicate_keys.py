"""Item 18, Python side: a sweep spec or config file with a key given twice is refused, not last-wins."""

import pytest

from ibsec.engine.config import read_config
from ibsec.errors import ConfigError
from ibsec.runs.spec import load_spec

pytestmark = pytest.mark.unit


def test_item18_a_sweep_spec_with_a_repeated_key_is_refused(tmp_path):
    spec = tmp_path / "twice.json"
    spec.write_text('{"kind": "cachesim", "kind": "run", "grid": {"keys": [10]}}')
    with pytest.raises(ConfigError, match="'kind' is given twice"):
        load_spec(spec)


def test_item18_a_config_file_with_a_repeated_key_is_refused(tmp_path):
    config = tmp_path / "twice.json"
    config.write_text('{"network": {"nodes": 16, "nodes": 8}}')
    with pytest.raises(ConfigError, match="'nodes' is given twice"):
        read_config(config)


def test_item18_a_toml_spec_with_a_repeated_key_is_refused_by_the_toml_reader(tmp_path):
    spec = tmp_path / "twice.toml"
    spec.write_text('kind = "cachesim"\nkind = "run"\n')
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_spec(spec)
