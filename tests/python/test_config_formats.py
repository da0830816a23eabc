"""`ibsec run` takes TOML and YAML configurations as well as JSON: the same run from each, errors naming the file,
line and key (with the nearest parameter for a typo), and no key given twice."""

import json

import pytest

from conftest import REPO, run_ibsec
from ibsec.engine.config import read_config
from ibsec.errors import ConfigError

PAPER16 = json.loads((REPO / "configs" / "paper-16.json").read_text())
SHORT = ["--set", "traffic.messages=1500", "--quiet"]

TOML = """
[network]
topology = "single-switch"
nodes = 16

[nic]
security = "SKC-6"
"""
YAML = """
network:
  topology: single-switch
  nodes: 16
nic:
  security: SKC-6
"""


def written(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.unit
def test_toml_and_yaml_read_as_the_same_table_as_json(tmp_path):
    assert read_config(written(tmp_path, "p.toml", TOML)) == PAPER16
    assert read_config(written(tmp_path, "p.yaml", YAML)) == PAPER16
    assert read_config(written(tmp_path, "p.yml", YAML)) == PAPER16


@pytest.mark.model
def test_a_run_from_toml_or_yaml_is_byte_identical_to_the_run_from_json(tmp_path, engine):
    results = {}
    for name, text in [("p.json", json.dumps(PAPER16)), ("p.toml", TOML), ("p.yaml", YAML)]:
        out = tmp_path / f"{name}.result.json"
        done = run_ibsec("run", str(written(tmp_path, name, text)), *SHORT, "--out", str(out))
        assert done.returncode == 0, done.stderr
        results[name] = out.read_bytes()
    assert results["p.json"] == results["p.toml"] == results["p.yaml"]


@pytest.mark.unit
@pytest.mark.parametrize("name, text, message", [
    ("bad.toml", "[nic]\nsecurity = \n", r"bad.toml': not valid TOML: .*line 2"),
    ("bad.yaml", "nic:\n  security: [SKC-6\n", r"bad.yaml': not valid YAML: .* at line 3"),
    ("twice.yaml", "nic:\n  security: SKC-6\n  security: NoSKC\n", r"'security' is given twice .* at line 3"),
    ("date.toml", "[sim]\nwhen = 2024-01-01\n", r"'sim.when': datetime.date\(2024, 1, 1\) is a date"),
    ("list.yaml", "- 1\n- 2\n", "must be a table of parameters"),
])
def test_bad_files_name_the_file_and_the_line(tmp_path, name, text, message):
    with pytest.raises(ConfigError, match=message):
        read_config(written(tmp_path, name, text))


@pytest.mark.unit
def test_a_mistyped_key_in_toml_names_the_file_and_the_nearest_parameter(tmp_path, engine):
    config = written(tmp_path, "typo.toml", "[nic]\nsecruity = \"SKC-4\"\n")
    done = run_ibsec("run", str(config), *SHORT)
    assert done.returncode == 2
    assert f"invalid 'nic.secruity': unknown parameter (in {config}); did you mean 'nic.security'?" in done.stderr


@pytest.mark.unit
def test_a_mistyped_key_or_name_on_the_command_line_gets_a_suggestion(engine):
    done = run_ibsec("run", "--set", "nic.secruity=SKC-4", "--quiet")
    assert done.returncode == 2 and "did you mean 'nic.security'?" in done.stderr
    done = run_ibsec("run", "--set", "scheduler.policy=gangg", "--quiet")
    assert done.returncode == 2 and "unknown scheduler 'gangg'; did you mean 'gang'?" in done.stderr


@pytest.mark.model
def test_a_load_sweep_takes_a_yaml_config(tmp_path, engine):
    prefix = tmp_path / "load"
    done = run_ibsec("run", str(written(tmp_path, "p.yaml", YAML)), "--set", "traffic.messages=1500",
                     "--sweep-load", "0.02,0.04", "--out", str(prefix), "--quiet")
    assert done.returncode == 0, done.stderr
    twins = list((tmp_path / "load.runs").glob("p.yaml.*.json"))
    assert len(twins) == 1 and json.loads(twins[0].read_text()) == PAPER16


@pytest.mark.unit
def test_a_sweep_spec_with_a_mistyped_parameter_gets_a_suggestion(tmp_path, engine):
    spec = written(tmp_path, "s.toml", 'kind = "run"\n[grid]\n"nic.secruity" = ["SKC-2", "SKC-4"]\n')
    done = run_ibsec("sweep", str(spec), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert "'grid.nic.secruity': not an ibsec-engine run parameter; did you mean 'nic.security'?" in done.stderr


@pytest.mark.unit
def test_trace_convert_says_what_it_wrote(tmp_path, engine):
    source = REPO / "analytics" / "ibsec" / "data" / "npb" / "cg.S.16.trace.zst"
    target = tmp_path / "cg.ibtb.gz"
    done = run_ibsec("trace", "convert", str(source), str(target))
    assert done.returncode == 0, done.stderr
    size = target.stat().st_size
    assert done.stdout.startswith(f"{target}: wrote ") and "events of 16 processes as binary, gzip-compressed (" \
        in done.stdout and f"from {source}" in done.stdout
    assert size > 1024 and ("KiB" in done.stdout or "MiB" in done.stdout)


@pytest.mark.unit
@pytest.mark.parametrize("text, value", [("0o20", 16), ("0x10", 16), ("true", True), ("False", False),
                                         ("~", None), ("null", None), (".5", 0.5), ("+12", 12), ("1.", 1.0)])
def test_yaml_1_2_spellings_of_numbers_true_false_and_null(tmp_path, text, value):
    """YAML is read by the YAML 1.2 core schema (engine/yaml_config.py; tests/hostile/test_n24_*: what differs
    from YAML 1.1)."""
    config = written(tmp_path, "scalars.yaml", f"network:\n  nodes: {text}\n")
    assert read_config(config) == {"network": {"nodes": value}}


@pytest.mark.unit
def test_a_yaml_anchor_that_no_alias_uses_is_taken(tmp_path):
    """Aliases are refused (tests/hostile/test_n04_yaml_aliases.py); an anchor alone is harmless."""
    config = written(tmp_path, "anchor.yaml", "network: &net\n  nodes: 16\n")
    assert read_config(config) == {"network": {"nodes": 16}}


@pytest.mark.model
def test_api_set_nests_distinct_keys_and_a_later_layer_wins(tmp_path, engine):
    """`set` over a `config` dict is a later layer, as --set over a file: a key in both is no error and `set` wins
    (a key given twice within one layer is refused: tests/hostile/test_n09_api_key_twice.py)."""
    import ibsec

    result = ibsec.run({"traffic": {"load": 0.1}, "traffic.messages": 200}, set={"traffic": {"load": 0.02}},
                       folder=tmp_path)
    assert result.config["traffic"]["load"] == 0.02
