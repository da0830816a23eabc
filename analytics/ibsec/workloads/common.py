"""What every workload generator shares: its arguments, its result, small grid helpers."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from .program import Rank, rank_rng
from .timeline import Machine

CLASSES = ("S", "W", "A")

# Paper Table 1: original execution time (s) of class A on 16 processes on the Altix. For reference only:
# the NAS generators' times come from captures of NPB 3.4 (machine.py).
TABLE1_SECONDS = {"CG": 3.72, "MG": 11.86, "LU": 268.61, "SP": 244.12, "BT": 291.73}


@dataclass(frozen=True)
class Params:
    """The arguments of one generation; equal Params give byte-identical traces."""

    bench: str
    procs: int = 16
    cls: str = "A"
    scale: float = 1.0
    seed: int = 1

    def command(self) -> str:
        """The `ibsec trace gen` command that makes this trace (the header's origin)."""
        scale = repr(float(self.scale)).removesuffix(".0")  # shortest text that reads back exactly
        return (f"ibsec trace gen {self.bench} --procs {self.procs} --class {self.cls} --scale {scale} "
                f"--seed {self.seed}")


@dataclass
class Workload:
    """A generated workload: one lazy operation stream per process plus header text."""

    params: Params
    iterations: int  # after --scale
    full_iterations: int  # the benchmark's own count for the class
    notes: list[str]
    programs: list[Iterable[tuple]]
    comms: dict[int, list[int]] = field(default_factory=dict)
    machine: Machine = Machine()  # the original machine the timeline plays the programs on


def scaled(iterations: int, scale: float) -> int:
    """The iteration count after --scale: rounded, and at least one."""
    return max(1, int(iterations * scale + 0.5))


def is_power_of_two(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


def exact_sqrt(n: int) -> int | None:
    root = math.isqrt(n)
    return root if root * root == n else None


def split(n: int, parts: int, index: int) -> tuple[int, int]:
    """(size, first index) of part `index` when n points are cut into `parts`.

    The NPB way: the first n % parts parts get one point more.
    """
    size, extra = divmod(n, parts)
    if index < extra:
        return size + 1, index * (size + 1)
    return size, extra * (size + 1) + (index - extra) * size


def stream(rank: Rank, body: Iterator[None]) -> Iterator[tuple]:
    """Turn a program body that records into `rank` and yields between phases
    into a stream of operations, so only one phase is ever held in memory."""
    for _ in body:
        yield from rank.take()
    yield from rank.take()


def programs(params: Params, body: Callable[[Rank], Iterator[None]], call_gap_ns: float = 0.0,
             jitter: float | None = None) -> list[Iterator[tuple]]:
    """One lazy operation stream per process, each with its own seeded noise (machine.GAP_NOISE unless
    `jitter` gives one spread for every gap)."""
    from .machine import GAP_NOISE

    noise = GAP_NOISE if jitter is None else {"jitter": jitter}
    ranks = [Rank(r, rank_rng(params.bench, params.seed, r), call_gap_ns=call_gap_ns, **noise)
             for r in range(params.procs)]
    return [stream(rank, body(rank)) for rank in ranks]
