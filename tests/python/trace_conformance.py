"""Two traces of the same MPI run made by different tools -- ibsec's capture library and another tool's trace
imported with `ibsec trace import` -- compared call for call where both record the call (test_otf2_conformance.py).

What is compared:
- point-to-point: per ordered pair of world ranks, the messages and bytes sent (send, isend) and received (recv,
  irecv), self-messages included;
- collectives: per communicator (named by its members, since each tool numbers communicators its own way) and per
  member, the sequence of calls: op, root and size (BYTES, or COUNTS for the vector ops).

Where the other tool records less than the capture library, the difference the importer documents
(docs/importing.md) is expected exactly, never skipped:
- OTF2 keeps only each caller's total of an alltoallv, which the importer spreads evenly over the members: the
  imported COUNTS must be `even_spread` of the captured COUNTS' sum.

Replays are compared by `compare_replays` within the tolerances it states.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ibsec.workloads.compare import read_header, trace_lines
from mpi_monitoring import arguments_in_version

Members = tuple[int, ...]
# One collective call as a member made it: (op, root or None, BYTES or COUNTS).
Call = tuple[str, int | None, int | tuple[int, ...]]

# The imported trace's documented approximation (docs/importing.md, "alltoallv is approximate").
APPROXIMATED = "alltoallv"

# Replay tolerances, and why (compare_replays):
# - packets: exact. Both traces hold the same messages and collective sizes (after the documented alltoallv spread),
#   and the replay cuts each into packets by size alone.
# - SKC hit rate: within 0.002. Hits depend on which keys are cached when a packet needs one, which follows the
#   order of packets; the order follows the compute gaps, which differ between two runs of the program.
# - mean network latency: within 15 %. It is mostly set by sizes and hops, but contention depends on how the
#   messages overlap, i.e. on the compute gaps of two different executions (each tool slows the program in its own
#   way, on a 2-core host running 4 ranks). Measured on NPB class S at 4 ranks: within 5 %.
HIT_RATE_TOLERANCE = 0.002
LATENCY_TOLERANCE = 0.15


@dataclass
class TraceCalls:
    sent: Counter = field(default_factory=Counter)  # (sender, receiver) -> messages
    sent_bytes: Counter = field(default_factory=Counter)
    received: Counter = field(default_factory=Counter)  # (sender, receiver) -> receives
    received_bytes: Counter = field(default_factory=Counter)
    collectives: dict[tuple[Members, int], list[Call]] = field(default_factory=lambda: defaultdict(list))


def format_version(first_line: str, path: Path) -> int:
    words = first_line.split()
    if len(words) != 2 or words[0] != "ibsec-trace" or not words[1].isdigit():
        raise ValueError(f"{path}:1: expected 'ibsec-trace VERSION', found {first_line!r}")
    return int(words[1])


def read_calls(path: Path, ops: dict[str, dict]) -> TraceCalls:
    """The point-to-point traffic and collective sequences of a trace in any encoding. OPS: the engine's op table
    (`ibsec-engine registries --json`), so that every op the format has is read by its argument names."""
    calls = TraceCalls()
    with trace_lines(path) as lines:
        version = format_version(next(lines), path)
        header = read_header(lines)
        comms = {0: tuple(range(header.processes)), **header.comms}
        for number, line in enumerate(lines, header.lines + 2):
            words = line.split()
            if words[0] == "end":
                break
            if words[3] not in ops:
                raise ValueError(f"{path}:{number}: field 'op': {words[3]!r} is not an op of the engine")
            _add_event(calls, ops[words[3]], version, words, comms)
    return calls


def _add_event(calls: TraceCalls, op: dict, version: int, words: list[str], comms: dict[int, Members]) -> None:
    values = dict(zip(arguments_in_version(op, version), words[4:], strict=True))
    rank = int(words[0])
    if op["blocking_form"] in ("send", "isend"):
        pair = (rank, int(values["peer"]))
        calls.sent[pair] += 1
        calls.sent_bytes[pair] += int(values["bytes"])
    elif op["blocking_form"] in ("recv", "irecv"):
        pair = (int(values["peer"]), rank)
        calls.received[pair] += 1
        calls.received_bytes[pair] += int(values["bytes"])
    elif op["collective"]:
        root = int(values["root"]) if "root" in values else None
        size = (tuple(int(c) for c in values["counts"].split(",")) if "counts" in values
                else int(values.get("bytes", 0)))  # a barrier moves nothing
        calls.collectives[(comms[int(values["comm"])], rank)].append((words[3], root, size))


def even_spread(total: int, members: int) -> tuple[int, ...]:
    """How the importer spreads an alltoallv caller's total over the members: equal parts, the remainder one byte
    each to the first members."""
    return tuple(total // members + (1 if i < total % members else 0) for i in range(members))


def _pair_lines(name: str, captured: Counter, imported: Counter) -> list[str]:
    return [f"{name} {s}->{d}: captured {captured[(s, d)]}, imported {imported[(s, d)]}"
            for s, d in sorted(set(captured) | set(imported)) if captured[(s, d)] != imported[(s, d)]]


def compare_point_to_point(captured: TraceCalls, imported: TraceCalls) -> None:
    """Every pair's messages and bytes, sent and received, are the same in both traces."""
    wrong = (_pair_lines("messages sent", captured.sent, imported.sent)
             + _pair_lines("bytes sent", captured.sent_bytes, imported.sent_bytes)
             + _pair_lines("messages received", captured.received, imported.received)
             + _pair_lines("bytes received", captured.received_bytes, imported.received_bytes))
    assert not wrong, f"{len(wrong)} point-to-point differences:\n  " + "\n  ".join(wrong[:12])


def expected_import(call: Call, members: int) -> Call:
    """What the importer must make of a captured call: itself, or the documented approximation of it."""
    op, root, size = call
    if op == APPROXIMATED:
        return op, root, even_spread(sum(size), members)
    return call


def compare_collectives(captured: TraceCalls, imported: TraceCalls) -> None:
    """Per communicator and member, the same sequence of collective calls (op, root, size), the documented
    alltoallv approximation applied to the captured calls."""
    wrong = []
    for key in sorted(set(captured.collectives) | set(imported.collectives)):
        members, rank = key
        mine, theirs = captured.collectives.get(key, []), imported.collectives.get(key, [])
        where = f"rank {rank} on communicator {_members(members)}"
        if len(mine) != len(theirs):
            wrong.append(f"{where}: captured {len(mine)} collective calls, imported {len(theirs)}")
        for index, (call, other) in enumerate(zip(mine, theirs, strict=False)):
            if expected_import(call, len(members)) != other:
                wrong.append(f"{where}, call #{index + 1}: captured {call}, imported {other}")
    assert not wrong, f"{len(wrong)} collective differences:\n  " + "\n  ".join(wrong[:12])


def _members(members: Members) -> str:
    return ",".join(map(str, members)) if len(members) <= 4 else f"{members[0]},{members[1]},...,{members[-1]}"


def spread_alltoallv(source: Path, target: Path) -> int:
    """Copies the text trace SOURCE to TARGET with every alltoallv's COUNTS replaced by the importer's even spread
    of their sum (the approximation applied to the capture, so that its replay can be compared exactly); the number
    of calls changed."""
    changed = 0
    with trace_lines(source) as lines, open(target, "w") as out:
        for line in lines:
            words = line.split(" ")
            if len(words) > 4 and words[3] == APPROXIMATED:
                counts = [int(c) for c in words[-1].split(",")]
                words[-1] = ",".join(map(str, even_spread(sum(counts), len(counts))))
                changed += 1
            out.write(" ".join(words) + "\n")
    return changed


def replay_figures(result: dict) -> dict[str, float]:
    """What a replay's result (`ibsec run --out`) is compared by."""
    stats = result["statistics"]
    return {"packets": stats["packets_delivered"], "hit rate": stats["skc_hit_rate"],
            "latency": stats["latency_mean_ns"]}


def compare_replays(captured: dict, imported: dict) -> None:
    """Packets exactly, hit rate and mean latency within the tolerances above."""
    mine, theirs = replay_figures(captured), replay_figures(imported)
    wrong = []
    if mine["packets"] != theirs["packets"]:
        wrong.append(f"packets: captured {mine['packets']}, imported {theirs['packets']}")
    if abs(mine["hit rate"] - theirs["hit rate"]) > HIT_RATE_TOLERANCE:
        wrong.append(f"hit rate: captured {mine['hit rate']:.5f}, imported {theirs['hit rate']:.5f} "
                     f"(tolerance {HIT_RATE_TOLERANCE})")
    if abs(theirs["latency"] - mine["latency"]) > LATENCY_TOLERANCE * mine["latency"]:
        wrong.append(f"mean latency: captured {mine['latency']:.1f} ns, imported {theirs['latency']:.1f} ns "
                     f"(tolerance {LATENCY_TOLERANCE:.0%})")
    assert not wrong, "replays differ:\n  " + "\n  ".join(wrong)
