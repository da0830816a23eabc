"""Shipped configurations by name from any folder (`ibsec run paper-16`): one list, the repository's configs/,
which the package holds as ibsec/configs and ships in full as package data."""

import json
import subprocess
import sys

import pytest

from conftest import REPO
from ibsec.compat import tomllib
from ibsec.errors import ConfigError
from ibsec.shipped import SHIPPED, resolve, shipped_names

pytestmark = pytest.mark.unit


def test_the_package_configs_are_the_repository_configs():
    assert SHIPPED.resolve() == (REPO / "configs").resolve()
    assert shipped_names("config") == ["dragonfly-plus-1024", "fat-tree-1024-32ary2", "fat-tree-1024-4ary5",
                                       "fat-tree-built-432-2to1", "nosecurity-16", "paper-16", "paper-card-16",
                                       "torus-64"]
    assert "all-kinds" in shipped_names("attack") and "skc-ways" in shipped_names("spec")


def test_package_data_ships_every_file_of_configs():
    """A wheel holds what the package-data patterns match: every shipped file must be matched."""
    project = tomllib.loads((REPO / "analytics" / "pyproject.toml").read_text())
    patterns = project["tool"]["setuptools"]["package-data"]["ibsec"]
    package = REPO / "analytics" / "ibsec"
    matched = {path.resolve() for pattern in patterns for path in package.glob(pattern)}
    shipped = {path.resolve() for path in (REPO / "configs").rglob("*") if path.is_file()}
    assert shipped - matched == set()


def test_names_resolve_to_shipped_files_and_files_win(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve("config", "paper-16", "CONFIG") == str(SHIPPED / "paper-16.json")
    assert resolve("config", "paper-16.json", "CONFIG") == str(SHIPPED / "paper-16.json")
    assert resolve("attack", "snoop", "--attack") == str(SHIPPED / "attacks" / "snoop.json")
    assert resolve("spec", "skc-ways", "SPEC") == str(SHIPPED / "sweeps" / "skc-ways.toml")
    (tmp_path / "paper-16").write_text("{}")  # a file of that name in the current folder is what the user meant
    assert resolve("config", "paper-16", "CONFIG") == "paper-16"
    assert resolve("config", None, "CONFIG") is None


def test_an_unknown_name_suggests_the_closest_and_lists_them(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    listed = r"did you mean 'paper-16'\? shipped: dragonfly-plus-1024, fat-tree-1024-32ary2, .*paper-16"
    with pytest.raises(ConfigError, match=listed):
        resolve("config", "paper16", "CONFIG")
    with pytest.raises(ConfigError, match="'zzz' does not exist, and no shipped attack has that name"):
        resolve("attack", "zzz", "--attack")
    with pytest.raises(ConfigError):
        resolve("config", "sub/paper-16", "CONFIG")  # a path is a path: never looked up among the shipped


def test_ibsec_run_by_name_from_another_folder(tmp_path, engine):
    out = tmp_path / "r.json"
    done = subprocess.run([sys.executable, "-m", "ibsec.cli", "run", "nosecurity-16", "--set", "traffic.messages=1500",
                           "--quiet", "--out", str(out)], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["config"]["nic"]["security"] == "NoSecurity"
