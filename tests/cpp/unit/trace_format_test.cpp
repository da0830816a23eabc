// The trace format: what is written is read back unchanged in every encoding,
// and every kind of malformed input is refused with its file, line and field.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/scratch_files.h"
#include "support/trace_io.h"
#include "traces/trace_binary.h"
#include "traces/trace_checker.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace ibsec::traces {
namespace {

namespace fs = std::filesystem;

fs::path scratch_dir() { return testing::scratch_dir("ibsec_trace_test_"); }

std::string write_file(const std::string& name, const std::string& content) {
  return testing::write_file(scratch_dir() / name, content);
}

using testing::read_bytes;

// Every op once, on a communicator of its own for some.
TraceHeader sample_header() {
  TraceHeader h;
  h.processes = 3;
  h.origin = TraceOrigin::kSynthetic;
  h.origin_text = "trace_format_test";
  h.notes = {"every op", ""};
  h.comms[4] = {2, 0};
  return h;
}

// A version-3 header: compute events carry their CPU time. The process's
// clock puts no bound on it, so any value round-trips.
TraceHeader sample_header_with_cpu() {
  TraceHeader h = sample_header();
  h.cpu_clock = CpuClock::kProcess;
  return h;
}

std::vector<TraceEvent> sample_events() {
  auto ev = [](uint32_t rank, uint64_t start, uint64_t end, TraceOp op) {
    TraceEvent e;
    e.rank = rank;
    e.start_ns = start;
    e.end_ns = end;
    e.op = op;
    return e;
  };
  std::vector<TraceEvent> events;
  events.push_back(ev(0, 0, 10, TraceOp::kCompute));
  auto s = ev(0, 10, 20, TraceOp::kSend);
  s.peer = 1, s.bytes = 4096, s.tag = 7;
  events.push_back(s);
  auto r = ev(1, 10, 30, TraceOp::kRecv);
  r.peer = 0, r.bytes = 4096, r.tag = 7;
  events.push_back(r);
  auto is = ev(2, 10, 11, TraceOp::kIsend);
  is.peer = 1, is.bytes = 0, is.tag = 2147483647, is.request = 4294967295u;
  events.push_back(is);
  auto ir = ev(1, 30, 31, TraceOp::kIrecv);
  ir.peer = 2, ir.bytes = 0, ir.tag = 2147483647, ir.request = 3;
  events.push_back(ir);
  auto w1 = ev(2, 11, 40, TraceOp::kWait);
  w1.request = 4294967295u;
  events.push_back(w1);
  auto w2 = ev(1, 31, 40, TraceOp::kWait);
  w2.request = 3;
  events.push_back(w2);
  for (uint32_t rank : {0u, 1u, 2u}) {
    auto b = ev(rank, 50, 60, TraceOp::kBarrier);
    events.push_back(b);
  }
  const TraceOp rooted[] = {TraceOp::kBcast, TraceOp::kReduce, TraceOp::kGather, TraceOp::kScatter};
  const TraceOp flat[] = {TraceOp::kAllreduce, TraceOp::kAllgather, TraceOp::kAlltoall};
  uint64_t t = 100;
  for (TraceOp op : rooted) {
    for (uint32_t rank : {0u, 2u}) {
      auto c = ev(rank, t, t + 5, op);
      c.comm = 4, c.root = 2, c.bytes = 123456789;
      events.push_back(c);
    }
    t += 10;
  }
  for (TraceOp op : flat) {
    for (uint32_t rank : {0u, 1u, 2u}) {
      auto c = ev(rank, t, t + 5, op);
      c.bytes = 4294967295ull;
      events.push_back(c);
    }
    t += 10;
  }
  std::ranges::stable_sort(events, {}, &TraceEvent::start_ns);  // the format's order
  return events;
}

std::string write_sample(const std::string& name) {
  const std::string path = (scratch_dir() / name).string();
  TraceWriter writer(path, sample_header());
  for (const auto& e : sample_events()) writer.write(e);
  writer.finish();
  return path;
}

using testing::read_all;

std::string convert(const std::string& from, const std::string& to_name) {
  return testing::convert_to(from, (scratch_dir() / to_name).string());
}

TEST(TraceFormat, SampleIsValidAndReadsBackEqual) {
  TraceHeader header;
  EXPECT_EQ(read_all(write_sample("sample.trace"), &header), sample_events());
  EXPECT_EQ(header.processes, 3u);
  EXPECT_EQ(header.notes, sample_header().notes);
  EXPECT_EQ(header.comms, sample_header().comms);
  EXPECT_EQ(header.origin_text, "trace_format_test");
}

TEST(TraceFormat, WriteReadWriteGivesIdenticalBytes) {
  const std::string first = write_sample("first.trace");
  const std::string second = convert(first, "second.trace");
  EXPECT_EQ(read_bytes(first), read_bytes(second));
}

// text -> binary -> gzip text -> zstd binary -> text: nothing lost on the way.
TEST(TraceFormat, ConversionsBetweenEncodingsLoseNothing) {
  const std::string text = write_sample("chain.trace");
  const std::string binary = convert(text, "chain.ibtb");
  EXPECT_EQ(read_bytes(binary).substr(0, 8), "IBSECTRB");
  EXPECT_EQ(read_all(binary), sample_events());
  const std::string gz = convert(binary, "chain.trace.gz");
  EXPECT_EQ(static_cast<unsigned char>(read_bytes(gz)[0]), 0x1f);
  const std::string zst = convert(gz, "chain.ibtb.zst");
  EXPECT_EQ(static_cast<unsigned char>(read_bytes(zst)[0]), 0x28);
  const std::string back = convert(zst, "chain-back.trace");
  EXPECT_EQ(read_bytes(text), read_bytes(back));
  // Compression is recognised by content, not by name.
  fs::copy_file(gz, scratch_dir() / "renamed.trace", fs::copy_options::overwrite_existing);
  EXPECT_EQ(read_all((scratch_dir() / "renamed.trace").string()), sample_events());
}

TEST(TraceFormat, CanonicalTextLooksAsDocumented) {
  const std::string text = read_bytes(write_sample("doc.trace"));
  EXPECT_TRUE(
      text.starts_with("ibsec-trace 2\nprocesses 3\ntime_unit ns\norigin synthetic trace_format_test\n"
                       "note every op\nnote\ncomm 4 2 0\nevents\n0 0 10 compute\n0 10 20 send 1 4096 7 0\n"));
  EXPECT_NE(text.find("\n2 10 11 isend 1 0 2147483647 4294967295 0\n"), std::string::npos);
  EXPECT_NE(text.find("\n1 10 30 recv 0 4096 7 0 exact\n"), std::string::npos);
  EXPECT_NE(text.find("\n2 100 105 bcast 4 2 123456789\n"), std::string::npos);
  EXPECT_TRUE(text.ends_with("\nend " + std::to_string(sample_events().size()) + "\n"));
}

TEST(TraceFormat, WriterLeavesNothingWhenNotFinished) {
  const std::string path = (scratch_dir() / "unfinished.trace").string();
  fs::remove(path);
  {
    TraceWriter writer(path, sample_header());
    writer.write(sample_events().front());
  }
  EXPECT_FALSE(fs::exists(path));
}

// --- malformed input -----------------------------------------------------

constexpr const char* kHead = "ibsec-trace 1\nprocesses 2\ntime_unit ns\norigin synthetic test\nevents\n";

struct BadCase {
  const char* name;
  std::string content;
  std::string message;  // expected, after the file name
};

std::string with_head(const std::string& events) { return kHead + events; }

std::vector<BadCase> bad_cases() {
  const std::string pair = "0 0 10 send 1 8 0\n1 0 20 recv 0 8 0\n";
  return {
      {"empty", "", ": is empty, not a trace"},
      {"not_a_trace", "hello\n", ":1: not an ibsec trace (the first line must be 'ibsec-trace 3'), found 'hello'"},
      {"version", "ibsec-trace 4\n", ":1: field 'version': trace format '4' is not supported"},
      {"version_zero", "ibsec-trace 0\n", ":1: field 'version': trace format '0' is not supported"},
      {"no_processes", "ibsec-trace 1\ntime_unit ns\nevents\nend 0\n", ":3: field 'processes': the header has no"},
      {"bad_processes", "ibsec-trace 1\nprocesses many\n", ":2: field 'processes': 'many' is not a number"},
      {"time_unit", "ibsec-trace 1\nprocesses 2\ntime_unit us\n", ":3: field 'time_unit': 'us' is not supported"},
      {"unknown_header", "ibsec-trace 1\nprocesses 2\ncolour blue\n", ":3: field 'colour': unknown header line"},
      {"origin", "ibsec-trace 1\nprocesses 2\norigin guessed\n", ":3: field 'origin': 'guessed' is neither"},
      {"comm_member", "ibsec-trace 1\nprocesses 2\ncomm 1 0 5\n", ":3: field 'comm': '5' is not a rank"},
      {"header_truncated", "ibsec-trace 1\nprocesses 2\n", ": end of trace: truncated: the header has no 'events'"},
      {"truncated_line", with_head("0 0 10 compute\n0 10 2"), ":7: truncated: the last line has no end of line"},
      {"no_end", with_head("0 0 10 compute\n"), ": end of trace: truncated: no 'end' line after 1 events"},
      {"end_count", with_head("0 0 10 compute\nend 2\n"), ":7: field 'end': the trace declares 2 events but has 1"},
      {"after_end", with_head("end 0\n0 0 10 compute\n"), ":7: text after the 'end' line"},
      {"bad_number", with_head("0 0 1o compute\nend 1\n"), ":6: field 'end': '1o' is not a non-negative integer"},
      {"negative", with_head("0 -5 10 compute\nend 1\n"), ":6: field 'start': '-5' is not a non-negative integer"},
      {"double_space", with_head("0 0  10 compute\nend 1\n"),
       ":6: field 'end': empty (fields are separated by single spaces)"},
      {"unknown_event", with_head("0 0 10 sleep\nend 1\n"), ":6: field 'op': unknown event 'sleep'"},
      {"missing_args", with_head("0 0 10 send 1 8\nend 1\n"), ":6: field 'op': send takes 3 arguments, found 2"},
      {"extra_args", with_head("0 0 10 compute 5\nend 1\n"), ":6: compute takes 0 arguments, found 1"},
      {"rank_range", with_head("2 0 10 compute\nend 1\n"),
       ":6: field 'rank': 2 is not a rank (the trace has 2 processes)"},
      {"peer_range", with_head("0 0 10 send 7 8 0\nend 1\n"),
       ":6: field 'peer': 7 is not a rank (the trace has 2 processes)"},
      {"self_send", with_head("0 0 10 send 0 8 0\nend 1\n"),
       ":6: field 'peer': rank 0 cannot send to itself in a version-1 trace"},
      {"v2_op_in_v1", with_head("0 0 10 scan 0 8\nend 1\n"),
       ":6: field 'op': unknown event 'scan' in a version-1 trace (it came with version 2)"},
      {"tag_range", with_head("0 0 10 send 1 8 2147483648\nend 1\n"), ":6: field 'tag': '2147483648' is out of range"},
      {"bytes_range", with_head("0 0 10 send 1 4294967296 0\nend 1\n"),
       ":6: field 'bytes': '4294967296' is out of range"},
      {"end_before_start", with_head("0 10 5 compute\nend 1\n"), ":6: field 'end': 5 is before the event's start 10"},
      {"time_backwards", with_head("0 10 20 compute\n1 5 6 compute\nend 2\n"),
       ":7: field 'start': 5 is before the previous event's start 10 (events must be in order of start time)"},
      {"rank_overlap", with_head("0 0 20 compute\n0 10 30 compute\nend 2\n"),
       ":7: field 'start': 10 is before the previous event of rank 0, which ended at 20"},
      {"unmatched_send", with_head("0 0 10 send 1 8 3\nend 1\n"),
       ": end of trace: send 0 -> 1 tag 3 (8 bytes, line 6) was never received"},
      {"unmatched_recv", with_head("1 0 10 recv 0 8 3\nend 1\n"),
       ": end of trace: receive 0 -> 1 tag 3 (8 bytes, line 6) was never sent"},
      {"bytes_mismatch", with_head("0 0 10 send 1 8 0\n1 0 20 recv 0 9 0\nend 2\n"),
       ":7: field 'bytes': recv 1 <- 0 tag 0 has 9 bytes but its match at line 6 has 8"},
      {"recv_before_send", with_head("1 0 5 recv 0 8 0\n0 10 20 send 1 8 0\nend 2\n"),
       ":7: field 'start': send 0 -> 1 tag 0: the receive ends at 5 ns, before its send starts at 10 ns"},
      {"never_waited", with_head(pair + "0 10 11 isend 1 8 1 4\n1 20 21 irecv 0 8 1 4\nend 4\n"),
       ": end of trace: request 4 of rank 0 (opened at line 8) was never waited for"},
      {"unknown_request", with_head("0 0 10 wait 9\nend 1\n"), ":6: field 'req': rank 0 has no open request 9"},
      {"request_reused", with_head("0 0 1 irecv 1 8 0 2\n0 1 2 irecv 1 8 1 2\nend 2\n"),
       ":7: field 'req': request 2 of rank 0 is still open (opened at line 6)"},
      {"comm_undeclared", with_head("0 0 10 barrier 3\nend 1\n"), ":6: field 'comm': communicator 3 is not declared"},
      {"comm_nonmember", "ibsec-trace 1\nprocesses 2\norigin synthetic t\ncomm 1 1\nevents\n0 0 10 barrier 1\nend 1\n",
       ":6: field 'comm': rank 0 is not a member of communicator 1"},
      {"root_nonmember",
       "ibsec-trace 1\nprocesses 3\norigin synthetic t\ncomm 1 0 1\nevents\n0 0 10 bcast 1 2 8\nend 1\n",
       ":6: field 'root': rank 2 is not a member of communicator 1"},
      {"collective_mismatch", with_head("0 0 10 allreduce 0 8\n1 0 10 allgather 0 8\nend 2\n"),
       ":7: field 'op': collective #1 of rank 1 on communicator 0 does not match the one at line 6"},
      {"collective_missing", with_head("0 0 10 allreduce 0 8\nend 1\n"),
       ": end of trace: allreduce on communicator 0 (line 6) was never called by rank 1"},
  };
}

class BadTrace : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadTrace, IsRefusedWithFileLineAndField) {
  const BadCase& c = GetParam();
  const std::string path = write_file(std::string(c.name) + ".trace", c.content);
  try {
    read_all(path);
    FAIL() << "accepted: " << c.name;
  } catch (const TraceError& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with(path + c.message)) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, BadTrace, ::testing::ValuesIn(bad_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(TraceFormat, MissingFileNamesIt) {
  try {
    TraceReader reader("/nonexistent/x.trace");
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/x.trace: no such file");
  }
}

// A binary file cut anywhere is refused, never read as something else.
TEST(TraceFormat, TruncatedBinaryIsRefusedAtEveryLength) {
  const std::string whole = read_bytes(convert(write_sample("cut.trace"), "cut.ibtb"));
  for (size_t length = 0; length < whole.size(); length += 7) {
    const std::string path = write_file("cut-part.ibtb", whole.substr(0, length));
    EXPECT_THROW(read_all(path), TraceError) << "length " << length;
  }
}

TEST(TraceFormat, TruncatedCompressedIsRefused) {
  const std::string whole = read_bytes(convert(write_sample("cutz.trace"), "cutz.trace.gz"));
  const std::string path = write_file("cutz-part.trace.gz", whole.substr(0, whole.size() / 2));
  EXPECT_THROW(read_all(path), TraceError);
}

// Found by fuzzing: an endless line must not exhaust memory, and a corrupt
// compressed binary header must be reported, not thrown past the reader.
TEST(TraceFormat, OverlongLineIsRefused) {
  const std::string path = write_file("long.trace", "ibsec-trace 1\nnote " + std::string(2u << 20, 'x') + "\n");
  try {
    read_all(path);
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()), path + ":2: line longer than 1048576 bytes");
  }
}

// Found by fuzzing: the trailer's event count is 8 bytes wide.
TEST(TraceFormat, BinaryTrailerCountsPast255Events) {
  TraceHeader header = sample_header();
  const std::string path = (scratch_dir() / "many.ibtb").string();
  TraceWriter writer(path, header);
  TraceEvent e;
  for (uint64_t i = 0; i < 70000; ++i) {
    e.start_ns = i, e.end_ns = i + 1;
    writer.write(e);
  }
  writer.finish();
  EXPECT_EQ(read_all(path).size(), 70000u);
}

TEST(TraceFormat, CorruptCompressedBinaryHeaderIsRefused) {
  std::string whole = read_bytes(convert(write_sample("hdr.trace"), "hdr.ibtb.gz"));
  whole.resize(whole.size() / 3);
  const std::string path = write_file("hdr-cut.ibtb.gz", whole);
  EXPECT_THROW(read_all(path), TraceError);
}

TEST(TraceFormat, BinaryRejectsNonZeroUnusedFields) {
  std::string bytes = read_bytes(convert(write_sample("pad.trace"), "pad.ibtb"));
  const size_t first_record = bytes.size() - (sample_events().size() + 1) * BinaryRecordLayout::size;
  bytes[first_record + BinaryRecordLayout::a.offset] = 1;  // field a of a compute event
  const std::string path = write_file("pad-bad.ibtb", bytes);
  try {
    read_all(path);
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": record 1: field 'a': must be 0 for compute");
  }
}

// --- the op table (traces/trace_ops.def) ------------------------------------

std::vector<TraceOp> all_ops() {
  std::vector<TraceOp> ops;
  for (int code = 0; code < kTraceOpCount; ++code) ops.push_back(static_cast<TraceOp>(code));
  return ops;
}

std::vector<std::string> argument_names(TraceOp op) {
  std::vector<std::string> names;
  for (const TraceArg arg : arguments(op)) names.emplace_back(info(arg).name);
  return names;
}

TEST(TraceOps, NamesParseBackAndCodesAreDense) {
  ASSERT_EQ(kTraceOps.size(), 36u);
  std::set<std::string_view> names;
  for (int code = 0; code < kTraceOpCount; ++code) {
    const TraceOpInfo& op = kTraceOps[static_cast<size_t>(code)];
    EXPECT_EQ(op.code, code) << op.name;
    EXPECT_EQ(trace_op_named(op.name), static_cast<TraceOp>(code)) << op.name;
    EXPECT_TRUE(names.insert(op.name).second) << op.name << " listed twice";
  }
  EXPECT_FALSE(trace_op_named("Send").has_value());
  EXPECT_FALSE(trace_op_named("").has_value());
}

// The codes are the binary encoding's op bytes, fixed by the documentation.
TEST(TraceOps, CodesAreTheDocumentedOpBytes) {
  const std::vector<std::string> documented = {
      "compute",        "send",     "recv",       "isend",           "irecv",     "wait",
      "barrier",        "bcast",    "reduce",     "gather",          "scatter",   "allreduce",
      "allgather",      "alltoall", "alltoallv",  "allgatherv",      "gatherv",   "scatterv",
      "reduce_scatter", "scan",     "exscan",     "ibarrier",        "ibcast",    "ireduce",
      "igather",        "iscatter", "iallreduce", "iallgather",      "ialltoall", "ialltoallv",
      "iallgatherv",    "igatherv", "iscatterv",  "ireduce_scatter", "iscan",     "iexscan"};
  ASSERT_EQ(documented.size(), static_cast<size_t>(kTraceOpCount));
  for (size_t code = 0; code < documented.size(); ++code) EXPECT_EQ(kTraceOps[code].name, documented[code]);
  EXPECT_EQ(static_cast<int>(TraceOp::kSend), 1);
  EXPECT_EQ(static_cast<int>(TraceOp::kAlltoall), 13);
  EXPECT_EQ(static_cast<int>(TraceOp::kIexscan), 35);
  EXPECT_EQ(kBinaryTrailerOp, 255);
  EXPECT_EQ(kBinaryCountsOp, 254);
}

// As in docs/trace-format.md's table of events.
TEST(TraceOps, ArgumentsAreTheDocumentedOnes) {
  using Names = std::vector<std::string>;
  const Names send = {"peer", "bytes", "tag", "comm"};
  const Names recv = {"peer", "bytes", "tag", "comm", "posted"};
  const Names isend = {"peer", "bytes", "tag", "req", "comm"};
  const Names irecv = {"peer", "bytes", "tag", "req", "comm", "posted"};
  const Names rooted = {"comm", "root", "bytes"};
  const Names flat = {"comm", "bytes"};
  const Names comm = {"comm"};
  const Names comm_root = {"comm", "root"};
  const Names i_rooted = {"comm", "root", "bytes", "req"};
  const Names i_flat = {"comm", "bytes", "req"};
  const Names i_comm = {"comm", "req"};
  const Names i_comm_root = {"comm", "root", "req"};
  const std::vector<Names> documented = {{"cpu"},     send,      recv,   isend,  irecv,  {"req"}, comm,     rooted,
                                         rooted,      rooted,    rooted, flat,   flat,   flat,    comm,     comm,
                                         comm_root,   comm_root, comm,   flat,   flat,   i_comm,  i_rooted, i_rooted,
                                         i_rooted,    i_rooted,  i_flat, i_flat, i_flat, i_comm,  i_comm,   i_comm_root,
                                         i_comm_root, i_comm,    i_flat, i_flat};
  ASSERT_EQ(documented.size(), static_cast<size_t>(kTraceOpCount));
  for (const TraceOp op : all_ops()) {
    EXPECT_EQ(argument_names(op), documented[static_cast<size_t>(op)]) << name(op);
  }
}

TEST(TraceOps, LayoutsCountTheirArguments) {
  for (const ArgLayoutInfo& layout : kArgLayouts) {
    size_t named = 0;
    for (const TraceArg arg : layout.places) named += arg != TraceArg::kNone ? 1 : 0;
    EXPECT_EQ(layout.count, named);
    EXPECT_EQ(layout.args().size(), named);
    for (const TraceArg arg : layout.args()) EXPECT_NE(arg, TraceArg::kNone);
  }
  for (const TraceOp op : all_ops()) {
    EXPECT_EQ(is_collective(op), has_argument(op, TraceArg::kComm)) << name(op);
    const TraceOp form = blocking_form(op);
    EXPECT_EQ(has_root(op), form == TraceOp::kBcast || form == TraceOp::kReduce || form == TraceOp::kGather ||
                                form == TraceOp::kScatter || form == TraceOp::kGatherv || form == TraceOp::kScatterv)
        << name(op);
    EXPECT_EQ(opens_request(op), op == TraceOp::kIsend || op == TraceOp::kIrecv || (is_collective(op) && form != op))
        << name(op);
    EXPECT_EQ(has_counts(op), has_counts(form)) << name(op);
  }
  EXPECT_EQ(is_collective(TraceOp::kBarrier), true);
  EXPECT_EQ(is_collective(TraceOp::kWait), false);
}

TEST(TraceOps, JsonListsEveryOpInCodeOrder) {
  const nlohmann::ordered_json ops = trace_ops_json();
  ASSERT_TRUE(ops.is_array());
  ASSERT_EQ(ops.size(), static_cast<size_t>(kTraceOpCount));
  for (const TraceOp op : all_ops()) {
    const auto& entry = ops[static_cast<size_t>(op)];
    EXPECT_EQ(entry["name"], std::string(name(op)));
    EXPECT_EQ(entry["code"], static_cast<int>(op));
    auto names = argument_names(op);
    if (has_counts(op)) names.emplace_back("counts");
    EXPECT_EQ(entry["arguments"].get<std::vector<std::string>>(), names);
    EXPECT_EQ(entry["collective"], is_collective(op));
    EXPECT_EQ(entry["role"] == "send", is_send(op));
    EXPECT_EQ(entry["role"] == "receive", is_receive(op));
  }
  EXPECT_EQ(ops[1].dump(),
            R"({"name":"send","code":1,"arguments":["peer","bytes","tag","comm"],"argument_since_version":[1,1,1,2],)"
            R"("role":"send","collective":false,)"
            R"("blocking_form":"send","since_version":1})");
  EXPECT_EQ(ops[29].dump(),
            R"({"name":"ialltoallv","code":29,"arguments":["comm","req","counts"],"argument_since_version":[1,1,2],)"
            R"("role":"collective","collective":true,)"
            R"("blocking_form":"alltoallv","since_version":2})");
}

// One event of `op` by rank 0 of sample_header() with every argument set:
// the largest value the format allows where the header does not constrain it.
TraceEvent one_event_of(TraceOp op) {
  TraceEvent e;
  e.op = op;
  e.start_ns = 1000;
  e.end_ns = 2000;
  for (const TraceArg arg : arguments(op)) {
    uint64_t value = info(arg).max;
    if (arg == TraceArg::kPeer) value = 2;
    if (arg == TraceArg::kComm || arg == TraceArg::kMsgComm) value = 4;  // members 2 and 0
    if (arg == TraceArg::kRoot) value = 2;
    set_argument(e, arg, value);
    EXPECT_EQ(argument(e, arg), value) << name(op) << " " << info(arg).name;
  }
  if (has_counts(op)) {
    e.counts = std::make_shared<std::vector<uint32_t>>(std::vector<uint32_t>{4294967295u, 7});
    e.bytes = 4294967295u + 7ull;
  }
  return e;
}

// The reader's own checks only: one event alone does not match anything.
TraceEvent write_and_read_one(const TraceEvent& event, const std::string& file_name) {
  const std::string path = (scratch_dir() / file_name).string();
  TraceWriter writer(path, sample_header_with_cpu());
  writer.write(event);
  writer.finish();
  TraceReader reader(path);
  TraceEvent back;
  EXPECT_TRUE(reader.next(back)) << file_name;
  TraceEvent none;
  EXPECT_FALSE(reader.next(none)) << file_name;
  return back;
}

TEST(TraceOps, EveryOpRoundTripsInTextAndBinary) {
  for (const TraceOp op : all_ops()) {
    const TraceEvent event = one_event_of(op);
    const std::string stem = "one-" + std::string(name(op));
    EXPECT_EQ(write_and_read_one(event, stem + ".trace"), event) << name(op);
    EXPECT_EQ(write_and_read_one(event, stem + ".ibtb"), event) << name(op);
    EXPECT_EQ(write_and_read_one(event, stem + ".ibtb.zst"), event) << name(op);

    // The text line: RANK START END OP and the arguments in the table's order.
    std::string expected = "0 1000 2000 " + std::string(name(op));
    for (const TraceArg arg : arguments(op)) {
      expected.append(" ").append(info(arg).words.empty() ? std::to_string(argument(event, arg))
                                                          : std::string(info(arg).word(argument(event, arg))));
    }
    if (has_counts(op)) expected += " 4294967295,7";
    EXPECT_EQ(format_event(event), expected);
  }
}

// Counts records after an event of one_event_of(op): its communicator has 2 members.
size_t counts_records(TraceOp op) { return has_counts(op) ? BinaryCountsLayout::records_for(2) : 0; }

// The record of one event: where each field is, as docs/trace-format.md's
// table says; only the op's own arguments are non-zero.
std::string binary_record_of(const TraceEvent& event, const std::string& file_name) {
  const std::string path = (scratch_dir() / file_name).string();
  TraceWriter writer(path, sample_header_with_cpu());
  writer.write(event);
  writer.finish();
  const std::string bytes = read_bytes(path);
  return bytes.substr(bytes.size() - (2 + counts_records(event.op)) * BinaryRecordLayout::size,
                      BinaryRecordLayout::size);
}

uint64_t little_endian(const std::string& record, size_t offset, size_t size) {
  uint64_t value = 0;
  for (size_t i = size; i-- > 0;) value = value << 8 | static_cast<unsigned char>(record[offset + i]);
  return value;
}

TEST(TraceOps, BinaryRecordsAreLaidOutAsDocumented) {
  using R = BinaryRecordLayout;
  EXPECT_EQ(R::size, 48u);
  EXPECT_EQ(R::padding, 42u);
  const std::vector<std::pair<BinaryField, size_t>> documented = {
      {R::start, 0}, {R::end, 8}, {R::bytes, 16}, {R::rank, 24},  {R::a, 28},
      {R::b, 32},    {R::c, 36},  {R::op, 40},    {R::flags, 41}, {R::d, 44}};
  for (const auto& [field, offset] : documented) EXPECT_EQ(field.offset, offset) << field.name;
  EXPECT_EQ(field_of(TraceArg::kPeer), R::a);
  EXPECT_EQ(field_of(TraceArg::kComm), R::a);
  EXPECT_EQ(field_of(TraceArg::kTag), R::b);
  EXPECT_EQ(field_of(TraceArg::kRoot), R::b);
  EXPECT_EQ(field_of(TraceArg::kReq), R::c);
  EXPECT_EQ(field_of(TraceArg::kBytes), R::bytes);
  EXPECT_EQ(field_of(TraceArg::kMsgComm), R::d);
  EXPECT_EQ(field_of(TraceArg::kPosted), R::flags);
  EXPECT_EQ(field_of(TraceArg::kCpu), R::bytes);

  for (const TraceOp op : all_ops()) {
    TraceEvent event = one_event_of(op);
    event.rank = 2;
    if (has_argument(op, TraceArg::kPeer)) event.peer = 0;
    const std::string record = binary_record_of(event, "layout-" + std::string(name(op)) + ".ibtb");
    ASSERT_EQ(record.size(), 48u);
    EXPECT_EQ(little_endian(record, 0, 8), 1000u);
    EXPECT_EQ(little_endian(record, 8, 8), 2000u);
    EXPECT_EQ(little_endian(record, 24, 4), 2u);
    EXPECT_EQ(little_endian(record, 40, 1), static_cast<uint64_t>(op));
    for (size_t i = 42; i < 44; ++i) EXPECT_EQ(record[i], '\0');
    for (const BinaryField& field : R::argument_fields) {
      uint64_t expected = 0;
      for (const TraceArg arg : arguments(op)) {
        if (field_of(arg) == field) expected = argument(event, arg);
      }
      EXPECT_EQ(little_endian(record, field.offset, field.size), expected) << name(op) << " field " << field.name;
    }
  }
}

// Every field an op does not use is refused when set, whatever the op.
TEST(TraceOps, BinaryRefusesEveryUnusedFieldOfEveryOp) {
  using R = BinaryRecordLayout;
  for (const TraceOp op : all_ops()) {
    const std::string path = (scratch_dir() / ("unused-" + std::string(name(op)) + ".ibtb")).string();
    TraceWriter writer(path, sample_header());
    writer.write(one_event_of(op));
    writer.finish();
    const std::string whole = read_bytes(path);
    const size_t record = whole.size() - (2 + counts_records(op)) * R::size;
    for (const BinaryField& field : R::argument_fields) {
      const bool used = std::ranges::any_of(arguments(op), [&](TraceArg arg) { return field_of(arg) == field; });
      if (used) continue;
      std::string bytes = whole;
      bytes[record + field.offset] = 1;
      const std::string bad = write_file("unused-bad.ibtb", bytes);
      try {
        read_all(bad);
        ADD_FAILURE() << name(op) << " accepted a non-zero " << field.name;
      } catch (const TraceError& e) {
        EXPECT_EQ(std::string(e.what()),
                  bad + ": record 1: field '" + std::string(field.name) + "': must be 0 for " + std::string(name(op)));
      }
    }
  }
}

TEST(TraceOps, BinaryRefusesArgumentsOutOfRange) {
  using R = BinaryRecordLayout;
  const std::string path = (scratch_dir() / "range.ibtb").string();
  TraceWriter writer(path, sample_header());
  writer.write(one_event_of(TraceOp::kSend));
  writer.finish();
  const std::string whole = read_bytes(path);
  const size_t record = whole.size() - 2 * R::size;
  struct Case {
    BinaryField field;
    uint64_t too_big;
    std::string message;
  };
  const std::vector<Case> cases = {
      {R::b, 2147483648u, "field 'tag': 2147483648 is out of range (at most 2147483647)"},
      {R::bytes, 4294967296u, "field 'bytes': 4294967296 is out of range (at most 4294967295)"},
  };
  for (const auto& [field, too_big, message] : cases) {
    std::string bytes = whole;
    for (size_t i = 0; i < field.size; ++i) bytes[record + field.offset + i] = static_cast<char>(too_big >> (8 * i));
    const std::string bad = write_file("range-bad.ibtb", bytes);
    try {
      read_all(bad);
      ADD_FAILURE() << "accepted " << message;
    } catch (const TraceError& e) {
      EXPECT_EQ(std::string(e.what()), bad + ": record 1: " + message);
    }
  }
}

}  // namespace
}  // namespace ibsec::traces
