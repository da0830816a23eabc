"""A generated trace against a captured one: what the network sees and how long it took.

`summarize(path)` reads a trace (any encoding, through ibsec.traces.reader)
and counts the point-to-point messages and their
bytes (in total and per pair of processes), the collective calls per operation
and communicator, and the original execution time. `compare(generated, real)`
sets two summaries side by side; `compare_with_real(generated, real)` also
checks them against the tolerances the generators are held to (message count
within 2 %, every collective count exact).

Self-messages (PEER = RANK) cross no network: they are counted apart and left
out of the message counts, so a capture that drops them and one that records
them compare alike. (libibsec_capture 1 drops them and says in a `note` how
many calls, sends and receives, it dropped; that number is shown apart.)

Communicators are named by their members, not by their id, since a capture
numbers them in its own way: `world` is MPI_COMM_WORLD, `all` any other
communicator of every process (a split or dup of the world), and anything
smaller by its member list. Collectives are counted once per call (the
events of the communicator's first member).

Beyond the counts, each process's sequence of MPI calls (operation, peer,
bytes, tag, root, communicator by name; not times or request numbers) is
hashed, and the comparison says for how many processes the two sequences are
the same call for call.

    python -m ibsec.workloads.compare GENERATED REAL [--json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..traces.reader import TraceEvent, TraceFile, open_trace

MESSAGE_TOLERANCE = 0.02
# libibsec_capture's note on the self-messages it could not record
DROPPED_SELF = re.compile(r"(\d+) messages between a process and itself were not recorded")


@dataclass
class TraceSummary:
    """What one trace does, in the terms the comparison uses."""

    path: str
    processes: int
    origin: str
    messages: int = 0
    message_bytes: int = 0
    self_messages: int = 0
    dropped_self_calls: int = 0  # a capture's note: self-message sends and receives it did not record
    pairs: Counter = field(default_factory=Counter)  # (src, dst) -> messages
    pair_bytes: Counter = field(default_factory=Counter)  # (src, dst) -> bytes
    collectives: Counter = field(default_factory=Counter)  # (op, communicator name) -> calls
    compute_ns: int = 0  # over all processes
    duration_ns: int = 0
    call_digests: list[str] = field(default_factory=list)  # per process: its sequence of MPI calls

    @property
    def duration_s(self) -> float:
        return self.duration_ns * 1e-9

    def add_message(self, rank: int, peer: int, nbytes: int) -> None:
        if peer == rank:
            self.self_messages += 1
            return
        self.messages += 1
        self.message_bytes += nbytes
        self.pairs[(rank, peer)] += 1
        self.pair_bytes[(rank, peer)] += nbytes

    def to_json(self) -> dict:
        return {
            "path": self.path, "processes": self.processes, "origin": self.origin, "messages": self.messages,
            "message_bytes": self.message_bytes, "self_messages": self.self_messages,
            "dropped_self_calls": self.dropped_self_calls,
            "pairs": {f"{s}->{d}": n for (s, d), n in sorted(self.pairs.items())},
            "collectives": {f"{op} {comm}": n for (op, comm), n in sorted(self.collectives.items())},
            "compute_ns": self.compute_ns, "duration_ns": self.duration_ns, "call_digests": self.call_digests,
        }


# ---- reading ---------------------------------------------------------------------------------

def comm_name(members: tuple[int, ...], processes: int) -> str:
    if len(members) == processes and sorted(members) == list(range(processes)):
        return "all"
    return "ranks " + ",".join(map(str, members))


class _Reader:
    """Folds the events of one trace into a TraceSummary."""

    def __init__(self, trace: TraceFile):
        header = trace.header
        self.trace = trace
        self.comm_names = {0: "world", **{cid: comm_name(m, header.processes) for cid, m in header.comms.items()}}
        self.first_member = {0: 0, **{cid: min(m) for cid, m in header.comms.items()}}
        self.first_start: int | None = None
        dropped = next((DROPPED_SELF.search(note) for note in header.notes if DROPPED_SELF.search(note)), None)
        self.summary = TraceSummary(str(trace.path), header.processes, header.origin,
                                    dropped_self_calls=int(dropped.group(1)) if dropped else 0)
        self.calls = [hashlib.blake2b(digest_size=16) for _ in range(header.processes)]

    def event(self, event: TraceEvent) -> None:
        s = self.summary
        if self.first_start is None or event.start < self.first_start:
            self.first_start = event.start
        s.duration_ns = max(s.duration_ns, event.end - self.first_start)
        role = event.op.role
        if role == "compute":
            s.compute_ns += event.end - event.start
            return
        self.calls[event.rank].update(self.call_text(event).encode())
        if role == "send":
            s.add_message(event.rank, event.number("peer"), event.number("bytes"))
        elif role == "collective":
            comm = event.number("comm")
            if event.rank == self.first_member.get(comm, 0):
                s.collectives[(event.op.name, self.comm_names.get(comm, f"comm {comm}"))] += 1

    def call_text(self, event: TraceEvent) -> str:
        """One call as the sequence digest sees it: no times, no request numbers, communicators by name."""
        words = [event.op.name]
        for name, text in event.values().items():
            if name == "comm":
                words.append(self.comm_names.get(int(text), text))
            elif name != "req":
                words.append(text)
        return " ".join(words) + "\n"

    def read(self) -> TraceSummary:
        for event in self.trace.events():
            self.event(event)
        self.summary.call_digests = [h.hexdigest() for h in self.calls]
        return self.summary


def summarize(path: str | Path) -> TraceSummary:
    """Count what a trace does (any encoding the engine reads)."""
    with open_trace(path) as trace:
        return _Reader(trace).read()


def summarize_workload(params) -> TraceSummary:
    """The counts of a generated workload, and its computation, from its programs without playing them: no times,
    no digests.

    `params` as from ibsec.workloads.make_params; much faster than writing the trace and reading it back.
    """
    from . import build
    from .timeline import COLL, COMPUTE, ISEND, SEND

    workload = build(params)
    procs = params.procs
    names = {0: "world", **{cid: comm_name(tuple(m), procs) for cid, m in workload.comms.items()}}
    first = {0: 0, **{cid: min(m) for cid, m in workload.comms.items()}}
    s = TraceSummary(f"generated: {params.command()}", procs, f"synthetic {params.command()}")
    for rank, program in enumerate(workload.programs):
        for op in program:
            if op[0] == COMPUTE:
                s.compute_ns += op[1]
            elif op[0] == SEND or op[0] == ISEND:
                s.add_message(rank, op[1], op[2])
            elif op[0] == COLL and rank == first[op[2]]:
                s.collectives[(op[1], names[op[2]])] += 1
    return s


# ---- comparing -------------------------------------------------------------------------------

def relative(generated: float, real: float) -> float:
    """(generated - real) / real; 0 when both are 0."""
    if real == 0:
        return 0.0 if generated == 0 else float("inf")
    return (generated - real) / real


@dataclass
class Comparison:
    generated: TraceSummary
    real: TraceSummary
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems

    def collective_rows(self) -> list[tuple[str, str, int, int]]:
        keys = sorted(set(self.generated.collectives) | set(self.real.collectives))
        return [(op, comm, self.generated.collectives[(op, comm)], self.real.collectives[(op, comm)])
                for op, comm in keys]

    def pair_deviation(self) -> tuple[float, tuple[int, int] | None]:
        """The largest relative difference of one pair's message count, and that pair."""
        worst, where = 0.0, None
        for pair in set(self.generated.pairs) | set(self.real.pairs):
            d = abs(relative(self.generated.pairs[pair], self.real.pairs[pair]))
            if d > worst:
                worst, where = d, pair
        return worst, where

    def same_call_sequences(self) -> int:
        """Processes whose MPI calls are the same, one for one, in both traces."""
        return sum(a == b for a, b in zip(self.generated.call_digests, self.real.call_digests, strict=False))

    def text(self) -> str:
        g, r = self.generated, self.real
        rows = [("", "generated", "real", "difference")]
        for name, a, b in (("messages", g.messages, r.messages), ("message bytes", g.message_bytes, r.message_bytes),
                           ("self-messages (no network)", g.self_messages, r.self_messages),
                           ("self-message calls not recorded", g.dropped_self_calls, r.dropped_self_calls),
                           ("peer pairs", len(g.pairs), len(r.pairs))):
            rows.append((name, str(a), str(b), f"{relative(a, b):+.2%}"))
        worst, pair = self.pair_deviation()
        rows.append(("worst pair (messages)", str(g.pairs[pair]) if pair else "-",
                     str(r.pairs[pair]) if pair else "-", f"{worst:.2%} at {pair[0]}->{pair[1]}" if pair else "0"))
        for op, comm, a, b in self.collective_rows():
            rows.append((f"{op} on {comm}", str(a), str(b), "" if a == b else f"{a - b:+d}"))
        rows.append(("processes with the same MPI calls", str(self.same_call_sequences()), str(r.processes), ""))
        rows.append(("execution time (s)", f"{g.duration_s:.4f}", f"{r.duration_s:.4f}",
                     f"x{g.duration_ns / r.duration_ns:.2f}" if r.duration_ns else ""))
        widths = [max(len(row[i]) for row in rows) for i in range(4)]
        out = ["  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row))
               for row in rows]
        out += [f"problem: {p}" for p in self.problems]
        return "\n".join(out)

    def to_json(self) -> dict:
        worst, pair = self.pair_deviation()
        return {"generated": self.generated.to_json(), "real": self.real.to_json(), "problems": self.problems,
                "worst_pair": {"pair": list(pair) if pair else None, "relative": worst},
                "same_call_sequences": self.same_call_sequences()}


def compare(generated: TraceSummary, real: TraceSummary,
            message_tolerance: float = MESSAGE_TOLERANCE) -> Comparison:
    """Side by side, with what breaks the tolerances listed as problems."""
    problems = []
    if generated.processes != real.processes:
        problems.append(f"processes: generated {generated.processes}, real {real.processes}")
    deviation = relative(generated.messages, real.messages)
    if abs(deviation) > message_tolerance:
        problems.append(f"messages: generated {generated.messages}, real {real.messages} "
                        f"({deviation:+.2%}, tolerance {message_tolerance:.0%})")
    for op, comm, a, b in Comparison(generated, real, []).collective_rows():
        if a != b:
            problems.append(f"{op} on {comm}: generated {a} calls, real {b}")
    return Comparison(generated, real, problems)


def compare_with_real(generated: str | Path | TraceSummary, real: str | Path | TraceSummary,
                      message_tolerance: float = MESSAGE_TOLERANCE) -> Comparison:
    """Compare a generated trace with a real capture of the same benchmark, class and process count.

    Either may be a path or a summary already made. `result.ok` holds when the
    message count is within `message_tolerance` and every collective count is
    exact; `result.problems` says what is not.
    """
    g = generated if isinstance(generated, TraceSummary) else summarize(generated)
    r = real if isinstance(real, TraceSummary) else summarize(real)
    return compare(g, r, message_tolerance)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ibsec.workloads.compare",
                                     description="Compare a generated trace with a captured one.")
    parser.add_argument("generated", help="the generated trace")
    parser.add_argument("real", help="the captured trace of the same benchmark, class and process count")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--tolerance", type=float, default=MESSAGE_TOLERANCE,
                        help="relative tolerance on the message count (default: %(default)s)")
    args = parser.parse_args(argv)
    result = compare_with_real(args.generated, args.real, args.tolerance)
    print(json.dumps(result.to_json(), indent=1) if args.json else result.text())
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
