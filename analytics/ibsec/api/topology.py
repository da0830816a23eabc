"""`ibsec.topology`: a configuration's fabric without running it, as `ibsec topology show|draw` gives it."""

from __future__ import annotations

from pathlib import Path


def describe(config: str | Path | None = None, set: dict | None = None) -> dict:  # noqa: A002
    """The fabric `ibsec.run(config, set=...)` would build: {"topology": counts, "switches": [...], "links": [...
    in the order a run's links table numbers them], "columns_meta": {...}}. `config`: a config file or a shipped
    config's name; `set`: parameters over it. ConfigError or EngineError naming the file or key refused."""
    from ..engine.fabric import describe_fabric
    from .simulate import overrides_of

    return describe_fabric(config, overrides_of(set, "set"))


def draw(out: str | Path, config: str | Path | None = None, set: dict | None = None,  # noqa: A002
         run: str | Path | None = None, nodes: bool | None = None) -> Path:
    """Writes a picture of the fabric to `out` (.svg, .pdf or .png), cables coloured by the utilization in
    `run`'s links table when it is given (a result made with sim.detail=links from the same config and set);
    `nodes` True draws the nodes of a large fabric too. Returns the path written."""
    from ..output.fabric_drawing import check_picture_path, link_utilization, write_drawing

    check_picture_path(out, "out")
    fabric = describe(config, set)
    return write_drawing(out, fabric, link_utilization(run, fabric) if run is not None else None, nodes)
