"""The original machine of the NAS generators, calibrated on real captures.

The NAS generators imitate traces that libibsec_capture recorded from the
real NPB 3.4 MPI programs (Open MPI 4.1, gfortran 12, 16 processes on the
two-core machine the project is developed on), with the CPU time each
process spent between its MPI calls (trace format version 3), so that the
generated run is that of a machine with a CPU per process, not of the
oversubscribed capture machine. Everything here comes from
those captures or from that machine (docs/workloads.md, "The machine model";
`python -m ibsec.workloads.calibrate` refits COSTS and BLOCK_NS):

- `COSTS`: per benchmark and class, what a unit of work costs in the time
  step and in the set-up, and the fixed gap before every MPI call, in CPU
  time (a unit costs a little more in the larger classes, whose data leave
  the caches);
- `GAP_NOISE`: how much the gaps vary about those costs (the standard
  deviation of the logarithm of a gap's noise, program.py), for short gaps
  and for gaps of LONG_GAP_NS or more;
- `SHARED_MEMORY`: Open MPI's shared-memory transport between two processes,
  from a ping-pong on the same machine;
- `BLOCK_NS`: per benchmark and class, how much longer than its data need a
  call lasts that waits on another process (a receive, a wait for a receive,
  a collective). With 16 processes on 2 cores that time is mostly the
  scheduler's (the partner has to be run before the data exist, then the
  caller again); with a CPU per process, which the CPU-time costs describe,
  it is none, and the table is empty.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .timeline import Machine


@dataclass(frozen=True)
class Costs:
    """What computing costs a NAS generator, in ns (docs/workloads.md, "The machine model").

    A generator charges each routine `weight x units`, the units being the
    routine's local grid points (or nonzeros, or FFT points) on its level;
    the weights say how the routines of one benchmark compare. Routines of the
    time step are charged `iteration_ns` per unit, the set-up outside it
    (initial conditions, matrix generation, verification) `setup_ns`, and every
    MPI call `call_gap_ns` before it.
    """

    iteration_ns: float
    setup_ns: float
    call_gap_ns: float = 0.0


# The medians over the 18 captures (S, W, A of six benchmarks) of the spreads calibrate.py measures.
LONG_GAP_NS = 30_000
GAP_NOISE = {"jitter": 0.46, "long_jitter": 0.30, "long_gap_ns": LONG_GAP_NS}

# (benchmark, class): fitted by calibrate.py on the CPU times of NPB 3.4 captures (docs/workloads.md, "The machine
# model")
COSTS: dict[tuple[str, str], Costs] = {
    ("CG", "S"): Costs(0.632, 6.47, 798),
    ("CG", "W"): Costs(0.821, 4.977, 1012),
    ("CG", "A"): Costs(1.019, 4.075, 941),
    ("MG", "S"): Costs(5.43, 12.741, 1017),
    ("MG", "W"): Costs(3.521, 7.475, 2239),
    ("MG", "A"): Costs(3.262, 6.012, 5616),
    ("LU", "S"): Costs(140.134, 269.321, 919),
    ("LU", "W"): Costs(129.692, 156.163, 1165),
    ("LU", "A"): Costs(121.964, 133.104, 1594),
    ("SP", "S"): Costs(92.693, 1011.769, 885),
    ("SP", "W"): Costs(48.624, 358.868, 1542),
    ("SP", "A"): Costs(54.084, 278.397, 4204),
    ("BT", "S"): Costs(84.676, 961.216, 917),
    ("BT", "W"): Costs(73.258, 491.783, 1032),
    ("BT", "A"): Costs(83.116, 298.946, 1885),
    ("FT", "S"): Costs(1.231, 7.833, 8813),
    ("FT", "W"): Costs(1.428, 7.79, 9566),
    ("FT", "A"): Costs(1.92, 11.897, 12323),
}

# 8 B one way in 0.13 us, 1 MB in 0.6 - 1.4 ms (a 2-process ping-pong, Open MPI 4.1, vader)
SHARED_MEMORY = Machine(latency_ns=150, ns_per_byte=0.6, send_overhead_ns=100, post_overhead_ns=50)

# (benchmark, class): ns. None: the costs above are CPU time, so the generated run is one with a CPU per
# process, whose blocking calls end when their data are there (Open MPI polls). `calibrate.py --block` fits
# one to a capture's wall time, for a machine model of an oversubscribed run.
BLOCK_NS: dict[tuple[str, str], int] = {}


def machine_for(bench: str, cls: str) -> Machine:
    """The machine a generated trace of this benchmark and class is played on."""
    return replace(SHARED_MEMORY, block_ns=BLOCK_NS.get((bench, cls), 0))  # 0 before a fit
