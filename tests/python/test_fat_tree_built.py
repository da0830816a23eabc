"""The shipped 2:1 tapered fat tree (configs/fat-tree-built-432-2to1.json, docs/topology.md "fat-tree-built"):
it runs by name, its result reports the tree's leaves, spines and cores with units and descriptions, and a table of
results collected from it carries those as described columns."""

import json

import pytest

from conftest import run_ibsec
from ibsec.runs.collect import results_table

pytestmark = pytest.mark.unit


def test_the_shipped_tapered_tree_reports_its_shape(engine, tmp_path):
    out = tmp_path / "run.json"
    done = run_ibsec("run", "fat-tree-built-432-2to1", "--set", "traffic.messages=2000",
                     "--set", "traffic.warmup_messages=500", "--quiet", "--out", str(out))
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    topology = result["topology"]
    # 432 nodes on leaves of 24: 18 leaves; their 18 x 12 up-links fill 6 spines of 36 ports.
    assert {name: topology[name] for name in ("nodes", "switches", "levels", "leaves", "spines", "cores",
                                              "leaf_down_ports", "leaf_up_ports")} == {
        "nodes": 432, "switches": 24, "levels": 2, "leaves": 18, "spines": 6, "cores": 0,
        "leaf_down_ports": 24, "leaf_up_ports": 12}
    meta = topology["topology_meta"]
    assert set(meta) == set(topology) - {"name", "topology_meta"}
    assert meta["spines"]["unit"] == "switches" and meta["leaf_up_ports"]["unit"] == "ports"
    assert result["statistics"]["drained"]

    table, columns = results_table([(out, result)])
    assert table.loc[0, "topology_spines"] == 6
    assert columns["topology_leaves"] == meta["leaves"]
