"""Writes the reference fabrics as ibsim net files (tests/fabrics/*.net).

Run from anywhere: python3 tests/fabrics/make_net_files.py. The files are
committed; regenerate.sh turns each into what ibnetdiscover and dump_fts
print once OpenSM has routed it under ibsim.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
RADIX = 36  # a 36-port switch (InfiniScale IV / SwitchX class)


class NetFile:
    """Switches and HCAs in order of first mention (ibsim numbers their GUIDs in that order), each with its
    cabled ports."""

    def __init__(self) -> None:
        self.switches: dict[str, list[str]] = {}
        self.hcas: dict[str, list[str]] = {}

    def switch(self, name: str) -> None:
        self.switches.setdefault(name, [])

    def hca(self, name: str, switch: str, port: int, rate: str = "") -> None:
        """`rate`: ibsim's link parameters for the cable, e.g. "w=1 s=4" (1x wide, QDR); empty: ibsim's 4x SDR."""
        self.switch(switch)
        self.switches[switch].append(f'[{port}]\t"{name}"[1]' + (f"\t{rate}" if rate else ""))
        self.hcas[name] = [f'[1]\t"{switch}"[{port}]' + (f"\t{rate}" if rate else "")]

    def cable(self, a: str, a_port: int, b: str, b_port: int, rate: str = "") -> None:
        self.switch(a)
        self.switch(b)
        self.switches[a].append(f'[{a_port}]\t"{b}"[{b_port}]' + (f"\t{rate}" if rate else ""))
        self.switches[b].append(f'[{b_port}]\t"{a}"[{a_port}]' + (f"\t{rate}" if rate else ""))

    def text(self) -> str:
        records = [f'Switch\t{RADIX} "{name}"\n' + "\n".join(lines) for name, lines in self.switches.items()]
        records += [f'Hca\t1 "{name}"\n' + "\n".join(lines) for name, lines in self.hcas.items()]
        return "\n\n".join(records) + "\n"


def add_nodes(net: NetFile, switch: str, count: int) -> int:
    """`count` HCAs on ports 1..count of `switch`, numbered on from those already in `net`; the next free port."""
    for slot in range(count):
        net.hca(f"hca{len(net.hcas)}", switch, slot + 1)
    return count + 1


def two_level(nodes_per_leaf: list[int], spines: int, links_per_spine: int, missing: set[tuple[int, int]],
              side_cables: tuple[tuple[str, str], ...] = ()) -> str:
    """Leaf i with nodes on ports 1..nodes_per_leaf[i], then links_per_spine cables to every spine;
    a (leaf, spine) pair in `missing` has no cables; then each side cable (a, b) between two switches of a level,
    on the next free port of each."""
    net = NetFile()
    next_port = {f"spine{spine}": 1 for spine in range(spines)}
    for leaf, on_leaf in enumerate(nodes_per_leaf):
        port = add_nodes(net, f"leaf{leaf}", on_leaf)
        for spine in range(spines):
            for _ in range(links_per_spine):
                if (leaf, spine) not in missing:
                    net.cable(f"leaf{leaf}", port, f"spine{spine}", next_port[f"spine{spine}"])
                    next_port[f"spine{spine}"] += 1
                port += 1
        next_port[f"leaf{leaf}"] = port
    for a, b in side_cables:
        net.cable(a, next_port[a], b, next_port[b])
        next_port[a] += 1
        next_port[b] += 1
    return net.text()


def degraded_links() -> str:
    """A 4xQDR fat tree of 2 leaves x 3 nodes and 2 spines (s=4: QDR), where one node's cable trained at 1x
    (w=1) and one leaf-spine cable fell back to DDR (s=2), as ibnetdiscover shows a fabric with worn cables."""
    net = NetFile()
    qdr = "s=4"
    for leaf in range(2):
        for slot in range(3):
            degraded = leaf == 0 and slot == 1
            net.hca(f"hca{len(net.hcas)}", f"leaf{leaf}", slot + 1, "w=1 s=4" if degraded else qdr)
        for spine in range(2):
            slow = leaf == 1 and spine == 0
            net.cable(f"leaf{leaf}", 4 + spine, f"spine{spine}", 1 + leaf, "s=2" if slow else qdr)
    return net.text()


def three_level(pods: int, leaves_per_pod: int, nodes_per_leaf: int, spines_per_pod: int, cores: int) -> str:
    """Pods of leaves and spines, every leaf cabled once to every spine of its pod, every spine once to every
    core; a leaf's nodes on its first ports."""
    net = NetFile()
    core_next = dict.fromkeys(range(cores), 1)
    for pod in range(pods):
        spine_next = dict.fromkeys(range(spines_per_pod), 1)
        for leaf in range(leaves_per_pod):
            name = f"leaf{pod}.{leaf}"
            port = add_nodes(net, name, nodes_per_leaf)
            for spine in range(spines_per_pod):
                net.cable(name, port + spine, f"spine{pod}.{spine}", spine_next[spine])
                spine_next[spine] += 1
        for spine in range(spines_per_pod):
            for core in range(cores):
                net.cable(f"spine{pod}.{spine}", leaves_per_pod + 1 + core, f"core{core}", core_next[core])
                core_next[core] += 1
    return net.text()


def ring(switches: int, nodes_per_switch: int, chords: list[tuple[int, int]]) -> str:
    """Switch i cabled to switch i+1 (mod switches), then each chord (a, b) cabled; nodes on the first ports."""
    net = NetFile()
    next_port = {s: add_nodes(net, f"sw{s}", nodes_per_switch) for s in range(switches)}
    for a, b in [(s, (s + 1) % switches) for s in range(switches)] + chords:
        net.cable(f"sw{a}", next_port[a], f"sw{b}", next_port[b])
        next_port[a] += 1
        next_port[b] += 1
    return net.text()


def torus(sizes: list[int], nodes_per_switch: int) -> str:
    """Switch s = x + kx (y + ky z), its nodes on ports 1..c, then per dimension of a ring of 3 or more its + port
    cabled to the next switch's - port (ports c+1, c+2 for x, then y, z): network.topology=torus's layout with
    InfiniBand's port numbers, one higher (docs/topology.md, "torus")."""
    net = NetFile()
    count = 1
    for k in sizes:
        count *= k
    for s in range(count):
        add_nodes(net, f"sw{s}", nodes_per_switch)
    stride = 1
    port = nodes_per_switch + 1
    for k in sizes:
        assert k >= 3, "a ring of 2 has one cable, of 1 none: not laid out here"
        for s in range(count):
            here = s // stride % k
            after = s - here * stride + (here + 1) % k * stride
            net.cable(f"sw{s}", port, f"sw{after}", port + 1)
        stride *= k
        port += 2
    return net.text()


def torus_conf(sizes: list[int]) -> str:
    """OpenSM's torus-2QoS.conf for torus(sizes): the shape, and a seed at sw0 (GUID 0x200000, ibsim numbers
    switches in order of first mention) naming its + neighbour in every dimension and, for a ring of 4, its -
    neighbour too (torus-2QoS.conf(5): a radix-4 ring needs both)."""
    lines = ["torus " + " ".join(str(k) for k in sizes + [1] * (3 - len(sizes)))]
    stride = 1
    for axis, k in zip("xyz"[: len(sizes)], sizes, strict=True):
        lines.append(f"{axis}p_link 0x200000 {0x200000 + stride:#x}")
        if k == 4:
            lines.append(f"{axis}m_link 0x200000 {0x200000 + (k - 1) * stride:#x}")
        stride *= k
    return "# torus-2QoS seed for the fabric of the same name; written by tests/fabrics/make_net_files.py.\n" + \
        "\n".join(lines) + "\n"


FABRICS = {
    # 2:1 taper at the leaves: 24 nodes down, 12 cables up (2 to each of 6 spines).
    "tapered-2to1": ("2-level fat tree of 36-port switches, 4 leaves x 24 nodes, 12 up-links each (2 to each of 6 "
                     "spines): 2:1 tapered", two_level([24] * 4, 6, 2, set())),
    # Leaves of 2, 3 and 4 nodes, one cable to each of 3 spines, leaf 2's cable to spine 1 missing.
    # Uneven leaves make the order in which OpenSM takes destinations (most loaded switch first) visible
    # in the tables: taken in LID order, 6 of leaf 0's entries would differ.
    "missing-link": ("leaves of 2, 3 and 4 nodes, one cable from each leaf to each of 3 spines, leaf2-spine1 "
                     "missing", two_level([2, 3, 4], 3, 1, {(2, 1)})),
    # 3 levels: the cores are the switches OpenSM's updn detects as roots (every node 2 hops away).
    "three-level": ("3-level fat tree of 36-port switches: 3 pods of 2 leaves x 3 nodes and 2 spines, every spine "
                    "cabled to each of 2 cores", three_level(3, 2, 3, 2, 2)),
    # A fat tree with its first leaf (first in OpenSM's switch table, so first in ftree's index order) half
    # filled: OpenSM's ftree routes the 2 nodes it lacks as dummies, and their counts on the spines' cables steer
    # which of a leaf's 2 cables to a spine the later leaves' routes take.
    "partial-leaf": ("2-level fat tree of 36-port switches: leaves of 2, 4, 4 and 4 nodes, two cables from each "
                     "leaf to each of 3 spines", two_level([2, 4, 4, 4], 3, 2, set())),
    # Cables between switches of one rank (leaf0-leaf1, spine0-spine1): OpenSM's ftree still takes it for a fat
    # tree and routes over them as sibling port groups.
    "sibling-links": ("2-level fat tree of 36-port switches: 4 leaves x 3 nodes, one cable from each leaf to each of "
                      "2 spines, and cables leaf0-leaf1 and spine0-spine1",
                      two_level([3] * 4, 2, 1, set(), (("leaf0", "leaf1"), ("spine0", "spine1")))),
    # Minhop's shortest paths run both ways round the ring, so its channel dependencies close a cycle; updn from
    # the root sw0 (ring.roots) does not. Nothing here looks like a spine, so the root is given.
    "ring": ("8 switches in a ring, 2 nodes each, and a cross link sw0-sw4", ring(8, 2, [(0, 4)])),
    # Tori for OpenSM's torus-2QoS (regenerate.sh routes a fabric with a NAME.torus-2QoS.conf with it): rings of
    # 4 have half-way ties and need datelines, rings of 3 neither.
    # Cables that trained below the fabric's rate: what regenerate.sh keeps of ibnetdiscover's output carries each
    # link's width and speed, so the fixture tests rates read from a real tool's output.
    "degraded-links": ("4xQDR 2-level fat tree of 2 leaves x 3 nodes and 2 spines; hca1's cable at 1xQDR, "
                       "leaf1-spine0 at 4xDDR", degraded_links()),
    "torus-4x4": ("4x4 torus of 36-port switches, 1 node each", torus([4, 4], 1)),
    "torus-3x3x3": ("3x3x3 torus of 36-port switches, 1 node each", torus([3, 3, 3], 1)),
}

TORI = {"torus-4x4": [4, 4], "torus-3x3x3": [3, 3, 3]}


def main() -> None:
    for name, (what, body) in FABRICS.items():
        header = f"# {what}.\n# Written by tests/fabrics/make_net_files.py (ibsim net format, ibsim-utils 0.10).\n\n"
        (HERE / f"{name}.net").write_text(header + body)
    for name, sizes in TORI.items():
        (HERE / f"{name}.torus-2QoS.conf").write_text(torus_conf(sizes))


if __name__ == "__main__":
    main()
