"""`ibsec topology show|draw` and ibsec.topology (docs/topology.md "Seeing a fabric"): the fabric a config builds,
described without running it, with its links in the order and names of a run's links table (so a drawing joins the
table on the link index), placed by level or on a circle, and coloured by a run's utilization."""

import json
import math
from pathlib import Path

import pytest

from conftest import REPO, run_ibsec
from ibsec.engine.fabric import describe_fabric
from ibsec.errors import ConfigError
from ibsec.input_files import InputError
from ibsec.output import fabric_drawing

pytestmark = pytest.mark.unit

TAPERED = REPO / "configs" / "fat-tree-built-432-2to1.json"
# A 2-level tree of 8-port switches, 3:1: 6 nodes per leaf, 2 up-links each; 20 nodes fill 4 leaves (the last
# partly), whose 8 up-links fill one spine.
SMALL_TREE = ["network.topology=fat-tree-built", "network.fat_tree_built.radix=8",
              "network.fat_tree_built.taper=\"3:1\"", "network.nodes=20"]
IBND = REPO / "tests" / "fabrics" / "ring.ibnd"


def _run_links(tmp_path: Path, config, overrides: list[str]):
    out = tmp_path / "run.json"
    arguments = ["run", *([str(config)] if config else [])]
    for text in [*overrides, "traffic.messages=400", "traffic.warmup_messages=0", "sim.detail=links"]:
        arguments += ["--set", text]
    done = run_ibsec(*arguments, "--quiet", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.parametrize("config, overrides", [
    (REPO / "configs" / "paper-16.json", []),
    (None, SMALL_TREE),
    (None, ["network.topology=fat-tree", "network.fat_tree.k=2", "network.fat_tree.n=3"]),
], ids=["single-switch", "fat-tree-built", "fat-tree"])
def test_the_links_are_the_runs_links_in_its_order(engine, tmp_path, config, overrides):
    fabric = describe_fabric(config, overrides)
    result = json.loads(_run_links(tmp_path, config, overrides).read_text())
    table = (tmp_path / result["detail"]["links"]["file"]).read_text().splitlines()
    header = table[0].split(",")
    rows = [dict(zip(header, line.split(","), strict=False)) for line in table[1:]]
    assert [row["name"].strip('"') for row in rows] == [link["name"] for link in fabric["links"]]
    assert [int(row["link"]) for row in rows] == [link["link"] for link in fabric["links"]]
    assert fabric["topology"] == result["topology"]
    assert len(fabric["links"]) == fabric["topology"]["links"]
    # Every card output first, by node id.
    nodes = fabric["topology"]["nodes"]
    assert [(link["from_kind"], link["from_id"]) for link in fabric["links"][:nodes]] == [("node", n)
                                                                                          for n in range(nodes)]


def test_each_switch_is_listed_with_its_level_and_cabled_ports(engine):
    fabric = describe_fabric(None, SMALL_TREE)
    by_level = {}
    for switch in fabric["switches"]:
        by_level.setdefault(switch["level"], []).append(switch)
    assert [len(by_level[0]), len(by_level[1])] == [4, 1]
    # Leaves: 6, 6, 6 and 2 nodes, each with 2 up-links; the spine: every leaf's 2 up-links.
    assert [s["ports_connected"] for s in by_level[0]] == [8, 8, 8, 4]
    assert [s["ports_connected"] for s in by_level[1]] == [8]
    assert set(fabric["columns_meta"]) >= {"switch", "level", "ports_connected", "link", "name", "from_kind"}


def test_a_tree_is_placed_in_rows_with_the_nodes_under_their_leaf(engine):
    fabric = describe_fabric(None, SMALL_TREE)
    places = fabric_drawing.layout(fabric, with_nodes=True)
    leaf_of = {link["from_id"]: link["to_id"] for link in fabric["links"] if link["from_kind"] == "node"}
    for node, leaf in leaf_of.items():
        node_x, node_y = places[("node", node)]
        leaf_x, leaf_y = places[("switch", leaf)]
        assert (node_y, leaf_y) == (0.0, 1.0)
        assert abs(node_x - leaf_x) <= 2.5  # within the leaf's width of 6
    assert [places[("switch", s["switch"])][1] for s in fabric["switches"] if s["level"] == 1] == [2.0]
    # Leaves in index order, left to right, never on top of each other.
    xs = [places[("switch", s["switch"])][0] for s in fabric["switches"] if s["level"] == 0]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)


def test_a_fabric_without_levels_is_placed_on_a_circle(engine):
    fabric = describe_fabric(None, ["network.topology=ibnetdiscover", f"network.ibnetdiscover.file={IBND}",
                                    "network.routing=updn", f"network.updn.root_guids={_roots()}"])
    places = fabric_drawing.layout(fabric, with_nodes=True)
    radii = {round(math.hypot(*places[("switch", s["switch"])]), 9) for s in fabric["switches"]}
    assert radii == {1.0}
    assert all(math.hypot(x, y) > 1.0 for (kind, _), (x, y) in places.items() if kind == "node")


def test_a_torus_is_placed_on_its_grid_planes_side_by_side(engine):
    fabric = describe_fabric(None, ["network.topology=torus", 'network.torus.dims="3x2x2"',
                                    "network.torus.nodes_per_switch=2"])
    places = fabric_drawing.layout(fabric, with_nodes=True)
    for s in range(12):  # s = x + 3 (y + 2 z): plane z starts at column 4 z
        x, y, z = s % 3, (s // 3) % 2, s // 6
        assert places[("switch", s)] == (x + 4 * z, y)
    for link in fabric["links"][:24]:  # each node beside its switch
        nx, ny = places[("node", link["from_id"])]
        sx, sy = places[("switch", link["to_id"])]
        assert math.hypot(nx - sx, ny - sy) == pytest.approx(0.3)
    # A wraparound cable (0 -> 2 on a ring of 3) is bowed, a neighbour's straight.
    assert len(fabric_drawing._line((0.0, 0.0), (2.0, 0.0))) > 2
    assert len(fabric_drawing._line((0.0, 0.0), (1.0, 0.0))) == 2


def _roots() -> str:
    root = (REPO / "tests" / "fabrics" / "ring.roots").read_text().split("\n")[1]
    return json.dumps([root])


def test_a_cable_is_the_two_links_between_two_ports(engine):
    fabric = describe_fabric(REPO / "configs" / "paper-16.json")
    cables = fabric_drawing.cables(fabric)
    assert len(cables) == 16 and all(len(cable.links) == 2 for cable in cables)


@pytest.fixture(scope="module")
def tree_run(engine, tmp_path_factory) -> Path:
    return _run_links(tmp_path_factory.mktemp("tree"), None, SMALL_TREE)


def test_draw_writes_the_picture_coloured_by_a_run(tree_run, tmp_path):
    out = tmp_path / "fabric.svg"
    done = run_ibsec("topology", "draw", *[arg for text in SMALL_TREE for arg in ("--set", text)],
                     "--run", str(tree_run), "--out", str(out))
    assert done.returncode == 0, done.stderr
    svg = out.read_text()
    assert "link utilization, busier direction (fraction)" in svg and "fat-tree-built: 20 nodes" in svg


def test_draw_colours_by_the_uniform_bound_with_the_links_that_set_it_full(engine, tmp_path):
    out = tmp_path / "fabric.svg"
    done = run_ibsec("topology", "draw", *[arg for text in SMALL_TREE for arg in ("--set", text)],
                     "--uniform", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "link utilization at the uniform bound, busier direction (fraction)" in out.read_text()
    fabric = describe_fabric(None, SMALL_TREE)
    utilization = fabric_drawing.uniform_utilization(fabric)
    assert max(utilization.values()) == pytest.approx(1.0, rel=1e-12)
    binding = next(link["link"] for link in fabric["links"] if link["name"] == fabric["topology"]["uniform_bound_link"])
    assert utilization[binding] == pytest.approx(1.0, rel=1e-12)
    assert run_ibsec("topology", "draw", "--uniform", "--run", "x.json", "--out", str(out)).returncode == 2


def test_every_format_is_written_and_the_vector_ones_reproducibly(tree_run, tmp_path):
    fabric = describe_fabric(None, SMALL_TREE)
    utilization = fabric_drawing.link_utilization(tree_run, fabric)
    assert len(utilization) == len(fabric["links"]) and max(utilization.values()) > 0
    for suffix in (".svg", ".pdf", ".png"):
        first = fabric_drawing.write_drawing(tmp_path / f"a{suffix}", fabric, utilization)
        assert first.stat().st_size > 1000
        if suffix != ".png":  # no date inside: the same picture twice
            again = fabric_drawing.write_drawing(tmp_path / f"b{suffix}", fabric, utilization)
            assert again.read_bytes() == first.read_bytes()


def test_a_run_of_another_fabric_is_refused(tree_run):
    with pytest.raises(InputError, match=r"run\.links\.csv: its 56 links are not the 32 of the fabric drawn"):
        fabric_drawing.link_utilization(tree_run, describe_fabric("paper-16"))


def test_a_run_without_its_links_table_is_refused(engine, tmp_path):
    out = tmp_path / "run.json"
    assert run_ibsec("run", "paper-16", "--set", "traffic.messages=200", "--quiet", "--out", str(out)).returncode == 0
    with pytest.raises(InputError, match="has no links table: run with --set sim.detail=links"):
        fabric_drawing.link_utilization(out, describe_fabric("paper-16"))


def test_a_picture_without_a_known_suffix_is_refused_before_the_engine_runs(tmp_path):
    done = run_ibsec("topology", "draw", "paper-16", "--out", str(tmp_path / "fabric.jpg"))
    assert done.returncode == 2 and "--out" in done.stderr and ".pdf, .svg, .png" in done.stderr
    with pytest.raises(ConfigError, match="out"):
        fabric_drawing.check_picture_path(tmp_path / "fabric", "out")


def test_a_bad_parameter_is_named(engine):
    done = run_ibsec("topology", "show", "--set", "network.fat_tree.k=0", "--set", "network.topology=fat-tree")
    assert done.returncode == 2 and "network.fat_tree.k" in done.stderr


def test_show_prints_the_counts_with_units(engine):
    done = run_ibsec("topology", "show", str(TAPERED))
    assert done.returncode == 0, done.stderr
    assert "spines: 6 switches" in done.stdout and "switches by level: 0: 18, 1: 6" in done.stdout


def test_the_api_gives_what_the_command_gives(engine, tmp_path):
    import ibsec

    fabric = ibsec.topology.describe("paper-16", set={"network.nodes": 8})
    assert fabric["topology"]["nodes"] == 8 and len(fabric["links"]) == 16
    written = ibsec.topology.draw(tmp_path / "f.svg", "paper-16", set={"network.nodes": 8})
    assert written == tmp_path / "f.svg" and written.stat().st_size > 1000
    with pytest.raises(ConfigError, match="set"):
        ibsec.topology.describe("paper-16", set=["network.nodes=8"])
