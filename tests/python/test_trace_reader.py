"""ibsec.traces: the one Python reader of traces, in every encoding, and the engine's op table it classifies ops
by. Errors name the file, the line and the field, as the engine's do."""

import gzip
import subprocess

import pytest

from ibsec.models import onoff_fit
from ibsec.traces import ops as trace_op_table
from ibsec.traces.ops import ROLES, trace_ops
from ibsec.traces.reader import TraceError, open_trace, read_header
from ibsec.workloads.compare import summarize

pytestmark = pytest.mark.unit

TRACE = """ibsec-trace 3
processes 3
time_unit ns
origin synthetic reader test
cpu_time thread
note a note
comm 1 2 0
# a comment, not kept
events
0 0 10 compute 9
0 10 20 isend 1 100 5 7 0
1 10 25 recv 0 100 5 0 exact
0 20 30 wait 7
0 30 40 bcast 1 2 8
2 30 40 bcast 1 2 8
0 40 50 alltoallv 0 1,2,3
1 40 50 alltoallv 0 4,0,6
2 40 50 alltoallv 0 0,0,0
end 9
"""
EVENTS = [(0, "compute", ["9"]), (0, "isend", ["1", "100", "5", "7", "0"]),
          (1, "recv", ["0", "100", "5", "0", "exact"]),
          (0, "wait", ["7"]), (0, "bcast", ["1", "2", "8"]), (2, "bcast", ["1", "2", "8"]),
          (0, "alltoallv", ["0", "1,2,3"]), (1, "alltoallv", ["0", "4,0,6"]), (2, "alltoallv", ["0", "0,0,0"])]


def read_all(path):
    with open_trace(path) as trace:
        return trace.header, [(e.rank, e.op.name, e.args) for e in trace.events()]


def written(tmp_path, text, name="t.trace"):
    path = tmp_path / name
    path.write_text(text)
    return path


def converted(engine, source, target):
    subprocess.run([engine, "trace", "convert", str(source), str(target)], check=True, capture_output=True)
    return target


@pytest.mark.parametrize("name", ["t.trace", "t.trace.gz", "t.trace.zst", "t.ibtb", "t.ibtb.zst"])
def test_every_encoding_gives_the_same_header_and_events(tmp_path, engine, name):
    plain = written(tmp_path, TRACE, "plain.trace")
    if name == "t.trace":
        path = plain
    elif name == "t.trace.gz":
        path = tmp_path / name
        path.write_bytes(gzip.compress(TRACE.encode()))
    else:
        path = converted(engine, plain, tmp_path / name)
    header, events = read_all(path)
    assert (header.version, header.processes, header.cpu_time) == (3, 3, "thread")
    assert header.origin == "synthetic reader test" and header.notes == ("a note",)
    assert header.comms == {1: (2, 0)} and header.members(0) == (0, 1, 2)
    assert events == EVENTS


def test_arguments_are_read_by_the_names_of_the_engine_op_table(tmp_path, engine):
    with open_trace(written(tmp_path, TRACE)) as trace:
        events = list(trace.events())
    isend, recv, bcast, alltoallv = events[1], events[2], events[4], events[6]
    assert (isend.op.role, isend.number("peer"), isend.number("req"), isend.number("comm")) == ("send", 1, 7, 0)
    assert (recv.op.role, recv.value("posted"), recv.line) == ("receive", "exact", 12)
    assert (bcast.op.rooted, bcast.number("root"), bcast.number("bytes")) == (True, 2, 8)
    assert (alltoallv.op.has_counts, alltoallv.counts()) == (True, [1, 2, 3])


def test_a_version_1_line_reads_its_missing_arguments_as_the_format_says(tmp_path, engine):
    text = "ibsec-trace 1\nprocesses 2\ntime_unit ns\norigin synthetic v1\nevents\n0 0 1 send 1 8 0\nend 1\n"
    with open_trace(written(tmp_path, text)) as trace:
        send = next(trace.events())
    assert (send.number("comm"), send.values()) == (0, {"peer": "1", "bytes": "8", "tag": "0"})


@pytest.mark.parametrize(("change", "message"), [
    (("processes 3", "processes three"), r"t.trace:2: field 'processes': 'three' is not a whole number"),
    (("processes 3", "processes 0"), r"t.trace:2: field 'processes': 0 is not 1 to"),
    (("ibsec-trace 3", "ibsec-trace 9"), r"t.trace:1: field 'version': 9 is not a version"),
    (("ibsec-trace 3", "ibsec-trac 3"), r"t.trace:1: not an ibsec trace"),
    (("comm 1 2 0", "comm 1 2 x"), r"t.trace:7: field 'comm': 'x' is not a whole number"),
    (("note a note", "nots a note"), r"t.trace:6: field 'nots': 'nots' is not a header line"),
])
def test_a_malformed_header_line_names_file_line_and_field(tmp_path, engine, change, message):
    with pytest.raises(TraceError, match=message):
        read_header(written(tmp_path, TRACE.replace(*change)))


@pytest.mark.parametrize(("change", "message"), [
    (("0 20 30 wait 7", "0 20 30 wiat 7"), r"t.trace:13: field 'op': 'wiat' is not an op"),
    (("0 20 30 wait 7", "0 20 30 wait"), r"t.trace:13: field 'req': missing"),
    (("0 20 30 wait 7", "0 20 30 wait 7 8"), r"t.trace:13: field 'wait': 1 fields too many"),
    (("0 20 30 wait 7", "5 20 30 wait 7"), r"t.trace:13: field 'rank': 5 is not a rank \(the trace has 3"),
    (("0 20 30 wait 7", "0 2x 30 wait 7"), r"t.trace:13: field 'start': '2x' is not a whole number"),
    (("0 20 30 wait 7", "0 20"), r"t.trace:13: field 'end': an event has RANK START END OP"),
    (("end 9", "end 8"), r"t.trace:19: field 'end': says 8 events, the trace has 9"),
])
def test_a_malformed_event_names_file_line_and_field(tmp_path, engine, change, message):
    with pytest.raises(TraceError, match=message):
        read_all(written(tmp_path, TRACE.replace(*change)))


def test_a_bad_argument_value_names_its_field(tmp_path, engine):
    with open_trace(written(tmp_path, TRACE.replace("0 10 20 isend 1 100", "0 10 20 isend 1 1e2"))) as trace:
        isend = list(trace.events())[1]
        with pytest.raises(TraceError, match=r"t.trace:11: field 'bytes': '1e2' is not a whole number"):
            isend.number("bytes")


@pytest.mark.parametrize(("text", "message"), [
    (TRACE.replace("end 9\n", ""), r"t.trace: end of trace: truncated: no 'end' line after 9 events"),
    (TRACE[:TRACE.index("2 40 50 alltoallv") + 10], r"t.trace:18: truncated: the last line has no end of line"),
    (TRACE[:TRACE.index("events")], r"t.trace: end of trace: truncated: the header has no 'events' line"),
    ("", r"t.trace: is empty, not a trace"),
])
def test_a_truncated_text_trace_is_an_error_naming_where_it_stops(tmp_path, engine, text, message):
    with pytest.raises(TraceError, match=message):
        read_all(written(tmp_path, text))


def test_a_truncated_gzip_trace_is_an_error_naming_the_file(tmp_path, engine):
    path = tmp_path / "t.trace.gz"
    path.write_bytes(gzip.compress(TRACE.encode())[:-20])
    with pytest.raises(TraceError, match=r"t.trace.gz"):
        read_all(path)


def test_a_truncated_binary_trace_is_the_engine_error_naming_the_file(tmp_path, engine):
    path = converted(engine, written(tmp_path, TRACE), tmp_path / "t.ibtb")
    path.write_bytes(path.read_bytes()[:-30])
    with pytest.raises(TraceError, match=r"t.ibtb.*truncated") as error:
        read_all(path)
    assert str(error.value).count("t.ibtb") == 1  # named once, as the engine names it


def test_a_reader_that_stops_early_ends_the_conversion_without_an_error(tmp_path, engine):
    path = converted(engine, written(tmp_path, TRACE), tmp_path / "t.ibtb")
    with open_trace(path) as trace:
        first = next(trace.events())
    assert first.op.name == "compute"


def test_a_line_longer_than_the_bound_is_refused_without_reading_it_whole(tmp_path, engine):
    path = written(tmp_path, TRACE.replace("note a note", "note " + "x" * (2**20 + 10)))
    with pytest.raises(TraceError, match=r"t.trace:6: line longer than 1048576 bytes"):
        read_header(path)


def test_a_folder_is_not_a_trace(tmp_path, engine):
    with pytest.raises(TraceError, match=r"is a directory, not a trace"):
        read_header(tmp_path)


def test_summarize_reads_every_encoding_alike(tmp_path, engine):
    plain = written(tmp_path, TRACE)
    binary = converted(engine, plain, tmp_path / "t.ibtb.zst")
    a, b = summarize(plain), summarize(binary)
    assert (a.messages, a.message_bytes) == (1, 100)
    assert a.collectives == {("bcast", "ranks 2,0"): 1, ("alltoallv", "world"): 1}
    assert (a.call_digests, a.collectives, a.duration_ns) == (b.call_digests, b.collectives, b.duration_ns)


# ---- the op table: every op of the engine has a meaning the Python side uses -------------------------------

def test_every_op_of_the_engine_has_a_role_the_python_readers_know(engine):
    ops = trace_ops()
    assert {op.role for op in ops.values()} == set(ROLES)
    assert ops.named("send") == {"send", "isend"} and ops.named("receive") == {"recv", "irecv"}
    assert all(op.is_collective == (op.arguments[:1] == ("comm",)) for op in ops.values())


def test_an_op_with_a_role_python_does_not_know_is_refused(engine, monkeypatch):
    real = trace_op_table.registries.entries

    def with_new_role(section):
        rows = real(section)
        return [*rows, {**rows[1], "name": "put", "code": len(rows), "role": "one_sided"}]

    monkeypatch.setattr(trace_op_table.registries, "entries", with_new_role)
    with pytest.raises(Exception, match=r"trace op 'put' has role 'one_sided'"):
        trace_ops()


def test_the_on_off_fit_models_every_collective_of_the_engine(engine):
    """A collective added to the engine fails here until onoff_fit says how it touches sessions."""
    assert onoff_fit.PAIRWISE | onoff_fit.TREE == trace_ops().blocking_collectives()
    assert not onoff_fit.PAIRWISE & onoff_fit.TREE


def test_events_of_some_roles_skip_the_others_but_still_refuse_an_unknown_op(tmp_path, engine):
    with open_trace(written(tmp_path, TRACE)) as trace:
        assert [e.op.name for e in trace.events(frozenset({"send", "collective"}))] == [
            "isend", "bcast", "bcast", "alltoallv", "alltoallv", "alltoallv"]
    with pytest.raises(TraceError, match=r"t.trace:12: field 'op': 'recb'"), \
            open_trace(written(tmp_path, TRACE.replace("recv 0 100", "recb 0 100"))) as trace:
        list(trace.events(frozenset({"send"})))
