"""The synthetic workload generators (`ibsec trace gen`): format, consistency, structure, timing.

The trace checker below is deliberately written here, independently of the
package, from docs/trace-format.md: a generator bug should not be able to hide
behind a shared misunderstanding.
"""

from __future__ import annotations

import gzip
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import run_ibsec
from ibsec.traces.ops import trace_ops
from ibsec.traces.reader import open_trace
from ibsec.workloads import generate, make_params, original_duration, timeline
from ibsec.workloads.defaults import DEFAULT_SET, PROCS
from ibsec.workloads.timeline import COLL, COMPUTE, IRECV, ISEND, RECV, SEND, WAIT, Timeline, TimelineError
from ibsec.workloads.writer import header_text, write_trace

pytestmark = pytest.mark.unit

ROOTED = {"bcast", "reduce", "gather", "scatter"}
UNROOTED = {"barrier", "allreduce", "allgather", "alltoall"}


# ---- an independent trace checker ---------------------------------------------------

@dataclass
class Checked:
    processes: int
    origin: str
    notes: list[str]
    events: int = 0
    duration_ns: int = 0
    sent_to: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    message_sizes: list[int] = field(default_factory=list)
    ops: Counter = field(default_factory=Counter)
    collectives: list[tuple] = field(default_factory=list)  # rank 0's sequence, all communicators
    comms: dict[int, list[int]] = field(default_factory=dict)  # declared ones; 0, the world, is not


def read_text(path: Path) -> str:
    data = path.read_bytes()
    return (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode("ascii")


def check_trace(path: Path) -> Checked:
    """Every rule of docs/trace-format.md a text trace without comms must keep."""
    text = read_text(path)
    assert text.endswith("\n")
    lines = text[:-1].split("\n")
    assert lines[0] == "ibsec-trace 2"
    assert lines[1].startswith("processes ")
    processes = int(lines[1].split()[1])
    assert lines[2] == "time_unit ns"
    assert lines[3].startswith("origin synthetic ibsec trace gen ")
    at = 4
    notes = []
    while lines[at].startswith("note "):
        notes.append(lines[at][5:])
        at += 1
    comms = {}
    while lines[at].startswith("comm "):
        cid, *members = (int(x) for x in lines[at].split()[1:])
        assert cid >= 1 and cid not in comms and members and all(0 <= m < processes for m in members)
        comms[cid] = members
        at += 1
    assert lines[at] == "events", f"unexpected header line {lines[at]!r}"
    body, trailer = lines[at + 1:-1], lines[-1]
    assert trailer == f"end {len(body)}"
    result = Checked(processes, lines[3], notes, events=len(body), comms=comms)
    members_of = {0: list(range(processes)), **comms}

    last_end = [None] * processes
    last_start = -1
    last_rank_at_start = -1
    sends: dict[tuple, deque] = defaultdict(deque)
    receives: dict[tuple, deque] = defaultdict(deque)
    open_requests: list[dict[int, str]] = [{} for _ in range(processes)]
    coll_seq: list[list[tuple]] = [[] for _ in range(processes)]
    first = None
    for number, line in enumerate(body, start=at + 2):
        assert "  " not in line and line == line.strip(), f"line {number}: spacing"
        fields = line.split(" ")
        rank, start, end, op, args = int(fields[0]), int(fields[1]), int(fields[2]), fields[3], fields[4:]
        if op in ("recv", "irecv"):
            assert args[-1] == "exact", f"line {number}: a generated receive names its source"
            args = args[:-1]
        assert 0 <= rank < processes and end >= start, f"line {number}"
        assert all(str(int(f)) == f for f in fields[:3] + args), f"line {number}: not canonical integers"
        assert start >= last_start, f"line {number}: START goes back"
        if start == last_start:
            assert rank >= last_rank_at_start, f"line {number}: equal STARTs not in rank order"
        last_start, last_rank_at_start = start, rank
        if last_end[rank] is not None:
            assert start >= last_end[rank], f"line {number}: rank {rank} starts before its previous event ended"
        last_end[rank] = end
        first = start if first is None else first
        result.duration_ns = max(result.duration_ns, end - first)
        result.ops[op] += 1
        if op in ("send", "isend", "recv", "irecv"):
            peer, nbytes, tag = (int(a) for a in args[:3])
            assert 0 <= peer < processes, f"line {number}: peer"  # itself too (version 2)
            if op in ("send", "isend"):
                if peer != rank:  # a message to itself crosses no network
                    result.sent_to[rank].add(peer)
                    result.message_sizes.append(nbytes)
                _match(receives, sends, (rank, peer, tag), nbytes, number)
            else:
                _match(sends, receives, (peer, rank, tag), nbytes, number)
            assert args[-1] == "0" or int(args[-1]) in result.comms, f"line {number}: undeclared communicator"
            if op in ("isend", "irecv"):
                assert len(args) == 5
                req = int(args[3])
                assert req not in open_requests[rank], f"line {number}: request {req} reused while open"
                open_requests[rank][req] = op
            else:
                assert len(args) == 4
        elif op == "wait":
            req = int(args[0])
            assert req in open_requests[rank], f"line {number}: wait for request {req}, not open"
            del open_requests[rank][req]
        elif op in ROOTED | UNROOTED:
            assert int(args[0]) in members_of and rank in members_of[int(args[0])], f"line {number}: communicator"
            coll_seq[rank].append((op, *args))
        else:
            assert op == "compute" and not args, f"line {number}: unknown op {op}"
    assert not any(sends.values()), "a send was never received"
    assert not any(receives.values()), "a receive was never sent"
    assert not any(open_requests), "a request was never waited"
    for cid, members in members_of.items():
        on_comm = [[c for c in coll_seq[m] if c[1] == str(cid)] for m in members]
        assert all(seq == on_comm[0] for seq in on_comm), f"collectives on communicator {cid} differ between members"
    result.collectives = coll_seq[0]
    return result


def _match(other_side: dict, this_side: dict, key: tuple, nbytes: int, number: int) -> None:
    """Pair the k-th send and k-th receive of a (src, dst, tag) channel, in either order."""
    if other_side[key]:
        expected, where = other_side[key].popleft()
        assert expected == nbytes, f"line {number}: {nbytes} bytes, its partner (line {where}) has {expected}"
    else:
        this_side[key].append((nbytes, number))


def gen(tmp_path: Path, bench: str, procs: int = 16, cls: str = "S", scale: float = 1.0, seed: int = 1,
        name: str | None = None) -> tuple[Path, Checked]:
    out = tmp_path / (name or f"{bench.lower()}-{procs}-{cls}-{scale:g}-{seed}.trace.gz")
    generate(make_params(bench, procs, cls, scale, seed), out)
    return out, check_trace(out)


# Small but complete cases: every benchmark on 16 processes.
SMALL = {"CG": ("S", 0.07), "MG": ("S", 0.5), "LU": ("A", 0.004), "SP": ("S", 0.02), "BT": ("S", 0.04),
         "FT": ("S", 0.5), "JBB": ("S", 0.1)}


# ---- format and consistency --------------------------------------------------------------

@pytest.mark.parametrize("bench", list(SMALL))
def test_trace_is_valid_and_says_it_is_synthetic(tmp_path, bench):
    cls, scale = SMALL[bench]
    _, checked = gen(tmp_path, bench, cls=cls, scale=scale)
    assert checked.processes == 16
    assert checked.origin == (f"origin synthetic ibsec trace gen {bench} --procs 16 --class {cls} --scale {scale:g} "
                              "--seed 1")
    assert any("follows" in note or "style" in note for note in checked.notes)
    assert checked.events > 0 and checked.duration_ns > 0


@pytest.mark.parametrize("bench", list(SMALL))
def test_same_arguments_same_bytes_other_seed_other_bytes(tmp_path, bench):
    cls, scale = SMALL[bench]
    a, b, c = (tmp_path / f"{name}.trace.gz" for name in "abc")
    for out, seed in ((a, 3), (b, 3), (c, 4)):
        generate(make_params(bench, 16, cls, scale, seed), out)
    assert a.read_bytes() == b.read_bytes()
    assert read_text(a) != read_text(c)


@pytest.mark.parametrize("bench,procs,cls", [("CG", 8, "S"), ("CG", 2, "S"), ("MG", 8, "S"), ("MG", 32, "S"),
                                             ("LU", 8, "W"), ("LU", 2, "S"), ("SP", 9, "S"), ("BT", 4, "S"),
                                             ("BT", 25, "W"), ("FT", 4, "S"), ("FT", 32, "W"), ("JBB", 3, "S")])
def test_other_process_counts_give_valid_traces(tmp_path, bench, procs, cls):
    _, checked = gen(tmp_path, bench, procs=procs, cls=cls, scale=0.01)
    assert checked.processes == procs
    assert all(0 <= p < procs for peers in checked.sent_to.values() for p in peers)


def test_plain_and_gzip_outputs_hold_the_same_text(tmp_path):
    plain, _ = gen(tmp_path, "MG", cls="S", scale=0.25, name="mg.trace")
    zipped, _ = gen(tmp_path, "MG", cls="S", scale=0.25, name="mg.trace.gz")
    assert plain.read_bytes()[:12] == b"ibsec-trace "
    assert gzip.decompress(zipped.read_bytes()) == plain.read_bytes()


# ---- communication structure ------------------------------------------------------------------

def test_cg_partners_on_a_4x4_grid(tmp_path):
    _, checked = gen(tmp_path, "CG", cls="S", scale=0.07)
    for rank in range(16):
        row, col = divmod(rank, 4)
        expected = {row * 4 + (col ^ 1), row * 4 + (col ^ 2)}  # recursive halving in the row
        transpose = (rank % 4) * 4 + rank // 4
        if transpose != rank:
            expected.add(transpose)
        assert checked.sent_to[rank] == expected, rank
    # the timer flag's bcast, the barrier that starts the timer, the timer's reduce
    assert [op for op, *_ in checked.collectives] == ["bcast", "barrier", "reduce"]
    vector = 8 * 1400 // 4  # a row block of doubles
    assert Counter(checked.message_sizes).keys() == {8, 16, vector}


def test_ft_only_transposes_by_alltoall(tmp_path):
    _, checked = gen(tmp_path, "FT", cls="S", scale=1.0)
    assert not checked.sent_to
    assert {"send", "isend", "recv", "irecv"}.isdisjoint(checked.ops)
    alltoalls = [c for c in checked.collectives if c[0] == "alltoall"]
    # the untimed forward FFT, the timed one, and one inverse per iteration; on commslice1 (every process)
    assert len(alltoalls) == 1 + 1 + 6
    assert checked.comms == {1: list(range(16))}
    assert alltoalls[0] == ("alltoall", "1", str(16 * 64 ** 3 // 16 ** 2))
    assert {c[0] for c in checked.collectives} == {"bcast", "barrier", "alltoall", "reduce"}


def test_lu_talks_only_to_its_grid_neighbours(tmp_path):
    _, checked = gen(tmp_path, "LU", cls="A", scale=0.004)
    for rank in range(16):
        row, col = rank % 4, rank // 4  # xdim = 4: north/south are rank -+ 1, west/east rank -+ 4
        expected = {rank + d for d, ok in ((-1, row > 0), (1, row < 3), (-4, col > 0), (4, col < 3)) if ok}
        assert checked.sent_to[rank] == expected, rank
    assert {c[0] for c in checked.collectives} == {"bcast", "barrier", "allreduce"}
    plane_line = 5 * 8 * 16  # 5 doubles per boundary point of a 16-point line
    assert plane_line in checked.message_sizes
    # pintgr's exchange_4 (2 nx and 2 (ny + 2) doubles) and exchange_5/6 (one double per k-plane), as a capture
    # of NPB 3.4 lu.A.x on 16 processes has them: 12 + 12 + 6 + 6 messages
    small = Counter(size for size in checked.message_sizes if size < 5 * 8 * 15)
    assert small == {8 * 2 * 16: 12, 8 * 2 * 18: 12, 8 * 64: 12}


def test_mg_exchanges_with_its_six_periodic_neighbours(tmp_path):
    """And, on the coarse levels where some processes hold no point, with farther ones (setup's `next`)."""
    _, checked = gen(tmp_path, "MG", cls="S", scale=0.25)
    dims = (2, 2, 4)  # NPB's grid for 16 processes
    for rank in range(16):
        c = (rank % 2, (rank // 2) % 2, rank // 4)
        expected = set()
        for axis in range(3):
            for step in (-1, 1):
                n = list(c)
                n[axis] = (n[axis] + step) % dims[axis]
                expected.add(n[0] + 2 * (n[1] + 2 * n[2]))
        assert checked.sent_to[rank] >= expected, rank
    # sender -> receiver pairs in a capture of NPB 3.4 mg.S.x on 16 processes (Open MPI 4.1)
    assert sum(len(peers) for peers in checked.sent_to.values()) == 72
    assert {c[0] for c in checked.collectives} == {"barrier", "bcast", "allreduce", "reduce"}


@pytest.mark.parametrize("bench", ["SP", "BT"])
def test_multipartition_sends_to_successors_and_predecessors(tmp_path, bench):
    _, checked = gen(tmp_path, bench, cls="S", scale=0.02)
    p = 4
    for rank in range(16):
        i, j = rank % p, rank // p
        steps = [(1, 0), (0, 1), (-1, 1)]  # successor in x, y, z; predecessors are the opposites
        expected = {(i + s * di) % p + p * ((j + s * dj) % p) for di, dj in steps for s in (1, -1)}
        assert checked.sent_to[rank] == expected, rank


def test_jbb_is_small_messages_to_many_peers(tmp_path):
    _, checked = gen(tmp_path, "JBB", cls="S", scale=0.5)
    assert min(len(peers) for peers in checked.sent_to.values()) >= 12  # of 15: little locality
    assert 100 <= min(checked.message_sizes) and max(checked.message_sizes) <= 4096
    assert not checked.collectives


# ---- iteration scaling and timing -----------------------------------------------------------------

@pytest.mark.parametrize("bench,cls,full", [("CG", "S", 15), ("MG", "S", 4), ("LU", "A", 250), ("SP", "S", 100),
                                            ("BT", "S", 60), ("FT", "S", 6)])
def test_scale_multiplies_the_iteration_count(bench, cls, full):
    """Events grow by the same amount per added iteration, and the note says how many."""
    counts = [original_duration(make_params(bench, 16, cls, k / full, 1)).events for k in (1, 2, 3)]
    assert counts[2] - counts[1] == counts[1] - counts[0] > 0
    from ibsec.workloads import build

    assert build(make_params(bench, 16, cls, 2 / full, 1)).iterations == 2


def test_jbb_scale_sets_transactions_per_warehouse(tmp_path):
    _, checked = gen(tmp_path, "JBB", cls="S", scale=0.25)
    requests = checked.ops["isend"]
    assert requests >= 16 * 1 * 50  # 50 transactions per warehouse, some with a second server
    assert requests <= 16 * 50 * 2


def test_default_set_sizes():
    assert [d.bench for d in DEFAULT_SET] == ["CG", "MG", "LU", "SP", "BT", "FT", "JBB"]
    for item in DEFAULT_SET:
        stats = original_duration(make_params(item.bench, PROCS, item.cls, item.scale, 1))
        assert 50_000 <= stats.packets <= 300_000, (item, stats.packets)


# ---- the timeline model ----------------------------------------------------------------------------

def test_timeline_receive_waits_for_its_send_and_collectives_end_together():
    programs = [
        [(COMPUTE, 1000), (SEND, 1, 4096, 7, 0), (COLL, "allreduce", 0, -1, 8)],
        [(RECV, 0, 4096, 7, 0), (COLL, "allreduce", 0, -1, 8)],
    ]
    timeline = Timeline(programs)
    lines = list(timeline.lines())
    m = timeline.machine
    arrival = 1000 + m.send_overhead_ns + m.latency_ns + 4096
    assert lines[0] == "0 0 1000 compute"
    assert lines[1] == f"1 0 {arrival} recv 0 4096 7 0 exact"
    coll_end = arrival + m.collective_ns("allreduce", 8, 2)
    assert lines[-2:] == [f"0 {1000 + m.send_overhead_ns + 4096} {coll_end} allreduce 0 8",
                          f"1 {arrival} {coll_end} allreduce 0 8"]


def test_timeline_refuses_mismatched_messages_and_deadlocks():
    with pytest.raises(TimelineError, match="sent 8 bytes, received 16"):
        Timeline([[(SEND, 1, 8, 0, 0)], [(RECV, 0, 16, 0, 0)]]).run()
    with pytest.raises(TimelineError, match="deadlock"):
        Timeline([[(RECV, 1, 8, 0, 0)], [(RECV, 0, 8, 0, 0)]]).run()


# ---- the command ------------------------------------------------------------------------------------

def test_cli_gen_writes_the_trace(tmp_path):
    out = tmp_path / "cg.trace"
    done = run_ibsec("trace", "gen", "cg", "--procs", "4", "--class", "S", "--scale", "0.1", "--seed", "2",
                     "--out", str(out))
    assert done.returncode == 0, done.stderr
    checked = check_trace(out)
    assert checked.origin == "origin synthetic ibsec trace gen CG --procs 4 --class S --scale 0.1 --seed 2"
    assert "packets" in done.stdout


@pytest.mark.parametrize("args,needle", [
    (["XX"], "invalid 'BENCH'"),
    (["CG", "--procs", "12"], "power of two"),
    (["SP", "--procs", "8"], "square"),
    (["LU", "--procs", "3"], "invalid '--procs'"),  # proc_grid finds no xdim x ydim for 3
    (["MG", "--scale", "0"], "argument --scale: must be greater than 0"),
    (["MG", "--scale", "1.5"], "argument --scale: must be at most 1"),
    (["MG", "--class", "Q"], "invalid '--class'"),
    (["FT", "--procs", "64", "--class", "W"], "invalid '--procs'"),
])
def test_bad_arguments_exit_2_naming_the_option(tmp_path, args, needle):
    done = run_ibsec("trace", "gen", *args, "--out", str(tmp_path / "x.trace"))
    assert done.returncode == 2
    assert needle in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "x.trace").exists()


@pytest.mark.parametrize("args,expected", [
    (["info", "t.trace", "--json"], "trace info t.trace --json"),
    (["validate", "t.trace"], "trace validate t.trace"),
    (["convert", "in.trace", "out.ibtb"], "trace convert in.trace out.ibtb"),
])
def test_info_validate_convert_run_the_engine_and_return_its_status(tmp_path, monkeypatch, args, expected):
    fake = tmp_path / "ibsec-engine"
    fake.write_text('#!/bin/sh\necho "$@"\nexit 3\n')
    fake.chmod(0o755)
    monkeypatch.setenv("IBSEC_ENGINE", str(fake))
    done = run_ibsec("trace", *args)
    assert done.returncode == 3
    assert done.stdout.strip() == expected


# ---- the trace operations, against the engine's op table ------------------------------------------

def ops_read(path: Path) -> set[str]:
    """The ops of a trace, read by ibsec.traces.reader, which refuses an op the engine does not register and a
    line with other arguments than the engine's op table lists for the trace's format version."""
    with open_trace(path) as trace:
        return {event.op.name for event in trace.events()}


def test_every_collective_the_writer_knows_is_a_registered_op_with_its_arguments(engine, tmp_path):
    ops = trace_ops()
    programs = [[(COMPUTE, 10), (ISEND, 1, 8, 0, 5, 0), (WAIT, 5), (SEND, 1, 8, 1, 0)],
                [(IRECV, 0, 8, 0, 2, 0), (WAIT, 2), (RECV, 0, 8, 1, 0)]]
    collectives = timeline.ROOTED | timeline.UNROOTED  # every collective the writer can emit
    for name in sorted(collectives):
        for program in programs:
            program.append((COLL, name, 0, 0 if name in timeline.ROOTED else -1, 16))
    path = tmp_path / "t.trace"
    write_trace(path, header_text(2, "origin synthetic test"), Timeline(programs).lines())
    seen = ops_read(path)
    assert seen == {"compute", "isend", "irecv", "wait", "send", "recv", *collectives}
    assert all(ops[name].is_collective for name in collectives)
    assert not any(ops[name].is_collective for name in ("compute", "send", "recv", "isend", "irecv", "wait"))


@pytest.mark.parametrize("bench", list(SMALL))
def test_every_generator_writes_only_registered_ops(tmp_path, engine, bench):
    cls, scale = SMALL[bench]
    path, _ = gen(tmp_path, bench, cls=cls, scale=scale)
    assert ops_read(path)
