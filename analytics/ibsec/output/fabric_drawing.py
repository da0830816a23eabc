"""A picture of a fabric (`ibsec topology draw`): switches and cards placed by level, cables drawn between them,
coloured by how busy a run kept them when its links table is given.

Placement: a tree (switches with levels above 0) in rows, nodes at the bottom under their leaf switch, each leaf as
wide as the nodes below it and every higher level spread over the same width; any other fabric (one switch, a
torus, a fabric read from a subnet without levels) on a circle, each switch's nodes on an arc outside it. A cable
is the two one-way links between the same two ports; its colour is the busier direction's utilization.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from ..input_files import InputError, read_input_text

# Above these counts, labels would cover the picture: drawn without them.
MAX_LABELLED_NODES = 64
MAX_LABELLED_SWITCHES = 64
# Above this many nodes the cards are left out (the cables into them too) unless asked for.
MAX_DRAWN_NODES = 512

Place = tuple[str, int]  # ("switch", index) or ("node", id)


@dataclass(frozen=True)
class Cable:
    ends: tuple[Place, Place]
    links: tuple[int, ...]  # the one-way links it carries, by index in the run


def cables(fabric: dict) -> list[Cable]:
    """The fabric's cables: its one-way links paired by their two ports."""
    by_ports: dict[tuple, list[dict]] = {}
    for link in fabric["links"]:
        ports = ((link["from_kind"], link["from_id"], link["from_port"]),
                 (link["to_kind"], link["to_id"], link["to_port"]))
        by_ports.setdefault(tuple(sorted(ports)), []).append(link)
    return [Cable(((a[0], a[1]), (b[0], b[1])), tuple(link["link"] for link in links))
            for (a, b), links in by_ports.items()]


def _node_leaf(fabric: dict) -> dict[int, int]:
    return {link["from_id"]: link["to_id"] for link in fabric["links"] if link["from_kind"] == "node"}


def layout(fabric: dict, with_nodes: bool) -> dict[Place, tuple[float, float]]:
    """Where every switch (and, `with_nodes`, every node) is drawn."""
    levels = {s["switch"]: s["level"] for s in fabric["switches"]}
    if levels and max(levels.values()) > 0:
        return _tree_layout(fabric, levels, with_nodes)
    if fabric["topology"]["name"] == "torus":
        return _grid_layout(fabric, with_nodes)
    return _ring_layout(fabric, with_nodes)


def _tree_layout(fabric: dict, levels: dict[int, int], with_nodes: bool) -> dict[Place, tuple[float, float]]:
    under: dict[int, list[int]] = {}
    for node, leaf in sorted(_node_leaf(fabric).items()):
        under.setdefault(leaf, []).append(node)
    places: dict[Place, tuple[float, float]] = {}
    x = 0.0
    for leaf in sorted(s for s, level in levels.items() if level == 0):
        width = max(1, len(under.get(leaf, []))) if with_nodes else 1
        places[("switch", leaf)] = (x + (width - 1) / 2, 1.0)
        if with_nodes:
            for i, node in enumerate(under.get(leaf, [])):
                places[("node", node)] = (x + i, 0.0)
        x += width + (0.5 if with_nodes else 0.0)
    total = max(x - (0.5 if with_nodes else 0.0), 1.0)
    for level in sorted({level for level in levels.values() if level > 0}):
        row = sorted(s for s, lv in levels.items() if lv == level)
        for i, s in enumerate(row):
            places[("switch", s)] = ((i + 0.5) * total / len(row) - 0.5, 1.0 + level)
    return places


def _grid_layout(fabric: dict, with_nodes: bool) -> dict[Place, tuple[float, float]]:
    """A torus on its grid: switch s = x + kx·(y + ky·z) (docs/topology.md, "torus") at (x, y) of plane z, the
    planes side by side; each switch's nodes on a small circle round it. Wraparound cables cross the plane."""
    topology = fabric["topology"]
    kx, ky = topology["size_x"], topology["size_y"]
    places: dict[Place, tuple[float, float]] = {}
    for switch in fabric["switches"]:
        s = switch["switch"]
        x, y, z = s % kx, (s // kx) % ky, s // (kx * ky)
        places[("switch", s)] = (float(x + z * (kx + 1)), float(y))
    if with_nodes:
        under: dict[int, list[int]] = {}
        for node, leaf in sorted(_node_leaf(fabric).items()):
            under.setdefault(leaf, []).append(node)
        for s, nodes in under.items():
            cx, cy = places[("switch", s)]
            for i, node in enumerate(nodes):
                angle = math.pi / 4 + 2 * math.pi * i / len(nodes)
                places[("node", node)] = (cx + 0.3 * math.cos(angle), cy + 0.3 * math.sin(angle))
    return places


def _ring_layout(fabric: dict, with_nodes: bool) -> dict[Place, tuple[float, float]]:
    switches = sorted(s["switch"] for s in fabric["switches"])
    places: dict[Place, tuple[float, float]] = {}
    ring = 0.0 if len(switches) == 1 else 1.0
    angles = {s: 2 * math.pi * i / len(switches) for i, s in enumerate(switches)}
    for s in switches:
        places[("switch", s)] = (ring * math.cos(angles[s]), ring * math.sin(angles[s]))
    if not with_nodes:
        return places
    under: dict[int, list[int]] = {}
    for node, leaf in sorted(_node_leaf(fabric).items()):
        under.setdefault(leaf, []).append(node)
    arc = 2 * math.pi / len(switches)  # each switch's nodes share its slice of the outer circle
    outer = ring + (0.35 if len(switches) > 1 else 1.0)
    for s, nodes in under.items():
        for i, node in enumerate(nodes):
            angle = angles[s] + arc * ((i + 0.5) / len(nodes) - 0.5) * (0.8 if len(switches) > 1 else 1.0)
            places[("node", node)] = (outer * math.cos(angle), outer * math.sin(angle))
    return places


def uniform_utilization(fabric: dict) -> dict[int, float]:
    """Each link's utilization when every node offers the uniform bound (its uniform_load x uniform_bound, from
    `ibsec-engine topology`): 1 on the links that set the bound (docs/network.md, "The bound from the routes")."""
    bound = fabric["topology"]["uniform_bound"]
    return {int(link["link"]): float(link["uniform_load"]) * bound for link in fabric["links"]}


def link_utilization(result_path: str | Path, fabric: dict) -> dict[int, float]:
    """Each link's utilization from a run's links table (sim.detail=links), by link index; InputError when the
    result has no links table or its links are not this fabric's."""
    import io
    import json

    import pandas as pd

    result_path = Path(result_path)
    try:
        result = json.loads(read_input_text(result_path, "a run result"))
        file = result["detail"]["links"]["file"]
    except json.JSONDecodeError as error:
        raise InputError(result_path, f"not JSON ({error})") from None
    except (KeyError, TypeError):
        raise InputError(result_path, "has no links table: run with --set sim.detail=links") from None
    table_path = result_path.parent / Path(str(file)).name
    table = pd.read_csv(io.StringIO(read_input_text(table_path, "a run's links table")))
    missing = {"link", "name", "utilization"} - set(table.columns)
    if missing:
        raise InputError(table_path, f"lacks the column(s) {', '.join(sorted(missing))}")
    names = [link["name"] for link in fabric["links"]]
    if list(table["name"]) != names:
        raise InputError(table_path, f"its {len(table)} links are not the {len(names)} of the fabric drawn: give the "
                                     "config (and --set) the run was made with")
    return dict(zip(table["link"].astype(int), table["utilization"].astype(float), strict=True))


def _counted(value: int, name: str) -> str:
    """"1 switch", "16 nodes": a count with its noun (the names are plurals)."""
    return f"{value} {name[:-1] if value == 1 and name.endswith('s') else name}"


def title_of(fabric: dict) -> str:
    topology = fabric["topology"]
    meta = topology.get("topology_meta", {})
    # The counts of parts (nodes, switches, levels, leaves, ...), not of links (a mixed fabric's links at each
    # rate among them) or ports, none that is 0, and no figure that is not a count (the uniform bound).
    counts = [_counted(topology[name], name) for name, about in meta.items()
              if about.get("unit") not in ("links", "ports") and type(topology[name]) is int and topology[name] != 0]
    return f"{topology['name']}: {', '.join(counts)}"


RUN_LABEL = "link utilization, busier direction (fraction)"
UNIFORM_LABEL = "link utilization at the uniform bound, busier direction (fraction)"


def draw(fabric: dict, utilization: dict[int, float] | None = None, with_nodes: bool | None = None,
         label: str = RUN_LABEL):
    """The fabric as a matplotlib figure; cables coloured by utilization when it is given, its colour bar named
    `label`."""
    from matplotlib.collections import LineCollection

    from .figure_style import fitted_title, subplots

    if with_nodes is None:
        with_nodes = fabric["topology"]["nodes"] <= MAX_DRAWN_NODES
    places = layout(fabric, with_nodes)
    shown = [cable for cable in cables(fabric) if cable.ends[0] in places and cable.ends[1] in places]
    tree = any(s["level"] > 0 for s in fabric["switches"])
    fig, ax = subplots(**_size(fabric, places, tree))
    segments = [_line(places[a], places[b]) for a, b in (cable.ends for cable in shown)]
    if utilization is None:
        ax.add_collection(LineCollection(segments, colors="0.6", linewidths=0.8, zorder=1))
    else:
        busy = [max(utilization.get(link, 0.0) for link in cable.links) for cable in shown]
        lines = LineCollection(segments, cmap="viridis", linewidths=1.6, zorder=1)
        lines.set_array(busy)
        lines.set_clim(0.0, max(max(busy, default=0.0), 1e-9))
        ax.add_collection(lines)
        fig.colorbar(lines, ax=ax, label=label, shrink=0.8)
    _draw_places(ax, fabric, places)
    ax.set_title(fitted_title(title_of(fabric) + ("" if with_nodes else " (nodes not drawn)")))
    ax.set_aspect("auto" if tree else "equal")
    ax.autoscale_view()
    ax.margins(0.05)
    ax.set_axis_off()
    return fig


def _size(fabric: dict, places: dict[Place, tuple[float, float]], tree: bool) -> dict[str, float]:
    """The figure's width and height in inches: a tree as wide as its leaves need with a row per level, a torus's
    planes side by side, anything else square."""
    span_x = max(x for x, _ in places.values()) - min(x for x, _ in places.values())
    span_y = max(y for _, y in places.values()) - min(y for _, y in places.values())
    if tree:
        return {"width": min(18.0, max(6.4, 0.12 * span_x + 2)), "height": min(10.0, 1.1 * (span_y + 1) + 1)}
    if fabric["topology"]["name"] == "torus":
        return {"width": min(18.0, max(6.4, 1.1 * span_x + 2)), "height": min(10.0, max(3.0, 1.1 * span_y + 2))}
    return {"width": 6.4, "height": 6.4}


def _line(a: tuple[float, float], b: tuple[float, float]) -> list[tuple[float, float]]:
    """A cable as drawn: straight between neighbours; bowed when it jumps over others on one row or column (a
    torus's wraparound), so that it does not hide under the cables it passes."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy)
    if length <= 1.01 or (dx != 0 and dy != 0):
        return [a, b]
    bow = 0.25 + 0.05 * length  # perpendicular offset of the middle, in grid units
    normal = (-dy / length * bow, dx / length * bow)
    points = []
    for i in range(17):
        t = i / 16
        lift = 4 * t * (1 - t)  # 0 at the ends, 1 in the middle
        points.append((a[0] + dx * t + normal[0] * lift, a[1] + dy * t + normal[1] * lift))
    return points


def _draw_places(ax, fabric: dict, places: dict[Place, tuple[float, float]]) -> None:
    switch_xy = [places[("switch", s["switch"])] for s in fabric["switches"]]
    node_xy = [xy for (kind, _), xy in places.items() if kind == "node"]
    ax.scatter(*zip(*switch_xy, strict=True), marker="s", s=60, color="tab:blue", zorder=3, label="switch")
    if node_xy:
        ax.scatter(*zip(*node_xy, strict=True), marker="o", s=14, color="tab:orange", zorder=3, label="node (card)")
    if len(fabric["switches"]) <= MAX_LABELLED_SWITCHES:
        for s in fabric["switches"]:
            x, y = places[("switch", s["switch"])]
            ax.annotate(str(s["switch"]), (x, y), ha="center", va="center", fontsize=5, color="white", zorder=4)
    if node_xy and len(node_xy) <= MAX_LABELLED_NODES:
        for (kind, index), (x, y) in places.items():
            if kind == "node":
                ax.annotate(str(index), (x, y), textcoords="offset points", xytext=(0, -7), ha="center",
                            va="top", fontsize=5)
    ax.legend(loc="upper right", fontsize=6, frameon=False)


def check_picture_path(out: str | Path, field: str) -> None:
    """ConfigError naming `field` unless `out` is a writable file with one of FORMATS as its suffix."""
    from ..errors import ConfigError
    from .figure_style import FORMATS
    from .files import check_output_file

    if Path(out).suffix.lower().lstrip(".") not in FORMATS:
        raise ConfigError(field, f"{str(out)!r}: the picture's format comes from its suffix, one of "
                                 f"{', '.join('.' + fmt for fmt in FORMATS)}")
    check_output_file(out, field)


def write_drawing(out: str | Path, fabric: dict, utilization: dict[int, float] | None = None,
                  with_nodes: bool | None = None, label: str = RUN_LABEL) -> Path:
    """draw() written to `out` (checked by check_picture_path) atomically and reproducibly (no dates inside)."""
    import matplotlib.pyplot as plt

    from .figure_style import write_picture

    fig = draw(fabric, utilization, with_nodes, label)
    try:
        return write_picture(fig, out)
    finally:
        plt.close(fig)
