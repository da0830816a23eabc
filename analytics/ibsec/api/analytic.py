"""`ibsec.analytic`: the Markov ON/OFF cache-capacity model (paper 3.2), the hit-rate predictor and the sizing,
as `ibsec analytic ... --json` gives them.

Cache size as `entries`, or `size` ('16KB') and `entry_bytes` (default 16); ON/OFF means in ms as `on_mean` and
`off_mean`, or a NAS `preset` ('BT') and `machine` ('origin2000', 'sp2'; explicit means win over the preset's).
"""

from __future__ import annotations

from ..models import markov
from ..models.presets import with_preset
from ..numeric import checked, count, hit_rate, optional, positive_real, text
from ..runs.spec_sweep import analytic_entries

# The checks of the Markov model's arguments, as `ibsec analytic hitrate|capacity|states` parse their options.
MODEL_ARGUMENTS = {"entries": optional(count), "entry_bytes": optional(count), "on_mean": optional(positive_real),
                   "off_mean": optional(positive_real), "preset": optional(text), "machine": optional(text)}


def _model_inputs(entries=None, size=None, entry_bytes=None, on_mean=None, off_mean=None, preset=None,
                  machine=None, needs_size: bool = True) -> tuple[int | None, float, float]:
    """(entries, ON mean, OFF mean) from the arguments, checked as a sweep spec's analytic points are."""
    from ..errors import ConfigError

    given = checked({"entries": entries, "size": size, "entry_bytes": entry_bytes, "on_mean": on_mean,
                     "off_mean": off_mean, "preset": preset, "machine": machine}, MODEL_ARGUMENTS)
    parameters = with_preset({name: value for name, value in given.items() if value is not None})
    if "on_mean" not in parameters or "off_mean" not in parameters:
        raise ConfigError("on_mean", "give on_mean and off_mean (ms), or a preset")
    return (analytic_entries(parameters) if needs_size else None), parameters["on_mean"], parameters["off_mean"]


def capacity(entries: int | None = None, size: str | None = None, entry_bytes: int | None = None,
             on_mean: float | None = None, off_mean: float | None = None, preset: str | None = None,
             machine: str | None = None, target: float = 0.9) -> dict:
    """The largest number of sessions n with F_n(entries) >= target, and F either side of it."""
    entries, on, off = _model_inputs(entries, size, entry_bytes, on_mean, off_mean, preset, machine)
    return markov.capacity_report(entries, on, off, hit_rate(target, "target")).as_dict()


def hitrate(processes: int, entries: int | None = None, size: str | None = None, entry_bytes: int | None = None,
            on_mean: float | None = None, off_mean: float | None = None, preset: str | None = None,
            machine: str | None = None) -> float:
    """F_n(x): the hit-rate estimate of `entries` entries shared by `processes` sessions."""
    entries, on, off = _model_inputs(entries, size, entry_bytes, on_mean, off_mean, preset, machine)
    return markov.hit_rate_estimate(entries, count(processes, "processes"), on, off)


def states(processes: int, on_mean: float | None = None, off_mean: float | None = None, preset: str | None = None,
           machine: str | None = None) -> list[float]:
    """P_0 .. P_n: the probability that i of the n sessions are ON (Eq. 1-2)."""
    _, on, off = _model_inputs(on_mean=on_mean, off_mean=off_mean, preset=preset, machine=machine, needs_size=False)
    return markov.state_probabilities(count(processes, "processes"), on, off).tolist()


def predict(processes: int, entries: int | None = None, size: str | None = None, entry_bytes: int | None = None,
            on_mean: float | None = None, off_mean: float | None = None, preset: str | None = None,
            machine: str | None = None, access_rate: float | None = None, policy: str = "lru", ways: int = 0) -> dict:
    """The hit-rate predictor (models/hitrate.py) for `processes` exponential ON/OFF sessions looked up
    `access_rate` times per ms while ON (None: cachesim's default, `ibsec-engine params --command cachesim`):
    policy 'lru' (exact for independent sessions), 'random' or 'fifo'
    (characteristic-time approximations); `ways` 0 for fully associative, else sets of that many ways."""
    from ..models import cachesim
    from ..models import hitrate as predictor

    entries, on, off = _model_inputs(entries, size, entry_bytes, on_mean, off_mean, preset, machine)
    rate = cachesim.default("access_rate") if access_rate is None else access_rate
    return predictor.predict_exponential(entries, count(processes, "processes"), on, off, rate, policy,
                                         ways).as_dict()


def size(nodes: int, target: float = 0.9, trace: str | None = None, preset: str | None = None,
         machine: str = "origin2000", processes_per_node: int = 1, placement: str = "block",
         family: str = "empirical", gap_threshold_ms: float | None = None, entry_bytes: int = 16,
         simulate: bool = False, accesses: int | None = None, policy: str = "lru", ways: int = 0,
         config: str | None = None, confirm: bool = False, target_overhead: float | None = None, scan: bool = False,
         folder: str | None = None) -> dict:
    """The SKC entries for a target hit rate, as `ibsec analytic size --json` gives them: Markov F_n(x), the
    predictor (policy, ways), with `simulate` cachesim (`accesses` look-ups a point; None: the engine's default),
    and for a trace at its own rank count the exact LRU path
    from a cycle-level replay, whose size is then the one chosen (`chosen`). `confirm` replays the trace at each
    model's size; `target_overhead` (%) finds the smallest SKC whose replay costs at most that much execution
    time over NoSecurity. Replays run on `config` (default: the command's, paper-16) and are kept in `folder`
    (default: the user's cache folder), so asking again reuses them."""
    from pathlib import Path

    from ..errors import ConfigError
    from ..models import names, sizing, trace_sizing
    from ..numeric import checked
    from ..output.files import check_output_folder
    from ..shipped import resolve
    from .simulate import cache_folder

    given = checked({"nodes": nodes, "target": target, "preset": preset, "machine": machine,
                     "processes_per_node": processes_per_node, "placement": placement, "family": family,
                     "gap_threshold_ms": gap_threshold_ms, "entry_bytes": entry_bytes, "accesses": accesses,
                     "policy": policy, "ways": ways, "target_overhead": target_overhead}, sizing.ARGUMENTS)
    nodes, per_node, placement = given["nodes"], given["processes_per_node"], given["placement"]
    target, entry_bytes, policy, ways = given["target"], given["entry_bytes"], given["policy"], given["ways"]
    if (trace is None) == (preset is None):
        raise ConfigError("trace", "give trace or preset, one of them")
    if folder is not None:
        check_output_folder(folder, "folder")
    with sizing.fresh_periods_folder() as periods:
        traffic = (sizing.from_trace(trace, nodes, per_node, placement, given["family"], given["gap_threshold_ms"],
                                     Path(periods)) if trace is not None else
                   sizing.from_preset(given["preset"], given["machine"], nodes, per_node, placement))
        answer = sizing.size(traffic, target, entry_bytes, simulate, given["accesses"], policy, ways)
    request = trace_sizing.ReplayRequest(trace, nodes, per_node, placement,
                                         resolve("config", config or names.SIZING_CONFIG, "config"),
                                         Path(folder) if folder is not None else cache_folder(names.SIZING_CACHE_KIND),
                                         confirm, given["target_overhead"], scan)
    answer = trace_sizing.add_replays(answer, traffic, request, target, entry_bytes, policy, ways)
    return {**answer, "nodes": nodes, "processes_per_node": per_node, "placement": placement}
