"""Issue 27, item 24: YAML configs were read by YAML 1.1 rules (`nodes: 020` ran 16 nodes, octal; `load: 5e-2` was
refused as text; `yes` was true), and a TOML config starting with a UTF-8 byte-order mark was refused where JSON
and YAML ones were taken. YAML is now read by the YAML 1.2 core schema (engine/yaml_config.py, docs/running.md),
as TOML and JSON read numbers, and every format goes through one reader that drops a leading byte-order mark."""

import json

import pytest

from ibsec.engine.config import read_config

pytestmark = pytest.mark.unit

BOM = "\ufeff"


@pytest.mark.parametrize("text, value", [
    ("020", 20),  # YAML 1.1: 16
    ("-020", -20),
    ("5e-2", 0.05),  # YAML 1.1: the text '5e-2'
    ("1E3", 1000.0),
    ("1_000", "1_000"),  # YAML 1.1: 1000; TOML's 1_000 is its own syntax, not YAML's
    ("1:20", "1:20"),  # YAML 1.1: 80 (base 60)
    ("yes", "yes"),  # YAML 1.1: true
    ("on", "on"),
    ("0b101", "0b101"),  # YAML 1.1: 5
    ("2024-01-01", "2024-01-01"),  # YAML 1.1: a date
])
def test_n24_yaml_plain_scalars_follow_yaml_1_2(tmp_path, text, value):
    config = tmp_path / "scalars.yaml"
    config.write_text(f"network:\n  nodes: {text}\n")
    assert read_config(config) == {"network": {"nodes": value}}


def test_n24_a_byte_order_mark_is_taken_alike_in_every_format(tmp_path):
    tables = {}
    for name, text in [("bom.json", '{"network": {"nodes": 16}}'), ("bom.toml", "[network]\nnodes = 16\n"),
                       ("bom.yaml", "network:\n  nodes: 16\n")]:
        config = tmp_path / name
        config.write_text(BOM + text, encoding="utf-8")
        tables[name] = read_config(config)
    assert list(tables.values()) == [{"network": {"nodes": 16}}] * 3


def test_n24_a_sweep_spec_with_a_byte_order_mark_is_taken(tmp_path):
    from ibsec.runs.spec import read_spec_file

    spec = tmp_path / "spec.json"
    spec.write_text(BOM + json.dumps({"kind": "analytic"}), encoding="utf-8")
    assert read_spec_file(spec) == {"kind": "analytic"}
