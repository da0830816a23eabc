"""Real fabrics (docs/topology.md, "ibnetdiscover"): the committed reference fabrics regenerate identically
under ibsim + OpenSM (minhop and updn, or torus-2QoS on the tori, and ftree on the fat trees it recognises) when those
are installed, and a run on the 2:1 tapered fat tree delivers every message under our minhop, updn and ftree and under
OpenSM's own loaded tables (its minhop's and its ftree's); a fabric whose links mix rates runs and says so."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, run_ibsec
from ibsec.output import fabric_drawing
from ibsec.runs.collect import check_result

pytestmark = pytest.mark.model

FABRICS = REPO / "tests" / "fabrics"
NAMES = sorted(path.stem for path in FABRICS.glob("*.net"))
TOOLS = ("ibsim", "ibsim-run", "opensm", "ibnetdiscover", "dump_fts")
SEARCH_PATH = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
# The fat trees OpenSM's ftree recognises (regenerate.sh's FTREE_FABRICS).
FTREE_FABRICS = ("partial-leaf", "sibling-links", "tapered-2to1", "three-level")


def dumps(name: str) -> tuple[str, ...]:
    """The fabric, OpenSM's minhop tables, its updn tables or, on a torus, its torus-2QoS tables, and on a fat tree
    its ftree tables."""
    routed = ".torus-2QoS.lft" if (FABRICS / f"{name}.torus-2QoS.conf").is_file() else ".updn.lft"
    return (".ibnd", ".lft", routed) + ((".ftree.lft",) if name in FTREE_FABRICS else ())


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool, path=SEARCH_PATH) is None]


def without_provenance(path: Path) -> list[str]:
    """The file without its first line, which names the tool versions that made it."""
    return path.read_text().splitlines()[1:]


def test_every_net_file_has_its_dumps():
    assert NAMES == ["degraded-links", "missing-link", "partial-leaf", "ring", "sibling-links", "tapered-2to1",
                     "three-level", "torus-3x3x3", "torus-4x4"]
    for name in NAMES:
        for extension in dumps(name):
            assert (FABRICS / f"{name}{extension}").is_file(), f"{name}{extension}"
    assert sorted(path.name for path in FABRICS.glob("*.ftree.lft")) == [f"{name}.ftree.lft" for name in FTREE_FABRICS]


@pytest.mark.skipif(bool(missing_tools()), reason=f"needs {', '.join(missing_tools())} "
                    "(apt-get install ibsim-utils opensm infiniband-diags)")
def test_ibsim_and_opensm_regenerate_the_committed_dumps(tmp_path):
    done = subprocess.run([str(FABRICS / "regenerate.sh"), str(tmp_path)], capture_output=True, text=True,
                          env={**os.environ, "PATH": SEARCH_PATH}, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    for name in NAMES:
        for extension in dumps(name):
            fresh, committed = tmp_path / f"{name}{extension}", FABRICS / f"{name}{extension}"
            assert without_provenance(fresh) == without_provenance(committed), f"{name}{extension}"


def run_on_tapered_fabric(tmp_path: Path, *overrides: str) -> dict:
    out = tmp_path / "run.json"
    done = run_ibsec("run", "paper-16", "--set", "network.nodes=0", "--set", "network.topology=ibnetdiscover",
                     "--set", f"network.ibnetdiscover.file={FABRICS / 'tapered-2to1.ibnd'}",
                     "--set", "traffic.messages=3000", *[arg for o in overrides for arg in ("--set", o)],
                     "--out", str(out))
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())


@pytest.mark.parametrize("routing", ["topology", "minhop", "updn", "ftree", "lft", "lft-ftree"])
def test_uniform_traffic_on_the_tapered_fabric_is_all_delivered(engine, tmp_path, routing):
    extra = [f"network.routing={routing.split('-')[0]}"]
    if routing == "lft":
        extra.append(f"network.lft.file={FABRICS / 'tapered-2to1.lft'}")
    if routing == "lft-ftree":
        extra.append(f"network.lft.file={FABRICS / 'tapered-2to1.ftree.lft'}")
    result = run_on_tapered_fabric(tmp_path, *extra)
    counts = {name: value for name, value in result["topology"].items()
              if name not in ("topology_meta", "uniform_bound", "uniform_bound_link")}
    assert counts == {"name": "ibnetdiscover", "nodes": 96, "switches": 10, "links": 288}
    # Every engine spreads a leaf's 72 remote destinations evenly over its 12 up-links: the 2:1 taper bound.
    assert result["topology"]["uniform_bound"] == pytest.approx(12 / 24 * 95 / 72, rel=1e-12)
    assert result["topology"]["uniform_bound_link"].startswith("switch ")
    stats = result["statistics"]
    assert stats["drained"]
    assert stats["messages_delivered"] == stats["messages_handed_over"] == 13000


def test_a_rate_other_than_the_fabrics_is_refused(engine, tmp_path):
    done = run_ibsec("run", "paper-16", "--set", "network.nodes=0", "--set", "network.topology=ibnetdiscover",
                     "--set", f"network.ibnetdiscover.file={FABRICS / 'tapered-2to1.ibnd'}",
                     "--set", "network.link_rate=QDR", "--out", str(tmp_path / "run.json"))
    assert done.returncode != 0
    assert "the fabric's links are 4xSDR, not 4xQDR: set network.link_rate=SDR and network.link_width=4x" \
        in done.stderr


def run_on_ring(tmp_path: Path, *overrides: str):
    return run_ibsec("run", "paper-16", "--set", "network.nodes=0", "--set", "network.topology=ibnetdiscover",
                     "--set", f"network.ibnetdiscover.file={FABRICS / 'ring.ibnd'}",
                     "--set", "traffic.messages=1000", *[arg for o in overrides for arg in ("--set", o)],
                     "--out", str(tmp_path / "run.json"))


def test_the_ring_is_refused_under_minhop_and_delivered_under_updn_from_its_root(engine, tmp_path):
    refused = run_on_ring(tmp_path)
    assert refused.returncode != 0
    assert "the forwarding tables can deadlock" in refused.stderr
    root = (FABRICS / "ring.roots").read_text().split("\n")[1]
    done = run_on_ring(tmp_path, "network.routing=updn", f'network.updn.root_guids=["{root}"]')
    assert done.returncode == 0, done.stderr
    stats = json.loads((tmp_path / "run.json").read_text())["statistics"]
    assert stats["drained"]
    assert stats["messages_delivered"] == stats["messages_handed_over"]


def test_a_fabric_of_mixed_rates_runs_and_says_which_rates(engine, tmp_path):
    out = tmp_path / "run.json"
    done = run_ibsec("run", "paper-16", "--set", "network.nodes=0", "--set", "network.topology=ibnetdiscover",
                     "--set", f"network.ibnetdiscover.file={FABRICS / 'mixed-rates.ibnd'}",
                     "--set", "network.link_rate=QDR", "--set", "traffic.messages=2000", "--out", str(out))
    assert done.returncode == 0, done.stderr
    result = check_result(out, json.loads(out.read_text()))
    rates = {name: count for name, count in result["topology"].items() if name.startswith("links_at_")}
    assert rates == {"links_at_1xQDR": 2, "links_at_4xQDR": 6, "links_at_4xFDR": 2}
    assert result["statistics"]["drained"]
    assert fabric_drawing.title_of(result) == "ibnetdiscover: 4 nodes, 2 switches"


def test_a_rate_the_mixed_fabric_does_not_have_is_refused(engine, tmp_path):
    done = run_ibsec("run", "paper-16", "--set", "network.nodes=0", "--set", "network.topology=ibnetdiscover",
                     "--set", f"network.ibnetdiscover.file={FABRICS / 'mixed-rates.ibnd'}",
                     "--out", str(tmp_path / "run.json"))
    assert done.returncode != 0
    assert "the fabric mixes 1xQDR (2 links), 4xQDR (6 links), 4xFDR (2 links), and 4xSDR is none of them" \
        in done.stderr
