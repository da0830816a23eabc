"""Writing one process's program: the MPI calls a benchmark makes, in order.

Generators call these methods in the order the benchmark's MPI source makes
the calls; the timeline (timeline.py) later gives every call its times.

Computing that follows computing is one gap, as a captured trace records the
time between two MPI calls as one `compute` event. A process may also pay a
fixed `call_gap_ns` before every MPI call: the loop and copy work around a
call that no routine's per-point cost accounts for (machine.py).

Each gap is multiplied by seeded noise with mean 1: log-normal with standard
deviation `jitter` of its logarithm (`long_jitter` for gaps of `long_gap_ns`
or more). A real run never repeats a phase to the nanosecond, and how much
its gaps vary matters in a replay: at every exchange a process waits for the
slower partner, so equal gaps would make the processes line up
unrealistically and the run look shorter than it is. Short gaps vary more:
one interruption doubles them, while a long phase averages many out.
"""

from __future__ import annotations

import math
import random

from .timeline import COLL, COMPUTE, IDLE, IRECV, ISEND, RECV, ROOTED, SEND, UNROOTED, WAIT

JITTER = 0.02  # standard deviation of the logarithm of a gap's noise, unless the generator says otherwise
NOISE_Z = 4.0  # noise is drawn within this many standard deviations


def rank_rng(bench: str, seed: int, rank: int) -> random.Random:
    """The random stream of one process: independent of how many others there are."""
    return random.Random(f"ibsec-workload:{bench}:{seed}:{rank}")


class Rank:
    """Records the operations of one process.

    `take()` hands the recorded operations over and starts a new batch, so a
    generator can produce a long run one iteration at a time.
    """

    def __init__(self, rank: int, rng: random.Random, jitter: float = JITTER, call_gap_ns: float = 0.0,
                 long_jitter: float | None = None, long_gap_ns: float = math.inf):
        self.rank = rank
        self.rng = rng
        self.jitter = jitter
        self.long_jitter = jitter if long_jitter is None else long_jitter
        self.long_gap_ns = long_gap_ns
        self.call_gap_ns = call_gap_ns
        self._ops: list[tuple] = []
        self._pending_ns = 0.0  # computing since the last call, not yet recorded
        self._free_requests: list[int] = []
        self._next_request = 0

    def take(self) -> list[tuple]:
        self._flush()
        ops, self._ops = self._ops, []
        return ops

    # ---- computing ---------------------------------------------------------------

    def compute(self, ns: float) -> None:
        """Compute for about `ns` nanoseconds (the noise comes when the gap ends)."""
        if ns > 0:
            self._pending_ns += ns

    def _noise(self, sigma: float) -> float:
        """A factor with mean 1: exp(sigma z - sigma^2 / 2), z standard normal (within NOISE_Z)."""
        z = min(NOISE_Z, max(-NOISE_Z, self.rng.gauss(0.0, 1.0)))
        return math.exp(sigma * z - sigma * sigma / 2)

    def _flush(self) -> None:
        """Record the gap computed since the last call as one compute event."""
        ns, self._pending_ns = self._pending_ns, 0.0
        if ns <= 0:
            return
        sigma = self.long_jitter if ns >= self.long_gap_ns else self.jitter
        if sigma:
            ns *= self._noise(sigma)
        duration = int(ns + 0.5)
        if duration <= 0:
            return
        if self._ops and self._ops[-1][0] == COMPUTE:
            duration += self._ops[-1][1]
            self._ops.pop()
        self._ops.append((COMPUTE, duration))

    def _call(self, op: tuple) -> None:
        """Record an MPI call, after the gap before it and the fixed cost every call has."""
        self.compute(self.call_gap_ns)
        self._flush()
        self._ops.append(op)

    def idle_until(self, t_ns: int) -> None:
        """Do nothing until an absolute time (an external arrival, a think time)."""
        self._flush()
        self._ops.append((IDLE, int(t_ns)))

    # ---- point to point ------------------------------------------------------------

    # `comm`: the communicator of the call (0, the world, unless the program
    # sends on a duplicate of its own, as MG, SP and BT do).
    def send(self, peer: int, nbytes: int, tag: int, comm: int = 0) -> None:
        self._call((SEND, peer, int(nbytes), tag, comm))

    def recv(self, peer: int, nbytes: int, tag: int, comm: int = 0) -> None:
        self._call((RECV, peer, int(nbytes), tag, comm))

    def isend(self, peer: int, nbytes: int, tag: int, comm: int = 0) -> int:
        req = self._open_request()
        self._call((ISEND, peer, int(nbytes), tag, req, comm))
        return req

    def irecv(self, peer: int, nbytes: int, tag: int, comm: int = 0) -> int:
        req = self._open_request()
        self._call((IRECV, peer, int(nbytes), tag, req, comm))
        return req

    def wait(self, *requests: int) -> None:
        """MPI_Wait, or MPI_Waitall as one wait per request in the given order
        (a waitall is one call: only its first wait pays the call gap)."""
        for i, req in enumerate(requests):
            if i == 0:
                self._call((WAIT, req))
            else:
                self._flush()
                self._ops.append((WAIT, req))
            self._free_requests.append(req)

    def exchange(self, peer: int, send_bytes: int, recv_bytes: int, tag: int, comm: int = 0) -> None:
        """The NPB idiom irecv(peer); send(peer); wait: one swap with a partner."""
        req = self.irecv(peer, recv_bytes, tag, comm)
        self.send(peer, send_bytes, tag, comm)
        self.wait(req)

    def _open_request(self) -> int:
        """Request ids are reused once waited, as MPI handles are."""
        if self._free_requests:
            return self._free_requests.pop()
        self._next_request += 1
        return self._next_request - 1

    # ---- collectives -----------------------------------------------------------------

    def collective(self, name: str, nbytes: int = 0, root: int = -1, comm: int = 0) -> None:
        if name in ROOTED:
            if root < 0:
                raise ValueError(f"{name} needs a root")
        elif name not in UNROOTED:
            raise ValueError(f"unknown collective {name!r}")
        self._call((COLL, name, comm, root if name in ROOTED else -1, int(nbytes)))

    def barrier(self, comm: int = 0) -> None:
        self.collective("barrier", 0, comm=comm)

    def allreduce(self, nbytes: int, comm: int = 0) -> None:
        self.collective("allreduce", nbytes, comm=comm)

    def bcast(self, root: int, nbytes: int, comm: int = 0) -> None:
        self.collective("bcast", nbytes, root=root, comm=comm)

    def reduce(self, root: int, nbytes: int, comm: int = 0) -> None:
        self.collective("reduce", nbytes, root=root, comm=comm)

    def alltoall(self, nbytes: int, comm: int = 0) -> None:
        self.collective("alltoall", nbytes, comm=comm)
