"""Writing one process's program: the MPI calls a benchmark makes, in order.

Generators call these methods in the order the benchmark's MPI source makes
the calls; the timeline (timeline.py) later gives every call its times.
Compute durations get a small seeded jitter, because a real run never
repeats a phase to the nanosecond and a trace whose gaps are all identical
would make every process line up unrealistically in the replay.
"""

from __future__ import annotations

import random

from .timeline import COLL, COMPUTE, IDLE, IRECV, ISEND, RECV, ROOTED, SEND, UNROOTED, WAIT

JITTER = 0.02  # relative standard deviation of compute durations


def rank_rng(bench: str, seed: int, rank: int) -> random.Random:
    """The random stream of one process: independent of how many others there are."""
    return random.Random(f"ibsec-workload:{bench}:{seed}:{rank}")


class Rank:
    """Records the operations of one process.

    `take()` hands the recorded operations over and starts a new batch, so a
    generator can produce a long run one iteration at a time.
    """

    def __init__(self, rank: int, rng: random.Random, jitter: float = JITTER):
        self.rank = rank
        self.rng = rng
        self.jitter = jitter
        self._ops: list[tuple] = []
        self._free_requests: list[int] = []
        self._next_request = 0

    def take(self) -> list[tuple]:
        ops, self._ops = self._ops, []
        return ops

    # ---- computing ---------------------------------------------------------------

    def compute(self, ns: float) -> None:
        """Compute for about `ns` nanoseconds (jittered)."""
        if ns <= 0:
            return
        if self.jitter:
            ns *= min(1.5, max(0.5, 1.0 + self.jitter * self.rng.gauss(0.0, 1.0)))
        duration = int(ns + 0.5)
        if duration > 0:
            self._ops.append((COMPUTE, duration))

    def idle_until(self, t_ns: int) -> None:
        """Do nothing until an absolute time (an external arrival, a think time)."""
        self._ops.append((IDLE, int(t_ns)))

    # ---- point to point ------------------------------------------------------------

    def send(self, peer: int, nbytes: int, tag: int) -> None:
        self._ops.append((SEND, peer, int(nbytes), tag))

    def recv(self, peer: int, nbytes: int, tag: int) -> None:
        self._ops.append((RECV, peer, int(nbytes), tag))

    def isend(self, peer: int, nbytes: int, tag: int) -> int:
        req = self._open_request()
        self._ops.append((ISEND, peer, int(nbytes), tag, req))
        return req

    def irecv(self, peer: int, nbytes: int, tag: int) -> int:
        req = self._open_request()
        self._ops.append((IRECV, peer, int(nbytes), tag, req))
        return req

    def wait(self, *requests: int) -> None:
        """MPI_Wait, or MPI_Waitall as one wait per request in the given order."""
        for req in requests:
            self._ops.append((WAIT, req))
            self._free_requests.append(req)

    def exchange(self, peer: int, send_bytes: int, recv_bytes: int, tag: int) -> None:
        """The NPB idiom irecv(peer); send(peer); wait: one swap with a partner."""
        req = self.irecv(peer, recv_bytes, tag)
        self.send(peer, send_bytes, tag)
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
        self._ops.append((COLL, name, comm, root if name in ROOTED else -1, int(nbytes)))

    def barrier(self, comm: int = 0) -> None:
        self.collective("barrier", 0, comm=comm)

    def allreduce(self, nbytes: int, comm: int = 0) -> None:
        self.collective("allreduce", nbytes, comm=comm)

    def reduce(self, root: int, nbytes: int, comm: int = 0) -> None:
        self.collective("reduce", nbytes, root=root, comm=comm)

    def alltoall(self, nbytes: int, comm: int = 0) -> None:
        self.collective("alltoall", nbytes, comm=comm)
