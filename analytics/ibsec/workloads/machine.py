"""The original machine of the NAS generators, calibrated on real captures.

The NAS generators imitate traces that libibsec_capture recorded from the
real NPB 3.4 MPI programs (Open MPI 4.1, gfortran 12, 16 processes on the
two-core machine the project is developed on). Everything here comes from
those captures or from that machine (docs/workloads.md, "The machine model";
`python -m ibsec.workloads.calibrate` refits COSTS and BLOCK_NS):

- `COSTS`: per benchmark and class, what a unit of work costs in the time
  step and in the set-up, and the fixed gap before every MPI call (a unit
  costs more in the larger classes: their long phases share the two cores
  with the other processes and their data leave the caches);
- `GAP_NOISE`: how much the gaps vary about those costs (the standard
  deviation of the logarithm of a gap's noise, program.py), for short gaps
  and for gaps of LONG_GAP_NS or more;
- `SHARED_MEMORY`: Open MPI's shared-memory transport between two processes,
  from a ping-pong on the same machine;
- `BLOCK_NS`: per benchmark and class, how much longer than its data need a
  call lasts that waits on another process (a receive, a wait for a receive,
  a collective). With 16 processes on 2 cores, that time is mostly the
  scheduler's: the partner has to be run before the data exist, then the
  caller again. It is an effective figure, fitted so that the generated
  run lasts as long as the captured one.
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
GAP_NOISE = {"jitter": 0.96, "long_jitter": 0.41, "long_gap_ns": LONG_GAP_NS}

# (benchmark, class): fitted by calibrate.py on NPB 3.4 captures (docs/workloads.md, "The machine model")
COSTS: dict[tuple[str, str], Costs] = {
    ("CG", "S"): Costs(0.814, 8.183, 313),
    ("CG", "W"): Costs(0.899, 22.281, 367),
    ("CG", "A"): Costs(1.201, 46.041, 536),
    ("MG", "S"): Costs(1.202, 12.108, 2293),
    ("MG", "W"): Costs(3.096, 14.896, 12060),
    ("MG", "A"): Costs(18.816, 64.759, 29841),
    ("LU", "S"): Costs(160.523, 208.018, 298),
    ("LU", "W"): Costs(137.466, 151.353, 681),
    ("LU", "A"): Costs(142.654, 577.981, 1342),
    ("SP", "S"): Costs(45.361, 990.547, 1670),
    ("SP", "W"): Costs(69.038, 819.782, 1477),
    ("SP", "A"): Costs(67.42, 2578.645, 4700),
    ("BT", "S"): Costs(54.659, 875.057, 1743),
    ("BT", "W"): Costs(89.676, 455.231, 1038),
    ("BT", "A"): Costs(142.147, 2524.122, 7270),
    ("FT", "S"): Costs(1.362, 98.601, 6609),
    ("FT", "W"): Costs(2.062, 98.166, 7655),
    ("FT", "A"): Costs(17.139, 159.482, 58700),
}

# 8 B one way in 0.13 us, 1 MB in 0.6 - 1.4 ms (a 2-process ping-pong, Open MPI 4.1, vader)
SHARED_MEMORY = Machine(latency_ns=150, ns_per_byte=0.6, send_overhead_ns=100, post_overhead_ns=50)

# (benchmark, class): ns, fitted by calibrate.py --block with COSTS above
BLOCK_NS: dict[tuple[str, str], int] = {
    ("CG", "S"): 133_000,  # the capture lasted 0.409 s
    ("CG", "W"): 309_000,  # the capture lasted 0.981 s
    ("CG", "A"): 620_000,  # the capture lasted 2.147 s
    ("MG", "S"): 85_800,  # the capture lasted 0.054 s
    ("MG", "W"): 1_010_000,  # the capture lasted 0.808 s
    ("MG", "A"): 1_610_000,  # the capture lasted 2.476 s
    ("LU", "S"): 70_700,  # the capture lasted 0.220 s
    ("LU", "W"): 275_000,  # the capture lasted 12.309 s
    ("LU", "A"): 1_090_000,  # the capture lasted 75.685 s
    ("SP", "S"): 139_000,  # the capture lasted 0.360 s
    ("SP", "W"): 2_300_000,  # the capture lasted 22.912 s
    ("SP", "A"): 3_300_000,  # the capture lasted 35.121 s
    ("BT", "S"): 157_000,  # the capture lasted 0.253 s
    ("BT", "W"): 1_050_000,  # the capture lasted 5.349 s
    ("BT", "A"): 10_400_000,  # the capture lasted 57.433 s
    ("FT", "S"): 3_490_000,  # the capture lasted 0.088 s
    ("FT", "W"): 7_550_000,  # the capture lasted 0.195 s
    ("FT", "A"): 0,  # the capture lasted 3.105 s; computing alone takes 3.635 s here
}


def machine_for(bench: str, cls: str) -> Machine:
    """The machine a generated trace of this benchmark and class is played on."""
    return replace(SHARED_MEMORY, block_ns=BLOCK_NS.get((bench, cls), 0))  # 0 before a fit
