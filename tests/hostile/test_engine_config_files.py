"""Items 1, 18: hostile or ambiguous configuration files are refused, naming the file and the key."""

import pytest

from .engine import PAPER16, refused, run

pytestmark = pytest.mark.unit


def deep(levels: int) -> str:
    return '{"a":' * levels + "1" + "}" * levels


def test_item01_a_deeply_nested_config_file_is_refused_not_a_crash(tmp_path):
    config = tmp_path / "deep.json"
    config.write_text(deep(20000))
    assert refused(run("run", str(config)), str(config), "nested deeper")


def test_item01_a_deeply_nested_attack_file_is_refused(tmp_path):
    attack = tmp_path / "deep-attack.json"
    attack.write_text(deep(20000))
    assert refused(run("run", PAPER16, "--attack", str(attack)), str(attack), "nested deeper")


def test_item01_a_deeply_nested_set_value_is_refused():
    assert refused(run("run", PAPER16, "--set", "traffic.sizes_bytes=" + "[" * 20000 + "]" * 20000),
                   "--set traffic.sizes_bytes", "nested deeper")


def test_item18_a_key_given_twice_in_one_object_is_refused(tmp_path):
    config = tmp_path / "twice.json"
    config.write_text('{"network": {"nodes": 16, "nodes": 8}}')
    assert refused(run("run", str(config)), str(config), "'network.nodes' is given twice")


def test_item18_a_key_given_dotted_and_nested_is_refused(tmp_path):
    config = tmp_path / "dotted.json"
    config.write_text('{"traffic.load": 0.1, "traffic": {"load": 0.02}}')
    assert refused(run("run", str(config)), str(config), "'traffic.load' is given twice")


def test_item18_trace_given_both_as_option_and_as_set_is_refused():
    assert refused(run("run", PAPER16, "--trace", "a.trace", "--set", "trace.file=b.trace"), "--trace",
                   "trace.file")


def test_config_fuzz_finding_a_set_value_that_is_not_utf8_is_refused():
    # Found by tests/fuzz/config_fuzz.cpp (tests/fuzz/config_regressions/set_value_not_utf8): it escaped as a
    # JSON library error when the result echoed the value.
    import subprocess

    from .engine import engine
    result = subprocess.run([engine(), "run", PAPER16, "--set", b"trace.file=a\xf7b"], capture_output=True,
                            timeout=30, check=False)
    assert result.returncode == 2 and b"invalid '--set trace.file': is not UTF-8 text" in result.stderr


def test_config_fuzz_finding_a_number_beyond_a_double_is_refused(tmp_path):
    # Found by tests/fuzz/config_fuzz.cpp (config_regressions/number_beyond_a_double).
    config = tmp_path / "huge.json"
    config.write_text('{"traffic": {"load": 1e400}}')
    assert refused(run("run", str(config)), str(config), "number overflow")
