"""ibsec: analytic models, sweeps and plots around the ibsec simulator engine.

The Python API (docs/python-api.md)::

    import ibsec
    result = ibsec.run("paper-16", set={"traffic.load": 0.05})   # one engine run -> ibsec.Result
    table = ibsec.sweep("configs/sweeps/skc-ways.toml")          # a sweep spec (file or dict) -> DataFrame
    table = ibsec.collect(["a.json", "runs/"])                     # result files -> one row each
    ibsec.analytic.capacity(size="16KB", preset="BT")              # the Markov model
    ibsec.trace.info("cg.trace.gz")                                # a trace's summary
    ibsec.topology.draw("fabric.svg", "fat-tree-built-432-2to1")   # a fabric, without running it

They run through the same EnginePoint and resumable store as the `ibsec` command. `import ibsec` stays cheap:
the API's modules (and pandas) are imported on first use.
"""

from .version import __version__

__all__ = ["Result", "__version__", "analytic", "collect", "run", "sweep", "topology", "trace"]


def __getattr__(name: str):
    """The API's names, imported when first asked for."""
    if name in ("run", "sweep", "collect"):
        from .api import simulate

        return getattr(simulate, name)
    if name == "Result":
        from .api.result import Result

        return Result
    if name == "analytic":
        from .api import analytic

        return analytic
    if name == "trace":
        from .api import trace

        return trace
    if name == "topology":
        from .api import topology

        return topology
    raise AttributeError(f"module 'ibsec' has no attribute {name!r}")
