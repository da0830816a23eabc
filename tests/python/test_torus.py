"""The shipped 4x4x4 torus (configs/torus-64.json, docs/topology.md "torus"): it runs by name on its two lanes,
its result reports the torus's shape with units and descriptions, rings of 8 on one lane are refused naming
network.virtual_lanes, and a table of results collected from it carries the shape as described columns."""

import json

import pytest

from conftest import run_ibsec
from ibsec.runs.collect import results_table

pytestmark = pytest.mark.unit


def test_the_shipped_torus_reports_its_shape(engine, tmp_path):
    out = tmp_path / "run.json"
    done = run_ibsec("run", "torus-64", "--set", "traffic.messages=2000",
                     "--set", "traffic.warmup_messages=500", "--quiet", "--out", str(out))
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    topology = result["topology"]
    assert {name: topology[name] for name in ("nodes", "switches", "dimensions", "size_x", "size_y", "size_z",
                                              "nodes_per_switch", "diameter", "lanes_needed")} == {
        "nodes": 64, "switches": 64, "dimensions": 3, "size_x": 4, "size_y": 4, "size_z": 4,
        "nodes_per_switch": 1, "diameter": 7, "lanes_needed": 1}
    meta = topology["topology_meta"]
    assert set(meta) == set(topology) - {"name", "topology_meta"}
    assert meta["size_x"]["unit"] == "switches" and meta["lanes_needed"]["unit"] == "lanes"
    assert result["statistics"]["drained"]

    table, columns = results_table([(out, result)])
    assert table.loc[0, "topology_diameter"] == 7
    assert columns["topology_size_x"] == meta["size_x"]


def test_a_torus_of_rings_of_8_on_one_lane_is_refused(engine, tmp_path):
    done = run_ibsec("run", "torus-64", "--set", "network.torus.dims=8x8", "--set", "network.virtual_lanes=1",
                     "--set", "traffic.messages=100", "--quiet", "--out", str(tmp_path / "run.json"))
    assert done.returncode != 0
    assert "network.virtual_lanes" in done.stderr and "needs 2 virtual lanes, got 1" in done.stderr
