// What version 2 of the trace format added (docs/trace-format.md): byte
// counts per member, the communicator of point-to-point events, wildcard
// receives, self-messages and non-blocking collectives; and that version-1
// traces still read as they did.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/scratch_files.h"
#include "support/trace_io.h"
#include "traces/trace_binary.h"
#include "traces/trace_checker.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace ibsec::traces {
namespace {

namespace fs = std::filesystem;

fs::path scratch_dir() { return testing::scratch_dir("ibsec_trace_v2_test_"); }

std::string write_file(const std::string& name, const std::string& content) {
  return testing::write_file(scratch_dir() / name, content);
}

using testing::read_bytes;

using testing::read_all;

std::string convert(const std::string& from, const std::string& to_name) {
  return testing::convert_to(from, (scratch_dir() / to_name).string());
}

// The message of the error reading `content` gives, after the file name.
std::string error_of(const std::string& name, const std::string& content) {
  return testing::read_error(write_file(name, content));
}

const std::string kV1 =
    "ibsec-trace 1\nprocesses 2\ntime_unit ns\norigin synthetic v1\nevents\n"
    "0 0 10 isend 1 64 3 9\n1 0 20 recv 0 64 3\n0 10 30 wait 9\n0 30 40 allreduce 0 8\n1 30 40 allreduce 0 8\nend 5\n";

TEST(TraceFormatV2, Version1TextReadsWithWorldAndExactReceives) {
  TraceHeader header;
  const auto events = read_all(write_file("v1.trace", kV1), &header);
  EXPECT_EQ(header.version, 1u);
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].op, TraceOp::kIsend);
  EXPECT_EQ(events[0].request, 9u);
  EXPECT_EQ(events[0].comm, 0u);
  EXPECT_EQ(events[1].posted, 0u);
  // Written again, it is version 2, and says the same.
  const std::string v2 = convert(write_file("v1b.trace", kV1), "v1-as-v2.trace");
  const std::string text = read_bytes(v2);
  EXPECT_TRUE(text.starts_with("ibsec-trace 2\n"));
  EXPECT_NE(text.find("\n0 0 10 isend 1 64 3 9 0\n1 0 20 recv 0 64 3 0 exact\n"), std::string::npos);
  EXPECT_EQ(read_all(v2), events);
}

// A version-1 binary trace: the version-2 writer's records of version-1 ops
// are byte for byte version 1's, so only the preamble and header differ.
TEST(TraceFormatV2, Version1BinaryReads) {
  const std::string v2 = convert(write_file("v1c.trace", kV1), "v2.ibtb");
  std::string bytes = read_bytes(v2);
  const size_t version_at = kBinaryMagic.size() + BinaryPreamble::version.offset;
  ASSERT_EQ(bytes[version_at], 2);
  bytes[version_at] = 1;
  const size_t text_at = bytes.find("ibsec-trace 2");
  bytes[text_at + 12] = '1';
  TraceHeader header;
  const auto events = read_all(write_file("v1.ibtb", bytes), &header);
  EXPECT_EQ(header.version, 1u);
  EXPECT_EQ(events, read_all(write_file("v1d.trace", kV1)));
  // A preamble and header that disagree are refused.
  bytes[text_at + 12] = '2';
  const std::string mixed = write_file("mixed.ibtb", bytes);
  EXPECT_THROW(read_all(mixed), TraceError);
}

// 23 members: three counts records in the binary encoding.
std::string counts_trace() {
  std::string text = "ibsec-trace 2\nprocesses 23\ntime_unit ns\norigin synthetic counts\nevents\n";
  std::string counts;
  for (uint32_t i = 0; i < 23; ++i) counts.append(i == 0 ? "" : ",").append(std::to_string(i * 1000));
  for (uint32_t r = 0; r < 23; ++r) text += std::to_string(r) + " 0 10 allgatherv 0 " + counts + "\n";
  return text + "end 23\n";
}

TEST(TraceFormatV2, CountsRoundTripInEveryEncoding) {
  const std::string text = write_file("counts.trace", counts_trace());
  const auto events = read_all(text);
  ASSERT_EQ(events.size(), 23u);
  ASSERT_TRUE(events[0].counts);
  EXPECT_EQ(events[0].counts->size(), 23u);
  EXPECT_EQ((*events[0].counts)[22], 22000u);
  EXPECT_EQ(events[0].bytes, 1000u * (22 * 23 / 2));
  for (const char* name : {"counts.ibtb", "counts.ibtb.gz", "counts.trace.zst"}) {
    const std::string other = convert(text, name);
    EXPECT_EQ(read_all(other), events) << name;
    EXPECT_EQ(read_bytes(convert(other, std::string(name) + ".trace")), read_bytes(text)) << name;
  }
  // 23 events, each followed by ceil(23 / 10) counts records.
  const std::string binary = read_bytes(convert(text, "count-records.ibtb"));
  const size_t records = 23 * (1 + BinaryCountsLayout::records_for(23)) + 1;
  EXPECT_EQ(BinaryCountsLayout::per_record, 10u);
  EXPECT_EQ(binary.size() % BinaryRecordLayout::size,
            (binary.size() - records * BinaryRecordLayout::size) % BinaryRecordLayout::size);
  EXPECT_EQ(static_cast<unsigned char>(binary[binary.size() - 2 * 48 + 40]), kBinaryCountsOp);
}

TEST(TraceFormatV2, BadCountsAreRefusedWithTheirField) {
  const std::string head = "ibsec-trace 2\nprocesses 2\ntime_unit ns\norigin synthetic t\nevents\n";
  EXPECT_EQ(error_of("c1.trace", head + "0 0 1 alltoallv 0 5\nend 1\n"),
            ":6: field 'counts': 1 counts, but communicator 0 has 2 members");
  EXPECT_EQ(error_of("c2.trace", head + "0 0 1 alltoallv 0 5,6,7\nend 1\n"),
            ":6: field 'counts': more than 2 counts (communicator 0 has 2 members)");
  EXPECT_EQ(error_of("c3.trace", head + "0 0 1 alltoallv 0 5,x\nend 1\n"),
            ":6: field 'counts': 'x' is not a non-negative integer");
  EXPECT_EQ(error_of("c4.trace", head + "0 0 1 alltoallv 0 5,,6\nend 1\n"),
            ":6: field 'counts': empty (fields are separated by single spaces)");
  EXPECT_EQ(error_of("c5.trace", head + "0 0 1 alltoallv 0 5,4294967296\nend 1\n"),
            ":6: field 'counts': '4294967296' is out of range (at most 4294967295)");
  EXPECT_EQ(error_of("c6.trace", head + "0 0 1 alltoallv 0\nend 1\n"),
            ":6: field 'op': alltoallv takes 2 arguments, found 1");
  // Members must agree where the op says they list the same counts.
  EXPECT_EQ(error_of("c7.trace", head + "0 0 1 allgatherv 0 5,6\n1 0 1 allgatherv 0 5,7\nend 2\n").substr(0, 40),
            ":7: field 'counts': collective #1 of ran");
  // A member of a gatherv other than the root lists only its own part.
  EXPECT_EQ(error_of("c8.trace", head + "0 0 1 gatherv 0 0 5,6\n1 0 1 gatherv 0 0 5,6\nend 2\n"),
            ":7: field 'counts': gatherv of rank 1, not the root, lists a count for another member (position 0)");
  EXPECT_EQ(read_all(write_file("c9.trace", head + "0 0 1 gatherv 0 0 5,6\n1 0 1 gatherv 0 0 0,6\nend 2\n")).size(),
            2u);
}

TEST(TraceFormatV2, BadCountsRecordsAreRefused) {
  const std::string text = write_file("cr.trace", counts_trace());
  const std::string good = read_bytes(convert(text, "cr.ibtb"));
  const size_t first_event = good.size() - (23 * 4 + 1) * BinaryRecordLayout::size;
  // An event's counts record replaced by a compute event.
  std::string missing = good;
  missing[first_event + 48 + 40] = 0;
  EXPECT_NE(error_of("cr1.ibtb", missing).find("field 'op': expected counts record 1 of 3"), std::string::npos);
  // Unused bytes of the last counts record (3 counts of 10 places).
  std::string unused = good;
  unused[first_event + 3 * 48 + 20] = 1;
  EXPECT_NE(error_of("cr2.ibtb", unused).find("field 'counts': a counts record's unused bytes must be zero"),
            std::string::npos);
  // A counts record where an event should be.
  std::string orphan = good;
  orphan[first_event + 40] = static_cast<char>(kBinaryCountsOp);
  EXPECT_NE(error_of("cr3.ibtb", orphan).find("a counts record that follows no event with counts"), std::string::npos);
}

const std::string kHead2 = "ibsec-trace 2\nprocesses 3\ntime_unit ns\norigin synthetic t\ncomm 1 0 1\nevents\n";

TEST(TraceFormatV2, WildcardReceivesKeepTheSourceThatMatched) {
  const auto events =
      read_all(write_file("any.trace", kHead2 + "2 0 10 send 1 8 4 0\n1 0 20 recv 2 8 4 0 any\nend 2\n"));
  EXPECT_EQ(events[1].posted, 1u);
  EXPECT_EQ(events[1].peer, 2u);
  EXPECT_EQ(format_event(events[1]), "1 0 20 recv 2 8 4 0 any");
  EXPECT_EQ(error_of("any-bad.trace", kHead2 + "1 0 20 recv 2 8 4 0 maybe\nend 1\n"),
            ":7: field 'posted': 'maybe' is not one of: exact any");
  EXPECT_EQ(error_of("any-num.trace", kHead2 + "1 0 20 recv 2 8 4 0 1\nend 1\n"),
            ":7: field 'posted': '1' is not one of: exact any");
}

TEST(TraceFormatV2, SelfMessagesMatch) {
  const auto events = read_all(write_file("self.trace", kHead2 + "0 0 10 isend 0 8 4 1 0\n0 10 20 recv 0 8 4 0 exact\n"
                                                                 "0 20 30 wait 1\nend 3\n"));
  EXPECT_EQ(events.size(), 3u);
}

TEST(TraceFormatV2, PointToPointMatchesWithinItsCommunicator) {
  // Same ranks and tag on two communicators: each send meets the receive on its own.
  const auto events = read_all(
      write_file("comms.trace", kHead2 + "0 0 10 send 1 8 4 1\n1 0 30 recv 0 16 4 0 exact\n0 10 20 send 1 16 4 0\n"
                                         "1 30 40 recv 0 8 4 1 exact\nend 4\n"));
  EXPECT_EQ(events.size(), 4u);
  EXPECT_EQ(error_of("comms-bad.trace", kHead2 + "0 0 10 send 1 8 4 1\n1 0 20 recv 0 8 4 0 exact\nend 2\n"),
            ": end of trace: send 0 -> 1 tag 4 (8 bytes, line 7) was never received");
  EXPECT_EQ(error_of("comm-peer.trace", kHead2 + "0 0 10 send 2 8 4 1\nend 1\n"),
            ":7: field 'peer': rank 2 is not a member of communicator 1");
  EXPECT_EQ(error_of("comm-rank.trace", kHead2 + "2 0 10 send 0 8 4 1\nend 1\n"),
            ":7: field 'comm': rank 2 is not a member of communicator 1");
  EXPECT_EQ(error_of("comm-undeclared.trace", kHead2 + "0 0 10 send 1 8 4 7\nend 1\n"),
            ":7: field 'comm': communicator 7 is not declared in the header");
}

TEST(TraceFormatV2, NonBlockingCollectivesOpenRequests) {
  const std::string calls = "0 0 10 iallreduce 1 8 5\n1 0 10 iallreduce 1 8 2\n";
  const auto events = read_all(write_file("nbc.trace", kHead2 + calls + "0 10 20 wait 5\n1 10 20 wait 2\nend 4\n"));
  EXPECT_EQ(events[0].request, 5u);
  EXPECT_EQ(blocking_form(events[0].op), TraceOp::kAllreduce);
  EXPECT_EQ(error_of("nbc-open.trace", kHead2 + calls + "0 10 20 wait 5\nend 3\n"),
            ": end of trace: request 2 of rank 1 (opened at line 8) was never waited for");
  EXPECT_EQ(
      error_of("nbc-mixed.trace", kHead2 + "0 0 10 iallreduce 1 8 5\n1 0 10 allreduce 1 8\nend 2\n").substr(0, 35),
      ":8: field 'op': collective #1 of ra");
}

}  // namespace
}  // namespace ibsec::traces
