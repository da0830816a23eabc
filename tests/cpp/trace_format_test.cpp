// The trace format: what is written is read back unchanged in every encoding,
// and every kind of malformed input is refused with its file, line and field.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "traces/trace_checker.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace ibsec::traces {
namespace {

namespace fs = std::filesystem;

fs::path scratch_dir() {
  const fs::path dir = fs::temp_directory_path() / ("ibsec_trace_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::string write_file(const std::string& name, const std::string& content) {
  const fs::path path = scratch_dir() / name;
  std::ofstream(path, std::ios::binary) << content;
  return path.string();
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream all;
  all << in.rdbuf();
  return all.str();
}

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

std::vector<TraceEvent> read_all(const std::string& path, TraceHeader* header = nullptr) {
  TraceReader reader(path);
  std::vector<TraceEvent> events;
  check_whole_trace(reader, [&](const TraceEvent& e) { events.push_back(e); });
  if (header != nullptr) *header = reader.header();
  return events;
}

std::string convert(const std::string& from, const std::string& to_name) {
  const std::string to = (scratch_dir() / to_name).string();
  TraceReader reader(from);
  TraceWriter writer(to, reader.header());
  check_whole_trace(reader, [&](const TraceEvent& e) { writer.write(e); });
  writer.finish();
  return to;
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
  EXPECT_TRUE(text.starts_with("ibsec-trace 1\nprocesses 3\ntime_unit ns\norigin synthetic trace_format_test\n"
                               "note every op\nnote\ncomm 4 2 0\nevents\n0 0 10 compute\n0 10 20 send 1 4096 7\n"));
  EXPECT_NE(text.find("\n2 10 11 isend 1 0 2147483647 4294967295\n"), std::string::npos);
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
      {"not_a_trace", "hello\n", ":1: not an ibsec trace (the first line must be 'ibsec-trace 1'), found 'hello'"},
      {"version", "ibsec-trace 2\n", ":1: field 'version': trace format '2' is not supported"},
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
      {"double_space", with_head("0 0  10 compute\nend 1\n"), ":6: field 'end': empty (fields are separated by single spaces)"},
      {"unknown_event", with_head("0 0 10 sleep\nend 1\n"), ":6: field 'op': unknown event 'sleep'"},
      {"missing_args", with_head("0 0 10 send 1 8\nend 1\n"), ":6: field 'op': send takes 3 arguments, found 2"},
      {"extra_args", with_head("0 0 10 compute 5\nend 1\n"), ":6: compute takes 0 arguments, found 1"},
      {"rank_range", with_head("2 0 10 compute\nend 1\n"), ":6: field 'rank': 2 is not a rank (the trace has 2 processes)"},
      {"peer_range", with_head("0 0 10 send 7 8 0\nend 1\n"), ":6: field 'peer': 7 is not a rank (the trace has 2 processes)"},
      {"self_send", with_head("0 0 10 send 0 8 0\nend 1\n"), ":6: field 'peer': rank 0 cannot send to itself"},
      {"tag_range", with_head("0 0 10 send 1 8 2147483648\nend 1\n"), ":6: field 'tag': '2147483648' is out of range"},
      {"bytes_range", with_head("0 0 10 send 1 4294967296 0\nend 1\n"), ":6: field 'bytes': '4294967296' is out of range"},
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
      {"root_nonmember", "ibsec-trace 1\nprocesses 3\norigin synthetic t\ncomm 1 0 1\nevents\n0 0 10 bcast 1 2 8\nend 1\n",
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

}  // namespace
}  // namespace ibsec::traces
