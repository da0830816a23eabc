"""Writes the reference fabrics as ibsim net files (tests/fabrics/*.net).

Run from anywhere: python3 tests/fabrics/make_net_files.py. The files are
committed; regenerate.sh turns each into what ibnetdiscover and dump_fts
print once OpenSM has routed it under ibsim.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
RADIX = 36  # a 36-port switch (InfiniScale IV / SwitchX class)


def two_level(nodes_per_leaf: list[int], spines: int, links_per_spine: int, missing: set[tuple[int, int]]) -> str:
    """Leaf i with nodes on ports 1..nodes_per_leaf[i], then links_per_spine cables to every spine;
    a (leaf, spine) pair in `missing` has no cables."""
    switch_lines: dict[str, list[str]] = {}
    hca_lines: dict[str, list[str]] = {}
    spine_next = dict.fromkeys(range(spines), 1)
    hcas = 0
    for leaf, on_leaf in enumerate(nodes_per_leaf):
        name = f"leaf{leaf}"
        lines = switch_lines.setdefault(name, [])
        for slot in range(on_leaf):
            hca = f"hca{hcas}"
            hcas += 1
            lines.append(f'[{slot + 1}]\t"{hca}"[1]')
            hca_lines[hca] = [f'[1]\t"{name}"[{slot + 1}]']
        port = on_leaf + 1
        for spine in range(spines):
            for _ in range(links_per_spine):
                if (leaf, spine) not in missing:
                    remote = spine_next[spine]
                    spine_next[spine] += 1
                    lines.append(f'[{port}]\t"spine{spine}"[{remote}]')
                    switch_lines.setdefault(f"spine{spine}", []).append(f'[{remote}]\t"{name}"[{port}]')
                port += 1
    records = [f'Switch\t{RADIX} "{name}"\n' + "\n".join(lines) for name, lines in switch_lines.items()]
    records += [f'Hca\t1 "{name}"\n' + "\n".join(lines) for name, lines in hca_lines.items()]
    return "\n\n".join(records) + "\n"


FABRICS = {
    # 2:1 taper at the leaves: 24 nodes down, 12 cables up (2 to each of 6 spines).
    "tapered-2to1": ("2-level fat tree of 36-port switches, 4 leaves x 24 nodes, 12 up-links each (2 to each of 6 "
                     "spines): 2:1 tapered", two_level([24] * 4, 6, 2, set())),
    # Leaves of 2, 3 and 4 nodes, one cable to each of 3 spines, leaf 2's cable to spine 1 missing.
    # Uneven leaves make the order in which OpenSM takes destinations (most loaded switch first) visible
    # in the tables: taken in LID order, 6 of leaf 0's entries would differ.
    "missing-link": ("leaves of 2, 3 and 4 nodes, one cable from each leaf to each of 3 spines, leaf2-spine1 "
                     "missing", two_level([2, 3, 4], 3, 1, {(2, 1)})),
}


def main() -> None:
    for name, (what, body) in FABRICS.items():
        header = f"# {what}.\n# Written by tests/fabrics/make_net_files.py (ibsim net format, ibsim-utils 0.10).\n\n"
        (HERE / f"{name}.net").write_text(header + body)


if __name__ == "__main__":
    main()
