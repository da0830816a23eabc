"""The C++ folders include only downwards (scripts/check_layers.py)."""

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.unit


def load_checker():
    spec = importlib.util.spec_from_file_location("check_layers", REPO / "scripts" / "check_layers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_folder_includes_a_later_one():
    assert load_checker().upward_includes(REPO) == []


def test_an_upward_include_is_found(tmp_path):
    checker = load_checker()
    for folder in checker.LAYERS:
        (tmp_path / folder).mkdir()
    (tmp_path / "core" / "x.h").write_text('#include "core/y.h"\n#include "sim/cluster.h"\n')
    assert checker.upward_includes(tmp_path) == ["core/x.h:2: core includes sim/cluster.h"]
