"""Open MPI's monitoring components as an independent count of what an MPI program sent, and the same counts
taken from an ibsec trace, so that a captured trace can be checked against them (test_npb.py).

What Open MPI 4.1 counts (`--mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 --mca
pml_monitoring_filename PREFIX`: each process writes PREFIX.<world rank>.prof at MPI_Finalize):

- `E SRC DST BYTES bytes N msgs sent`: point-to-point messages with a tag >= 0, i.e. the program's own
  sends, counted once per send call at the PML (count x type size, as the capture library counts BYTES),
  messages to itself included. Open MPI also files here the messages of a persistent send request
  (MPI_Start), with tag 1 whatever the real tag is -- and its linear alltoall and alltoallv algorithms run on
  persistent requests, so those collectives would land here too. The runs choose the pairwise algorithms
  (MCA below), whose messages carry negative tags.
- `I SRC DST ...`: messages with a negative tag: what the collective algorithms and the library's own
  protocols sent. They depend on the algorithm, not on the program, and a trace does not record them.
- `C SRC DST ...`: per peer, the collective traffic as the coll component accounts it (below), for all
  communicators together.
- `D NAME procs: R0,R1,...` then `O2A|A2O|A2A RANK BYTES bytes N msgs sent`: per communicator (its members as
  world ranks, in communicator-rank order), the collective calls this process made, by kind: one to all
  (bcast, scatter(v), counted at the root only), all to one (reduce, gather(v), at the root only) and all to
  all (the rest, at every member), with the bytes that call logically sends (`monitored_as` below, from
  ompi/mca/coll/monitoring/coll_monitoring_*.c). These count the program's calls, whatever algorithm ran them,
  so they are comparable with a trace's collectives -- except that Open MPI creates a communicator by running
  collectives on its parent (an allgather for MPI_Comm_split, allreduces to agree on its context id), which
  are counted as the parent's all-to-all calls though the program never made them. For the members of a
  communicator that is some communicator's parent (`... SPLIT FROM <id>`), all-to-all is compared as at least.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ibsec.traces.reader import open_trace

# Open MPI parameters for a monitored run: point-to-point and collective traffic counted apart, written to files,
# and the all-to-all algorithms that use plain point-to-point messages (see above).
MONITORING_MCA = {"pml_monitoring_enable": "2", "pml_monitoring_enable_output": "3",
                  "coll_tuned_use_dynamic_rules": "1", "coll_tuned_alltoall_algorithm": "2",
                  "coll_tuned_alltoallv_algorithm": "2"}
KINDS = ("O2A", "A2O", "A2A")
Members = tuple[int, ...]


class SelfMessagesMissing(AssertionError):
    """The trace lacks messages a process sent to itself, and differs in nothing else."""


class CollectiveCallsMissing(AssertionError):
    """The trace has fewer collective calls than Open MPI counted, and differs in nothing else."""


def monitoring_mca(prefix: Path) -> dict[str, str]:
    return {**MONITORING_MCA, "pml_monitoring_filename": str(prefix)}


# ---- Open MPI's output -----------------------------------------------------------------------------------

@dataclass
class Section:
    """One communicator in one process's coll monitoring output."""

    name: str
    procs: Members
    rank: int = -1
    kinds: dict[str, tuple[int, int]] = field(default_factory=dict)  # kind -> (calls, bytes)

    @property
    def cid(self) -> int | None:
        if self.name == "MPI_COMM_WORLD":
            return 0
        if self.name == "MPI_COMM_SELF":
            return 1
        found = re.match(r"MPI COMMUNICATOR (\d+) ", self.name)
        return int(found.group(1)) if found else None  # a name the program set

    @property
    def parent(self) -> int | None:
        found = re.search(r" FROM (\d+)$", self.name)
        return int(found.group(1)) if found else None


@dataclass
class Monitoring:
    messages: Counter = field(default_factory=Counter)  # (src, dst) -> point-to-point messages (tag >= 0)
    bytes: Counter = field(default_factory=Counter)
    sections: list[Section] = field(default_factory=list)

    def collectives(self) -> dict[tuple[int, Members], Counter]:
        """(rank, members) -> {"A2A": calls, "A2A bytes": bytes, ...}, communicators with the same members
        together (a trace's and Open MPI's ids for them differ)."""
        totals: dict[tuple[int, Members], Counter] = defaultdict(Counter)
        for s in self.sections:
            for kind, (calls, nbytes) in s.kinds.items():
                totals[(s.rank, s.procs)][kind] += calls
                totals[(s.rank, s.procs)][f"{kind} bytes"] += nbytes
        return totals

    def parents(self) -> set[Members]:
        """Member lists of the communicators Open MPI created another one from (or whose id is unknown)."""
        parent_ids = {s.parent for s in self.sections if s.parent is not None}
        return {s.procs for s in self.sections if s.cid is None or s.cid in parent_ids}


def _number(text: str, unit: str, where: str) -> int:
    found = re.fullmatch(rf"(\d+) {unit}", text.strip())
    if not found:
        raise ValueError(f"{where}: expected '<number> {unit}', found {text!r}")
    return int(found.group(1))


def read_monitoring(prefix: Path, nprocs: int) -> Monitoring:
    """Every process's PREFIX.<rank>.prof; an error naming the file and line that is missing or unreadable."""
    result = Monitoring()
    for rank in range(nprocs):
        path = Path(f"{prefix}.{rank}.prof")
        if not path.is_file():
            raise AssertionError(f"{path}: Open MPI's monitoring wrote no file for rank {rank}")
        section = None
        for number, line in enumerate(path.read_text().splitlines(), 1):
            where = f"{path}:{number}"
            words = line.split("\t")
            if words[0] == "E":
                pair = (int(words[1]), int(words[2]))
                result.bytes[pair] += _number(words[3], "bytes", where)
                result.messages[pair] += _number(words[4], "msgs sent", where)
            elif words[0] == "D":
                procs = words[2].removeprefix("procs:").strip()
                section = Section(words[1], tuple(int(p) for p in procs.split(",")))
                result.sections.append(section)
            elif words[0] in KINDS:
                if section is None:
                    raise ValueError(f"{where}: {words[0]} before any communicator ('D' line)")
                section.rank = int(words[1])
                section.kinds[words[0]] = (_number(words[3], "msgs sent", where), _number(words[2], "bytes", where))
    return result


# ---- the trace --------------------------------------------------------------------------------------------

def monitored_as(op: str, size: int, me: int, root: int | None, nbytes: int,
                 counts: list[int] | None) -> tuple[str, int] | None:
    """How Open MPI 4.1's coll monitoring files one call of OP (its blocking form) by the member at position ME
    of a communicator of SIZE (ROOT: the root's position): (kind, bytes), or None when this member's call is not
    counted. NBYTES and COUNTS are the trace event's (docs/trace-format.md)."""
    others = size - 1
    if op == "barrier":
        return "A2A", 0
    if op in ("allreduce", "allgather", "alltoall"):
        return "A2A", nbytes * others
    if op in ("alltoallv", "reduce_scatter"):  # what goes to every other member
        return "A2A", sum(counts) - counts[me]
    if op == "allgatherv":
        return "A2A", counts[me] * others
    if op in ("scan", "exscan"):  # Open MPI counts the member itself and those after it
        return "A2A", nbytes * (size - me)
    if me != root:
        return None  # rooted collectives are counted at the root only
    if op in ("bcast", "scatter"):
        return "O2A", nbytes * others
    if op == "scatterv":  # the root's own part included
        return "O2A", sum(counts)
    if op in ("reduce", "gather"):
        return "A2O", nbytes * others
    if op == "gatherv":
        return "A2O", sum(counts) - counts[root]
    raise ValueError(f"no model of how Open MPI's coll monitoring counts {op!r}")


@dataclass
class TraceTraffic:
    messages: Counter = field(default_factory=Counter)  # (rank, peer) -> sends
    bytes: Counter = field(default_factory=Counter)
    collectives: dict[tuple[int, Members], Counter] = field(default_factory=lambda: defaultdict(Counter))


def read_trace_traffic(path: Path) -> TraceTraffic:
    """Per pair, the point-to-point sends of a trace; per (rank, communicator members), its collective calls as
    Open MPI's coll monitoring would count them. Ops are read by the roles and argument names of the engine's op
    table (ibsec.traces.reader)."""
    traffic = TraceTraffic()
    with open_trace(path) as trace:
        for event in trace.events():
            if event.op.role == "send":
                pair = (event.rank, event.number("peer"))
                traffic.messages[pair] += 1
                traffic.bytes[pair] += event.number("bytes")
            elif event.op.role == "collective":
                members = trace.header.members(event.number("comm"))
                _add_collective(traffic, event.op.blocking_form, event.rank, members, event.values())
    return traffic


def _add_collective(traffic: TraceTraffic, op: str, rank: int, members: Members, values: dict[str, str]) -> None:
    counts = [int(c) for c in values["counts"].split(",")] if "counts" in values else None
    root = members.index(int(values["root"])) if "root" in values else None
    nbytes = int(values.get("bytes", sum(counts or [])))
    counted = monitored_as(op, len(members), members.index(rank), root, nbytes, counts)
    if counted is not None:
        kind, sent = counted
        traffic.collectives[(rank, members)][kind] += 1
        traffic.collectives[(rank, members)][f"{kind} bytes"] += sent


# ---- comparisons ------------------------------------------------------------------------------------------

def _pair_differences(mine: tuple[Counter, Counter], theirs: tuple[Counter, Counter]) -> list[tuple]:
    """(pair, (messages, bytes) here, (messages, bytes) there) for every pair where they differ."""
    pairs = sorted(set(mine[0]) | set(theirs[0]))
    found = [(p, (mine[0][p], mine[1][p]), (theirs[0][p], theirs[1][p])) for p in pairs]
    return [d for d in found if d[1] != d[2]]


def _listed(differences: list[tuple], limit: int = 12) -> str:
    shown = [f"{src}->{dst}: trace {a[0]} msgs {a[1]} B, Open MPI {b[0]} msgs {b[1]} B"
             for (src, dst), a, b in differences[:limit]]
    more = f"\n  ... and {len(differences) - limit} more" if len(differences) > limit else ""
    return "\n  " + "\n  ".join(shown) + more


def compare_point_to_point(trace: TraceTraffic, monitoring: Monitoring) -> None:
    """Every pair's point-to-point messages and bytes in the trace are those Open MPI counted."""
    differences = _pair_differences((trace.messages, trace.bytes), (monitoring.messages, monitoring.bytes))
    if not differences:
        return
    text = f"{len(differences)} pairs differ in point-to-point messages:{_listed(differences)}"
    if all(src == dst and mine == (0, 0) for (src, dst), mine, _ in differences):
        raise SelfMessagesMissing(text)
    raise AssertionError(text)


def compare_collectives(trace: TraceTraffic, monitoring: Monitoring) -> None:
    """Per process and communicator members, the collective calls and bytes of each kind in the trace are those
    Open MPI counted; at least those for the members of a parent communicator (see the module's docstring)."""
    counted, parents = monitoring.collectives(), monitoring.parents()
    wrong, fewer = [], True
    for key in sorted(set(trace.collectives) | set(counted)):
        mine, theirs = trace.collectives.get(key, Counter()), counted.get(key, Counter())
        for name in (f"{k}{s}" for k in KINDS for s in ("", " bytes")):
            at_least = key[1] in parents and name.startswith("A2A")
            if mine[name] == theirs[name] or (at_least and mine[name] < theirs[name]):
                continue
            wrong.append(f"rank {key[0]} on {len(key[1])} members {_members(key[1])}: {name}: trace {mine[name]}, "
                         f"Open MPI {theirs[name]}{' (at least)' if at_least else ''}")
            fewer = fewer and mine[name] < theirs[name]
    if wrong:
        text = f"{len(wrong)} collective counts differ:\n  " + "\n  ".join(wrong[:12])
        raise (CollectiveCallsMissing if fewer else AssertionError)(text)


def _members(members: Members) -> str:
    return ",".join(map(str, members)) if len(members) <= 4 else f"{members[0]},{members[1]},...,{members[-1]}"


def compare_runs(captured: Monitoring, reference: Monitoring) -> None:
    """The run under the capture library sent what the reference run did, pair by pair, except more into rank 0:
    at MPI_Finalize every process sends its events to rank 0 (tag >= 0, so counted as point-to-point)."""
    differences = _pair_differences((captured.messages, captured.bytes), (reference.messages, reference.bytes))
    unexplained = [d for d in differences if d[0][1] != 0 or d[1][0] < d[2][0] or d[1][1] < d[2][1]]
    assert not unexplained, ("the program under the capture library sent other point-to-point messages than "
                             f"without it (here 'trace' is the run under the library):{_listed(unexplained)}")
