"""Issue 27, item 21: errors the engine found in a TOML or YAML config (`load = nan`, `.inf`, a key given dotted and
nested) named the temporary JSON twin ibsec wrote for it (/tmp/ibsec-config-.../x.toml.<digest>.json) and a line
and column in that twin, not the user's file. Everything the engine's JSON reader refuses is now checked before
the twin is written (engine/config.py: parameter_values), and named by the user's file and the key."""

import pytest

from .helpers import ibsec, no_traceback

pytestmark = pytest.mark.unit

DEEP = "traffic:\n  load:\n" + "".join("  " * (level + 2) + "a:\n" for level in range(40)) + "  " * 42 + "b: 1\n"

CASES = [
    ("nan.toml", "[traffic]\nload = nan\n", "'traffic.load': nan is not a number a parameter takes"),
    ("inf.toml", "[traffic]\nload = -inf\n", "'traffic.load': -inf is not a number a parameter takes"),
    ("inf.yaml", "traffic:\n  load: .inf\n", "'traffic.load': inf is not a number a parameter takes"),
    ("nan.yaml", "traffic:\n  load: .NaN\n", "'traffic.load': nan is not a number a parameter takes"),
    ("twice.toml", '"traffic.load" = 0.1\n[traffic]\nload = 0.02\n', "'traffic.load' is given twice"),
    ("twice.yaml", "traffic.load: 0.1\ntraffic:\n  load: 0.02\n", "'traffic.load' is given twice"),
    ("deep.yaml", DEEP, "nested deeper than 32 levels"),
    ("huge.yaml", f"network:\n  nodes: {'9' * 400}\n", "'network.nodes': 99999"),
    ("surrogate.yaml", 'nic:\n  security: "\\ud800"\n', "line 2"),
]


@pytest.mark.parametrize("name, text, problem", CASES, ids=[case[0] for case in CASES])
def test_n21_an_error_in_a_toml_or_yaml_config_names_the_users_file(tmp_path, engine, name, text, problem):
    config = tmp_path / name
    config.write_text(text)
    done = ibsec("run", str(config), "--set", "traffic.messages=200", "--quiet")
    assert done.returncode == 2 and no_traceback(done), done.stderr
    assert f"'{config}'" in done.stderr and problem in done.stderr, done.stderr
    assert "ibsec-config-" not in done.stderr and ".json" not in done.stderr
