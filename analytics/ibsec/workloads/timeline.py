"""The original run of a synthetic workload: START and END of every event.

A generator describes each process as an ordered list of operations
(compute, send, recv, isend, irecv, wait, collectives). Real traces carry the
times of the run they were captured on, and the replay keeps the *gaps*
between events (docs/trace-format.md, "Replay"), so a synthetic trace needs
times that are consistent with each other: a receive cannot end before its
message was sent, a collective ends together for all members. This module
plays the programs on a simple LogGP-like model of the original machine and
emits the event lines in the trace's canonical order (START, then rank, then
the rank's own order), flushing them as soon as no process can still start
an earlier event, so a long workload is never held in memory whole.

Only the ordering of events per process and the matching of messages come
from the generator; every time comes from here.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from operator import itemgetter

# Operation codes. An operation is a tuple whose first element is one of these:
#   (COMPUTE, ns)                       computing for ns nanoseconds
#   (SEND, peer, bytes, tag, comm)       blocking send on communicator comm
#   (RECV, peer, bytes, tag, comm)       blocking receive
#   (ISEND, peer, bytes, tag, req, comm) non-blocking send opening request req
#   (IRECV, peer, bytes, tag, req, comm) non-blocking receive opening request req
#   (WAIT, req)                         completes request req
#   (COLL, name, comm, root, bytes)     collective; root is -1 for unrooted ones
#   (IDLE, until_ns)                    no event: the process is idle until that time
COMPUTE, SEND, RECV, ISEND, IRECV, WAIT, COLL, IDLE = range(8)

ROOTED = frozenset({"bcast", "reduce", "gather", "scatter"})
UNROOTED = frozenset({"barrier", "allreduce", "allgather", "alltoall"})
# Every generated receive names its source.
POSTED_EXACTLY = "exact"

PACKET_BYTES = 256


class TimelineError(RuntimeError):
    """A generator produced an inconsistent program (a bug, never a user error)."""


@dataclass(frozen=True)
class Machine:
    """The original machine, LogGP-like.

    The defaults describe an SGI Altix-class cluster node pair as MPI sees it
    (about 2 us latency, 1 GB/s per message stream, 0.5 us to hand a message
    to the network); the paper's NAS traces were captured on an Altix 3700.
    """

    latency_ns: int = 2_000
    ns_per_byte: float = 1.0
    send_overhead_ns: int = 500
    post_overhead_ns: int = 200
    # A call that waits on another process (a receive, a wait for a receive, a collective) lasts this
    # much longer than its data need: on a machine with more processes than cores, the time the
    # scheduler takes to run the partner and then the caller again.
    block_ns: int = 0

    def transfer_ns(self, nbytes: int) -> int:
        return int(nbytes * self.ns_per_byte + 0.5)

    def resume(self, start: int, ready: int) -> int:
        """When a call that began at `start` and waits on data ready at `ready` returns."""
        return max(start, ready) + self.block_ns

    def collective_ns(self, name: str, nbytes: int, size: int) -> int:
        """Time from the last member's arrival to the end of a collective.

        Tree and recursive-doubling algorithms take ceil(log2 size) rounds;
        personalised exchanges (alltoall) and data gathering move
        (size - 1) blocks through each process.
        """
        if size <= 1:
            return 0
        rounds = math.ceil(math.log2(size))
        hop = self.latency_ns + self.send_overhead_ns
        if name == "barrier":
            return rounds * hop
        if name in ("bcast", "reduce", "allreduce"):
            return rounds * (hop + self.transfer_ns(nbytes))
        if name == "alltoall":
            return (size - 1) * (hop + self.transfer_ns(nbytes))
        return rounds * hop + (size - 1) * self.transfer_ns(nbytes)  # gather, scatter, allgather


def packets(nbytes: int, packet_bytes: int = PACKET_BYTES) -> int:
    """Packets of one message; an empty message still sends one."""
    return max(1, -(-nbytes // packet_bytes))


def collective_packets(name: str, nbytes: int, size: int, packet_bytes: int = PACKET_BYTES) -> int:
    """Packets of one collective if expanded with the usual algorithms (an estimate).

    barrier and allreduce: recursive doubling, size * ceil(log2 size) messages;
    bcast, reduce, gather, scatter: a tree, size - 1 messages;
    allgather and alltoall: every pair, size * (size - 1) messages.
    """
    if size <= 1:
        return 0
    if name in ("barrier", "allreduce"):
        return size * math.ceil(math.log2(size)) * packets(nbytes, packet_bytes)
    if name in ROOTED:
        return (size - 1) * packets(nbytes, packet_bytes)
    return size * (size - 1) * packets(nbytes, packet_bytes)


@dataclass
class TimelineStats:
    """What a generated trace holds, named as docs/running.md#counts names it: the application messages
    (point-to-point sends, those to the sender itself included), the collective calls (one per process and
    call), and an estimate of the packets the network carries for them."""

    events: int = 0
    application_messages: int = 0
    self_messages: int = 0  # of the application messages, to the sender itself: no network
    message_bytes: int = 0  # of the application messages
    collective_calls: int = 0
    packets: int = 0  # of 256 B, self-messages left out, collectives expanded as collective_packets() says
    first_start: int | None = None
    last_end: int = 0

    @property
    def duration_ns(self) -> int:
        """The original execution time: latest END minus earliest START."""
        return 0 if self.first_start is None else self.last_end - self.first_start


class _Receive:
    """One posted receive: its arrival time once the matching send is known."""

    __slots__ = ("arrival", "waiter")

    def __init__(self) -> None:
        self.arrival: int | None = None
        self.waiter: int | None = None  # rank blocked on it


class _Channel:
    """Messages from one rank to another with one tag, matched in order."""

    __slots__ = ("sends", "receives")

    def __init__(self) -> None:
        self.sends: deque[tuple[int, int]] = deque()  # (arrival, bytes) not yet received
        self.receives: deque[tuple[_Receive, int]] = deque()  # (receive, bytes) not yet sent


class _Collective:
    __slots__ = ("name", "root", "nbytes", "joined", "latest_start", "end", "waiters")

    def __init__(self, name: str, root: int, nbytes: int) -> None:
        self.name, self.root, self.nbytes = name, root, nbytes
        self.joined = 0
        self.latest_start = 0
        self.end: int | None = None
        self.waiters: list[int] = []


_RUNNABLE, _BLOCKED, _FINISHED = range(3)


class Timeline:
    """Plays per-process programs on the machine model.

    `lines()` yields the event lines in canonical order; `run()` only
    computes the statistics (faster: no text). Either may be called once.
    """

    TURN = 512  # operations a process runs before the next one gets a turn
    FLUSH_EVERY = 20_000  # buffered events before the first try to flush

    def __init__(self, programs: Sequence[Iterable[tuple]], machine: Machine = Machine(),
                 comms: dict[int, Sequence[int]] | None = None, record: bool = True):
        self.machine = machine
        self.size = len(programs)
        self.comms = {0: range(self.size), **(comms or {})}
        self.stats = TimelineStats()
        self._record = record
        self._programs = [iter(p) for p in programs]
        self._clock = [0] * self.size
        self._current: list[tuple | None] = [None] * self.size
        self._pending: list[object] = [None] * self.size  # receive or collective of a blocked op
        self._requests: list[dict[int, object]] = [{} for _ in range(self.size)]
        self._coll_seq: list[dict[int, int]] = [{} for _ in range(self.size)]
        self._collectives: dict[tuple[int, int], _Collective] = {}
        self._channels: dict[tuple[int, int, int], _Channel] = {}
        self._events: list[deque[tuple[int, str]]] = [deque() for _ in range(self.size)]
        self._buffered = 0
        self._flush_at = self.FLUSH_EVERY
        self._finished = [False] * self.size
        self._ready: deque[int] = deque(range(self.size))
        # indexed by operation code
        self._handlers = (self._compute, self._send, self._recv, self._isend, self._irecv, self._wait,
                          self._collective, self._idle)

    # ---- public -------------------------------------------------------------

    def lines(self) -> Iterator[str]:
        """Event lines (without newline) in non-decreasing START, ties by rank."""
        while self._ready:
            rank = self._ready.popleft()
            if self._advance(rank) == _RUNNABLE:
                self._ready.append(rank)
            if self._buffered >= self._flush_at:
                yield from self._flush(self._watermark())
                # a process far behind the others holds events back: try again only after more came in
                self._flush_at = max(self.FLUSH_EVERY, 2 * self._buffered)
        self._check_all_finished()
        yield from self._flush(None)

    def run(self) -> TimelineStats:
        """Play the programs without producing text; return the statistics."""
        for _ in self.lines():
            pass
        return self.stats

    # ---- output ---------------------------------------------------------------

    def _watermark(self) -> int | None:
        """No process can start an event before this time any more."""
        clocks = [self._clock[r] for r in range(self.size) if not self._finished[r]]
        return min(clocks) if clocks else None

    def _flush(self, cut: int | None) -> Iterator[str]:
        """Yield buffered events that start before `cut` (all if None), merged."""
        batches = []
        for queue in self._events:
            if cut is None:
                batch = list(queue)
                queue.clear()
            else:
                batch = []
                while queue and queue[0][0] < cut:
                    batch.append(queue.popleft())
            batches.append(batch)
            self._buffered -= len(batch)
        for _, line in heapq.merge(*batches, key=itemgetter(0)):  # stable: ties keep rank order
            yield line

    def _emit(self, rank: int, start: int, end: int, text: str) -> None:
        stats = self.stats
        stats.events += 1
        if stats.first_start is None or start < stats.first_start:
            stats.first_start = start
        if end > stats.last_end:
            stats.last_end = end
        if self._record:
            self._events[rank].append((start, f"{rank} {start} {end} {text}"))
            self._buffered += 1

    # ---- messages ---------------------------------------------------------------

    def _channel(self, src: int, dst: int, tag: int) -> _Channel:
        key = (src, dst, tag)
        channel = self._channels.get(key)
        if channel is None:
            channel = self._channels[key] = _Channel()
        return channel

    def _post_send(self, src: int, dst: int, nbytes: int, tag: int, start: int) -> int:
        """Register a send; return when the sender's buffer is free again."""
        if not 0 <= dst < self.size:
            raise TimelineError(f"rank {src} sends to invalid peer {dst}")
        machine = self.machine
        transfer = machine.transfer_ns(nbytes)
        # A message to itself is a copy in memory: no latency, and no network message in the counts.
        to_self = dst == src
        arrival = start + machine.send_overhead_ns + (0 if to_self else machine.latency_ns + transfer)
        channel = self._channel(src, dst, tag)
        if channel.receives:
            receive, expected = channel.receives.popleft()
            self._check_bytes(src, dst, tag, nbytes, expected)
            receive.arrival = arrival
            if receive.waiter is not None:
                self._ready.append(receive.waiter)
                receive.waiter = None
        else:
            channel.sends.append((arrival, nbytes))
        stats = self.stats
        stats.application_messages += 1
        stats.message_bytes += nbytes
        if to_self:
            stats.self_messages += 1
            return arrival
        stats.packets += packets(nbytes)
        return start + machine.send_overhead_ns + transfer

    def _post_receive(self, dst: int, src: int, nbytes: int, tag: int) -> _Receive:
        if not 0 <= src < self.size:
            raise TimelineError(f"rank {dst} receives from invalid peer {src}")
        channel = self._channel(src, dst, tag)
        receive = _Receive()
        if channel.sends:
            receive.arrival, sent = channel.sends.popleft()
            self._check_bytes(src, dst, tag, sent, nbytes)
        else:
            channel.receives.append((receive, nbytes))
        return receive

    @staticmethod
    def _check_bytes(src: int, dst: int, tag: int, sent: int, received: int) -> None:
        if sent != received:
            raise TimelineError(f"message {src} -> {dst} tag {tag}: sent {sent} bytes, received {received}")

    # ---- collectives ---------------------------------------------------------------

    def _join(self, rank: int, op: tuple, start: int) -> _Collective:
        _, name, comm, root, nbytes = op
        members = self.comms.get(comm)
        if members is None or rank not in members:
            raise TimelineError(f"rank {rank} calls {name} on communicator {comm} it is not in")
        seq = self._coll_seq[rank].get(comm, 0)
        self._coll_seq[rank][comm] = seq + 1
        key = (comm, seq)
        coll = self._collectives.get(key)
        if coll is None:
            coll = self._collectives[key] = _Collective(name, root, nbytes)
        elif (coll.name, coll.root, coll.nbytes) != (name, root, nbytes):
            raise TimelineError(f"rank {rank}: collective {seq} on comm {comm} is {name} {root} {nbytes}, "
                                f"others called {coll.name} {coll.root} {coll.nbytes}")
        coll.joined += 1
        self.stats.collective_calls += 1
        coll.latest_start = max(coll.latest_start, start)
        size = len(members)
        if coll.joined == size:
            coll.end = coll.latest_start + self.machine.collective_ns(name, nbytes, size)
            del self._collectives[key]
            self._ready.extend(coll.waiters)
            coll.waiters.clear()
            self.stats.packets += collective_packets(name, nbytes, size)
        return coll

    # ---- the interpreter -----------------------------------------------------------
    #
    # Each handler gets the operation and its START and returns its END, or None
    # when the process must wait (it has then registered where it waits).

    def _advance(self, rank: int) -> int:
        """Run `rank` until it blocks, finishes or has used its turn."""
        handlers = self._handlers
        program = self._programs[rank]
        clock = self._clock[rank]
        op = self._current[rank]
        for _ in range(self.TURN):
            if op is None:
                op = next(program, None)
                if op is None:
                    self._finished[rank] = True
                    self._clock[rank] = clock
                    return _FINISHED
                self._pending[rank] = None
            end = handlers[op[0]](rank, op, clock)
            if end is None:
                self._current[rank] = op
                self._clock[rank] = clock
                return _BLOCKED
            clock = end
            op = None
        self._clock[rank] = clock
        self._current[rank] = None
        return _RUNNABLE

    def _compute(self, rank: int, op: tuple, start: int) -> int:
        end = start + op[1]
        if end > start:
            self._emit(rank, start, end, "compute")
        return end

    def _send(self, rank: int, op: tuple, start: int) -> int:
        _, peer, nbytes, tag, comm = op
        end = self._post_send(rank, peer, nbytes, tag, start)
        self._emit(rank, start, end, f"send {peer} {nbytes} {tag} {comm}")
        return end

    def _isend(self, rank: int, op: tuple, start: int) -> int:
        _, peer, nbytes, tag, req, comm = op
        self._open(rank, req, self._post_send(rank, peer, nbytes, tag, start))
        end = start + self.machine.post_overhead_ns
        self._emit(rank, start, end, f"isend {peer} {nbytes} {tag} {req} {comm}")
        return end

    def _irecv(self, rank: int, op: tuple, start: int) -> int:
        _, peer, nbytes, tag, req, comm = op
        self._open(rank, req, self._post_receive(rank, peer, nbytes, tag))
        end = start + self.machine.post_overhead_ns
        self._emit(rank, start, end, f"irecv {peer} {nbytes} {tag} {req} {comm} {POSTED_EXACTLY}")
        return end

    def _recv(self, rank: int, op: tuple, start: int) -> int | None:
        _, peer, nbytes, tag, comm = op
        receive = self._pending[rank] or self._post_receive(rank, peer, nbytes, tag)
        if receive.arrival is None:
            return self._wait_for(rank, receive)
        end = self.machine.resume(start, receive.arrival)
        self._emit(rank, start, end, f"recv {peer} {nbytes} {tag} {comm} {POSTED_EXACTLY}")
        return end

    def _wait(self, rank: int, op: tuple, start: int) -> int | None:
        req = op[1]
        done = self._requests[rank].get(req)
        if done is None:
            raise TimelineError(f"rank {rank} waits for request {req}, which is not open")
        if isinstance(done, _Receive):
            if done.arrival is None:
                return self._wait_for(rank, done)
            end = self.machine.resume(start, done.arrival)
        else:
            end = max(start, done)  # a send's buffer is free again: no process had to wait
        del self._requests[rank][req]
        self._emit(rank, start, end, f"wait {req}")
        return end

    def _collective(self, rank: int, op: tuple, start: int) -> int | None:
        coll = self._pending[rank] or self._join(rank, op, start)
        if coll.end is None:
            coll.waiters.append(rank)
            self._pending[rank] = coll
            return None
        _, name, comm, root, nbytes = op
        args = f"{comm} {root} {nbytes}" if name in ROOTED else (f"{comm}" if name == "barrier" else f"{comm} {nbytes}")
        end = self.machine.resume(start, coll.end)
        self._emit(rank, start, end, f"{name} {args}")
        return end

    @staticmethod
    def _idle(rank: int, op: tuple, start: int) -> int:
        return max(start, op[1])

    def _open(self, rank: int, req: int, completion: object) -> None:
        requests = self._requests[rank]
        if req in requests:
            raise TimelineError(f"rank {rank} opens request {req}, which is still open")
        requests[req] = completion

    def _wait_for(self, rank: int, receive: _Receive) -> None:
        """Block `rank` until the receive's message is sent."""
        self._pending[rank] = receive
        receive.waiter = rank
        return None

    def _check_all_finished(self) -> None:
        stuck = [r for r in range(self.size) if not self._finished[r]]
        if stuck:
            detail = ", ".join(f"rank {r} at {self._current[r]!r}" for r in stuck[:8])
            raise TimelineError(f"deadlock: {len(stuck)} processes cannot proceed ({detail})")
