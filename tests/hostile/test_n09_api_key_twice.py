"""Issue 27, item 9: `ibsec.run('paper-16', set={'traffic.load': 0.1, 'traffic': {'load': 0.02}})` ran with 0.02,
where a config file giving a key twice, once dotted and once nested, is refused (by the engine, and by ibsec for
TOML and YAML: item 18 of issue 16 fixed keys repeated in one object, not this neighbour). One function
(engine/config.py: parameter_values) now reads every table of parameters, files and the API's dicts alike."""

import pytest

import ibsec
from ibsec.engine.config import read_config
from ibsec.errors import ConfigError

pytestmark = pytest.mark.unit

TWICE = "'traffic.load' is given twice (once with dots in its name, once nested)"
SHORT = {"traffic.messages": 200}


def test_n09_set_with_a_key_dotted_and_nested_is_refused(tmp_path, engine):
    with pytest.raises(ConfigError, match=r"invalid 'set': " + TWICE.replace("(", r"\(").replace(")", r"\)")):
        ibsec.run("paper-16", set={"traffic.load": 0.1, "traffic": {"load": 0.02}, **SHORT}, folder=tmp_path)


def test_n09_set_with_a_key_nested_then_dotted_is_refused(tmp_path, engine):
    with pytest.raises(ConfigError, match="'traffic.load' is given twice"):
        ibsec.run("paper-16", set={"traffic": {"load": 0.02}, "traffic.load": 0.1, **SHORT}, folder=tmp_path)


def test_n09_a_config_dict_with_a_key_dotted_and_nested_is_refused(tmp_path, engine):
    with pytest.raises(ConfigError, match=r"invalid 'config': 'traffic.load' is given twice"):
        ibsec.run({"traffic.load": 0.1, "traffic": {"load": 0.02}, **SHORT}, folder=tmp_path)


@pytest.mark.parametrize("name, text", [
    ("twice.toml", '"traffic.load" = 0.1\n[traffic]\nload = 0.02\n'),
    ("twice.yaml", "traffic.load: 0.1\ntraffic:\n  load: 0.02\n"),
    ("twice.json", '{"traffic.load": 0.1, "traffic": {"load": 0.02}}'),
])
def test_n09_a_config_file_in_every_format_is_read_by_the_same_rule(tmp_path, name, text):
    config = tmp_path / name
    config.write_text(text)
    with pytest.raises(ConfigError, match=f"invalid '{config}': 'traffic.load' is given twice"):
        read_config(config)

