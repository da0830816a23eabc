"""trace.placement on every topology (docs/replay.md): a placement file puts each rank on the node it names, on a
single switch, a k-ary n-tree, a fat tree as built with a partly filled leaf, a fabric read from ibnetdiscover, a
torus on its dateline lanes and a partly filled dragonfly+; only those nodes' cards send, and the replay finishes."""

import json

import pandas as pd
import pytest

from conftest import REPO, run_ibsec

pytestmark = pytest.mark.unit

FABRICS = REPO / "tests" / "fabrics"
# Each topology with the nodes it has; ranks go to nodes far apart (other leaves where there are leaves).
TOPOLOGIES = {
    "single-switch": (["network.topology=single-switch", "network.nodes=16"], [3, 15, 0, 9]),
    "fat-tree": (["network.topology=fat-tree", "network.fat_tree.k=4", "network.fat_tree.n=2"], [1, 6, 11, 12]),
    "fat-tree-built": (["network.topology=fat-tree-built", "network.fat_tree_built.radix=8",
                        'network.fat_tree_built.taper="3:1"', "network.nodes=20"], [0, 7, 13, 19]),
    "ibnetdiscover": (["network.topology=ibnetdiscover", f"network.ibnetdiscover.file={FABRICS / 'tapered-2to1.ibnd'}"],
                      [5, 30, 60, 95]),
    "torus": (["network.topology=torus", "network.torus.dims=5x5", "network.virtual_lanes=2"], [0, 12, 24, 7]),
    # Ranks in four groups of the default 5 x 16 nodes, one of them a partly filled last leaf's.
    "dragonfly-plus": (["network.topology=dragonfly-plus", "network.nodes=66"], [2, 21, 47, 65]),
}


@pytest.fixture(scope="module")
def trace(engine, tmp_path_factory):
    out = tmp_path_factory.mktemp("trace") / "cg4.trace.gz"
    done = run_ibsec("trace", "gen", "CG", "--procs", "4", "--class", "S", "--scale", "0.02", "--seed", "1",
                     "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.parametrize("topology", sorted(TOPOLOGIES))
def test_a_placement_file_puts_the_ranks_on_its_nodes(trace, tmp_path, topology):
    overrides, nodes = TOPOLOGIES[topology]
    placement = tmp_path / "placement.txt"
    placement.write_text("".join(f"{rank} {node}\n" for rank, node in enumerate(nodes)))
    out = tmp_path / "run.json"
    arguments = [arg for text in [*overrides, f"trace.placement={placement}", "sim.detail=cards"]
                 for arg in ("--set", text)]
    done = run_ibsec("run", "--trace", str(trace), *arguments, "--quiet", "--out", str(out))
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    assert result["statistics"]["drained"]
    cards = pd.read_csv(tmp_path / result["detail"]["cards"]["file"])
    assert sorted(cards.loc[cards.packets_sent > 0, "node"]) == sorted(nodes)
    assert sorted(cards.loc[cards.packets_received > 0, "node"]) == sorted(nodes)


def test_a_node_the_fabric_lacks_is_named(trace, tmp_path):
    overrides, _ = TOPOLOGIES["fat-tree-built"]
    placement = tmp_path / "placement.txt"
    placement.write_text("0 0\n1 1\n2 2\n3 20\n")  # 20 nodes: ids 0 to 19
    done = run_ibsec("run", "--trace", str(trace), *[arg for text in overrides for arg in ("--set", text)],
                     "--set", f"trace.placement={placement}", "--quiet", "--out", str(tmp_path / "run.json"))
    assert done.returncode == 2
    assert f"{placement}:4" in done.stderr and "20" in done.stderr
