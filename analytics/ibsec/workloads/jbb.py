"""A SPECjbb2000-style transaction server workload spread over a cluster.

SPECjbb2000 itself runs in one JVM: one terminal thread per warehouse issues
TPC-C-like transactions against in-memory data, with no network and no think
time. To make a cluster workload of it we assume (docs/workloads.md):
  - every process is an application server owning W warehouses and also
    hosting W client terminals (the driver threads);
  - a terminal thinks for an exponential time, then sends its transaction to
    the server owning the target warehouse, chosen uniformly among the other
    processes (little locality); a tenth of the transactions also touch a
    remote warehouse on a second server (TPC-C's remote payments and stock);
  - requests and responses are small (hundreds of bytes to a few KB) and the
    server's service time is exponential around a per-type mean.
Every process is one single-threaded rank: its client sends are isend/irecv
pairs completed by waits when the responses are in, and it serves requests
in the order they arrive (a blocking recv naming the actual sender, as a
trace of MPI_ANY_SOURCE records it). The order of these calls comes from a
discrete-event simulation on the timeline's machine model, which is what
makes the trace consistent; the timeline then gives the times.
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from .common import Params, Workload, scaled
from .program import Rank
from .timeline import Machine

NAME = "JBB"
# class: (warehouses per process, transactions per warehouse)
CLASSES = {"S": (1, 200), "W": (2, 1500), "A": (4, 15000)}
THINK_MEAN_NS = 1_000_000
CLIENT_NS = 15_000  # building a request and reading its answer
REMOTE_SHARE = 0.10
TAG_REQUEST, TAG_RESPONSE = 1, 2


@dataclass(frozen=True)
class TransactionType:
    name: str
    share: float
    request_bytes: int
    response_bytes: int
    service_ns: int


# A TPC-C-like mix (SPECjbb2000 follows TPC-C's operation profile loosely).
MIX = (
    TransactionType("new_order", 0.45, 480, 1400, 250_000),
    TransactionType("payment", 0.43, 260, 720, 120_000),
    TransactionType("order_status", 0.04, 180, 2600, 140_000),
    TransactionType("delivery", 0.04, 160, 420, 600_000),
    TransactionType("stock_level", 0.04, 200, 3800, 450_000),
)
REMOTE = TransactionType("remote_part", 0.0, 220, 360, 60_000)


def procs_problem(procs: int) -> str | None:
    return None if procs >= 2 else f"{NAME} needs at least 2 processes"


@dataclass
class _Open:
    """A transaction in flight at its terminal."""

    terminal: int
    pending: int  # responses still to come
    requests: list[int] = field(default_factory=list)


class Simulation:
    """The event-driven run that fixes the order of every process's calls.

    Each process has one CPU: events for it are handled one at a time, in
    time order, and each handler records the MPI calls it makes.
    """

    def __init__(self, params: Params, machine: Machine = Machine()):
        self.params = params
        self.machine = machine
        warehouses, per_warehouse = CLASSES[params.cls]
        self.warehouses = warehouses
        self.transactions = scaled(per_warehouse, params.scale)
        self.full_transactions = per_warehouse
        self.rng = random.Random(f"ibsec-workload:{NAME}:{params.seed}")
        self.ranks = [Rank(r, self.rng, jitter=0.0) for r in range(params.procs)]
        self.queues: list[deque[tuple]] = [deque() for _ in range(params.procs)]
        self.cpu_free = [0] * params.procs
        self.left = [self.transactions] * (params.procs * warehouses)
        self.channel_free: dict[tuple[int, int, int], int] = {}
        self.events: list[tuple] = []
        self.seq = itertools.count()
        self.txn_ids = itertools.count()
        self.open: dict[int, _Open] = {}
        for terminal in range(params.procs * warehouses):
            self._at(self._think(0), terminal // warehouses, "issue", terminal)

    # ---- the event queue ---------------------------------------------------------

    def _at(self, t: int, rank: int, kind: str, *data) -> None:
        heapq.heappush(self.events, (t, next(self.seq), rank, kind, data))

    def _think(self, now: int) -> int:
        return now + int(self.rng.expovariate(1.0 / THINK_MEAN_NS))

    def _arrival(self, src: int, dst: int, tag: int, nbytes: int, sent: int) -> int:
        """Messages on one channel arrive in the order they were sent (as MPI matches them)."""
        m = self.machine
        arrival = sent + m.send_overhead_ns + m.latency_ns + m.transfer_ns(nbytes)
        key = (src, dst, tag)
        arrival = max(arrival, self.channel_free.get(key, 0))
        self.channel_free[key] = arrival
        return arrival

    def step(self) -> bool:
        """Handle the next event; False when the run is over."""
        if not self.events:
            return False
        t, _, rank, kind, data = heapq.heappop(self.events)
        if self.cpu_free[rank] > t:  # the CPU is busy: handle it when it is free
            self._at(self.cpu_free[rank], rank, kind, *data)
            return True
        r = self.ranks[rank]
        getattr(self, f"_{kind}")(r, t, *data)
        self.queues[rank].extend(r.take())
        return True

    # ---- handlers: each records the calls of one process at time t ---------------------

    def _issue(self, r: Rank, t: int, terminal: int) -> None:
        kind = self.rng.choices(MIX, weights=[x.share for x in MIX])[0]
        first = self._other(r.rank)
        parts = [(first, kind)]
        if self.rng.random() < REMOTE_SHARE and self.params.procs > 2:
            parts.append((self._other(r.rank, first), REMOTE))
        r.idle_until(t)
        now = t + CLIENT_NS
        r.compute(CLIENT_NS)
        txn_id, txn = next(self.txn_ids), _Open(terminal, len(parts))
        for server, part in parts:
            txn.requests.append(r.isend(server, part.request_bytes, TAG_REQUEST))
            txn.requests.append(r.irecv(server, part.response_bytes, TAG_RESPONSE))
            arrival = self._arrival(r.rank, server, TAG_REQUEST, part.request_bytes, now)
            now += 2 * self.machine.post_overhead_ns
            self._at(arrival, server, "serve", r.rank, part, txn_id)
        self.open[txn_id] = txn
        self.cpu_free[r.rank] = now

    def _serve(self, r: Rank, t: int, client: int, part: TransactionType, txn_id: int) -> None:
        r.recv(client, part.request_bytes, TAG_REQUEST)
        service = int(self.rng.expovariate(1.0 / part.service_ns))
        r.compute(service)
        sent = t + service
        r.send(client, part.response_bytes, TAG_RESPONSE)
        arrival = self._arrival(r.rank, client, TAG_RESPONSE, part.response_bytes, sent)
        self.cpu_free[r.rank] = sent + self.machine.send_overhead_ns + self.machine.transfer_ns(part.response_bytes)
        self._at(arrival, client, "answer", txn_id)

    def _answer(self, r: Rank, t: int, txn_id: int) -> None:
        txn = self.open[txn_id]
        txn.pending -= 1
        if txn.pending:
            return
        del self.open[txn_id]
        r.wait(*txn.requests)
        r.compute(CLIENT_NS)
        self.cpu_free[r.rank] = t + CLIENT_NS
        self.left[txn.terminal] -= 1
        if self.left[txn.terminal]:
            self._at(self._think(t + CLIENT_NS), r.rank, "issue", txn.terminal)

    def _other(self, rank: int, also_not: int = -1) -> int:
        """A uniformly chosen process other than `rank` (and `also_not`)."""
        while True:
            peer = self.rng.randrange(self.params.procs)
            if peer != rank and peer != also_not:
                return peer

    # ---- the operation streams --------------------------------------------------------

    def program(self, rank: int) -> Iterator[tuple]:
        """Rank's calls, produced by running the simulation only as far as needed."""
        queue = self.queues[rank]
        while True:
            while not queue:
                if not self.step():
                    return
            yield queue.popleft()


def build(params: Params) -> Workload:
    sim = Simulation(params)
    notes = [
        f"JBB class {params.cls}: {sim.warehouses} warehouses per process, {sim.transactions} of "
        f"{sim.full_transactions} transactions per warehouse (scale {params.scale:g}), "
        f"exponential think time {THINK_MEAN_NS / 1e6:g} ms",
        "SPECjbb2000-style: SPECjbb2000 is a single-JVM benchmark; here every process serves TPC-C-like "
        "transactions (small requests and responses) from terminals spread uniformly over the other "
        "processes, 10% touching a second server",
    ]
    return Workload(params, sim.transactions, sim.full_transactions, notes,
                    [sim.program(r) for r in range(params.procs)])
