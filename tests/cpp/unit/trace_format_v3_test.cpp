// What version 3 of the trace format added (docs/trace-format.md, "CPU
// time"): the CPU time of each compute event and the `cpu_time` header line
// naming its clock; and that traces without CPU times are written as
// version 2, byte for byte as before.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/scratch_files.h"
#include "support/trace_io.h"
#include "traces/trace_binary.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace ibsec::traces {
namespace {

namespace fs = std::filesystem;

fs::path scratch_dir() { return testing::scratch_dir("ibsec_trace_v3_test_"); }

std::string write_file(const std::string& name, const std::string& content) {
  return testing::write_file(scratch_dir() / name, content);
}

using testing::read_all;
using testing::read_bytes;

std::string convert(const std::string& from, const std::string& to_name) {
  return testing::convert_to(from, (scratch_dir() / to_name).string());
}

// The message of the error reading `content` gives, after the file name.
std::string error_of(const std::string& name, const std::string& content) {
  return testing::read_error(write_file(name, content));
}

const std::string kHeader3 = "ibsec-trace 3\nprocesses 2\ntime_unit ns\norigin captured test\ncpu_time thread\n";

// Two ranks computing, then exchanging: rank 0 computed 1000 ns of wall time
// of which 250 on a CPU.
const std::string kV3 = kHeader3 +
                        "events\n0 0 1000 compute 250\n1 0 400 compute 400\n1 400 1500 recv 0 64 3 0 exact\n"
                        "0 1000 1100 send 1 64 3 0\nend 4\n";

TEST(TraceFormatV3, ComputeEventsCarryTheirCpuTime) {
  TraceHeader header;
  const auto events = read_all(write_file("v3.trace", kV3), &header);
  EXPECT_EQ(header.version, 3u);
  EXPECT_EQ(header.cpu_clock, CpuClock::kThread);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].op, TraceOp::kCompute);
  EXPECT_EQ(events[0].cpu_ns, 250u);
  EXPECT_EQ(events[1].cpu_ns, 400u);
  EXPECT_EQ(events[2].cpu_ns, 0u);
}

TEST(TraceFormatV3, RoundTripsInEveryEncodingWithTheSameBytes) {
  const std::string text = write_file("rt.trace", kV3);
  const auto events = read_all(text);
  for (const std::string name : {"rt.ibtb", "rt.ibtb.zst", "rt.trace.gz"}) {
    const std::string other = convert(text, name);
    EXPECT_EQ(read_all(other), events) << name;
    EXPECT_EQ(read_bytes(convert(other, "back-" + name + ".trace")), kV3) << name;
  }
  // The CPU time is the binary record's `bytes` field, the preamble says 3.
  const std::string binary = read_bytes(convert(text, "layout.ibtb"));
  const size_t version_at = kBinaryMagic.size() + BinaryPreamble::version.offset;
  EXPECT_EQ(binary[version_at], 3);
  const size_t first_record = kBinaryMagic.size() + BinaryPreamble::size + kV3.find("0 0 1000");
  EXPECT_EQ(static_cast<unsigned char>(binary[first_record + BinaryRecordLayout::bytes.offset]), 250u);
}

TEST(TraceFormatV3, TracesWithoutCpuTimesAreWrittenAsVersion2) {
  const std::string v2 =
      "ibsec-trace 2\nprocesses 1\ntime_unit ns\norigin synthetic test\nevents\n0 0 10 compute\nend 1\n";
  const std::string path = write_file("v2.trace", v2);
  EXPECT_EQ(read_bytes(convert(path, "v2-again.trace")), v2);
  TraceHeader header;
  read_all(convert(path, "v2.ibtb"), &header);
  EXPECT_EQ(header.version, 2u);
  EXPECT_EQ(header.cpu_clock, CpuClock::kNone);
}

TEST(TraceFormatV3, MalformedCpuTimesAreRefusedWithTheirField) {
  EXPECT_EQ(error_of("no-clock.trace", "ibsec-trace 3\nprocesses 1\nevents\n0 0 10 compute 5\nend 1\n"),
            ":3: field 'cpu_time': a version-3 trace must say which clock measured its CPU times ('cpu_time "
            "thread' or 'cpu_time process')");
  EXPECT_EQ(error_of("old.trace", "ibsec-trace 2\nprocesses 1\ncpu_time thread\nevents\nend 0\n"),
            ":3: field 'cpu_time': a version-2 trace has no CPU times (they came with version 3)");
  EXPECT_EQ(error_of("clock.trace", "ibsec-trace 3\nprocesses 1\ncpu_time wall\nevents\nend 0\n"),
            ":3: field 'cpu_time': 'wall' is neither 'thread' nor 'process'");
  EXPECT_EQ(error_of("twice.trace", kHeader3 + "cpu_time process\nevents\nend 0\n"),
            ":6: field 'cpu_time': given twice");
  EXPECT_EQ(error_of("missing.trace", kHeader3 + "events\n0 0 10 compute\nend 1\n"),
            ":7: field 'op': compute takes 1 arguments, found 0");
  EXPECT_EQ(error_of("v2-arg.trace", "ibsec-trace 2\nprocesses 1\nevents\n0 0 10 compute 5\nend 1\n"),
            ":4: compute takes 0 arguments, found 1");
  EXPECT_EQ(error_of("more.trace", kHeader3 + "events\n0 0 10 compute 11\nend 1\n"),
            ":7: field 'cpu': 11 ns on the thread's CPU clock is more than the event's 10 ns of wall time");
  // The process's clock counts every thread: more CPU than wall time is possible.
  std::string process = kHeader3;
  process.replace(process.find("thread"), 6, "process");
  EXPECT_EQ(error_of("process.trace", process + "events\n0 0 10 compute 40\nend 1\n"), "accepted");
}

// A version-2 binary record of a compute event has zero where version 3 keeps the CPU time.
TEST(TraceFormatV3, Version2BinaryComputeWithBytesIsRefused) {
  const std::string v2 =
      convert(write_file("b2.trace",
                         "ibsec-trace 2\nprocesses 1\ntime_unit ns\norigin synthetic t\nevents\n0 0 10 compute\n"
                         "end 1\n"),
              "b2.ibtb");
  std::string bytes = read_bytes(v2);
  const size_t record = bytes.size() - 2 * BinaryRecordLayout::size;
  bytes[record + BinaryRecordLayout::bytes.offset] = 5;
  EXPECT_EQ(testing::read_error(write_file("b2-bad.ibtb", bytes)),
            ": record 1: field 'cpu': must be 0 in a version-2 trace (it came with version 3)");
}

TEST(TraceFormatV3, OversubscribedHostsComeFromTheCaptureNotes) {
  TraceHeader header;
  header.notes = {"host a cpus 2 ranks 16 oversubscribed", "host b cpus 16 ranks 2", "3 cancelled requests",
                  "host c#3 cpus 1 ranks 2 oversubscribed"};
  EXPECT_EQ(header.oversubscribed_hosts(), (std::vector<std::string>{"a", "c#3"}));
}

}  // namespace
}  // namespace ibsec::traces
