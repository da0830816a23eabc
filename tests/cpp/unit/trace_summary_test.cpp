// `trace info`'s summary: quartiles and log2 histograms of point-to-point
// message bytes and of collective bytes per call, and the calls and bytes of
// every collective op of trace_ops.def, on traces whose answers are known.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "traces/size_distribution.h"
#include "traces/trace_checker.h"
#include "traces/trace_reader.h"
#include "traces/trace_summary.h"

namespace ibsec::traces {
namespace {

namespace fs = std::filesystem;

std::string write_file(const std::string& name, const std::string& content) {
  const fs::path dir = fs::temp_directory_path() / ("ibsec_trace_summary_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << content;
  return (dir / name).string();
}

nlohmann::ordered_json summarise(const std::string& path) {
  TraceReader reader(path);
  TraceSummary summary(reader.header());
  check_whole_trace(reader, [&](const TraceEvent& e) { summary.add(e); });
  return summary.to_json();
}

using Buckets = std::vector<std::tuple<uint64_t, uint64_t, uint64_t>>;  // from, to, count

Buckets buckets_of(const SizeDistribution& sizes) {
  Buckets out;
  for (const auto& b : sizes.log2_histogram()) out.emplace_back(b.from, b.to, b.count);
  return out;
}

TEST(SizeDistribution, QuartilesAreNearestRankAndTheHistogramHasEveryBucketBetween) {
  SizeDistribution sizes;
  for (uint64_t v : {1000, 8, 0, 3, 100, 2, 8, 1}) sizes.add(v);  // sorted: 0 1 2 3 8 8 100 1000
  const auto q = sizes.quartiles();
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->min, 0u);
  EXPECT_EQ(q->q1, 1u);      // rank ceil(8/4) = 2
  EXPECT_EQ(q->median, 3u);  // rank 4
  EXPECT_EQ(q->q3, 8u);      // rank 6
  EXPECT_EQ(q->max, 1000u);
  EXPECT_TRUE(sizes.exact());
  EXPECT_EQ(sizes.count(), 8u);
  EXPECT_EQ(sizes.sum(), 1122u);
  EXPECT_EQ(buckets_of(sizes), (Buckets{{0, 0, 1},
                                        {1, 1, 1},
                                        {2, 3, 2},
                                        {4, 7, 0},
                                        {8, 15, 2},
                                        {16, 31, 0},
                                        {32, 63, 0},
                                        {64, 127, 1},
                                        {128, 255, 0},
                                        {256, 511, 0},
                                        {512, 1023, 1}}));
}

TEST(SizeDistribution, OneValueAndNone) {
  SizeDistribution none;
  EXPECT_FALSE(none.quartiles().has_value());
  EXPECT_TRUE(none.log2_histogram().empty());
  EXPECT_TRUE(none.to_json("messages")["median"].is_null());
  SizeDistribution one;
  one.add(4096);
  EXPECT_EQ(one.quartiles()->q1, 4096u);
  EXPECT_EQ(one.quartiles()->q3, 4096u);
  EXPECT_EQ(buckets_of(one), (Buckets{{4096, 8191, 1}}));
}

TEST(SizeDistribution, TheLargestBucketAndItsLabel) {
  EXPECT_EQ(SizeDistribution::log2_bucket(UINT64_MAX), 64u);
  const auto top = SizeDistribution::log2_bounds(64);
  EXPECT_EQ(top.from, uint64_t{1} << 63);
  EXPECT_EQ(top.to, UINT64_MAX);
  EXPECT_EQ(bucket_label(SizeDistribution::log2_bounds(0)), "0");
  EXPECT_EQ(bucket_label(SizeDistribution::log2_bounds(3)), "4-7");
}

TEST(SizeDistribution, PastTheDistinctValueLimitQuartilesAreApproximateAndSaySo) {
  SizeDistribution sizes;
  const uint64_t n = SizeDistribution::kMaxExactValues + 1;
  for (uint64_t v = 1; v <= n; ++v) sizes.add(v * 1000);
  EXPECT_FALSE(sizes.exact());
  const auto q = sizes.quartiles();
  const double true_median = static_cast<double>((n + 1) / 2) * 1000;
  EXPECT_NEAR(static_cast<double>(q->median), true_median, true_median / 128);
  EXPECT_EQ(q->min, 1000u);
  EXPECT_EQ(q->max, n * 1000);
  EXPECT_FALSE(sizes.to_json("messages")["quartiles_exact"].get<bool>());
}

TEST(TraceSummary, MessageSizesOfAHandWrittenTrace) {
  const std::string text =
      "ibsec-trace 2\nprocesses 2\ntime_unit ns\norigin synthetic summary\nevents\n"
      "0 0 10 send 1 0 1 0\n1 0 10 recv 0 0 1 0 exact\n"
      "0 10 20 send 1 4096 1 0\n1 10 20 recv 0 4096 1 0 exact\n"
      "0 20 30 isend 1 8 2 7 0\n1 20 30 irecv 0 8 2 3 0 any\n"
      "0 30 40 send 1 100 1 0\n1 30 40 recv 0 100 1 0 exact\n"
      "0 40 50 wait 7\n1 40 50 wait 3\n"
      "0 50 60 send 1 8 1 0\n1 50 60 recv 0 8 1 0 exact\n"
      "0 60 70 allreduce 0 16\n1 60 70 allreduce 0 16\n"
      "0 70 80 barrier 0\n1 70 80 barrier 0\n"
      "end 16\n";
  const auto doc = summarise(write_file("sizes.trace", text));
  const auto& m = doc["message_sizes"];  // 0 8 8 100 4096
  EXPECT_EQ(m["messages"], 5);
  EXPECT_EQ(m["bytes"], 4212);
  EXPECT_EQ(m["min"], 0);
  EXPECT_EQ(m["q1"], 8);
  EXPECT_EQ(m["median"], 8);
  EXPECT_EQ(m["q3"], 100);
  EXPECT_EQ(m["max"], 4096);
  EXPECT_EQ(m["log2_histogram"].size(), 14u);  // 0, 1, 2-3, ... 4096-8191
  EXPECT_EQ(m["log2_histogram"][4], (nlohmann::ordered_json{{"from", 8}, {"to", 15}, {"count", 2}}));
  EXPECT_EQ(m["log2_histogram"][13], (nlohmann::ordered_json{{"from", 4096}, {"to", 8191}, {"count", 1}}));
  const auto& c = doc["collective_sizes"];  // 0 0 16 16
  EXPECT_EQ(c["calls"], 4);
  EXPECT_EQ(c["q1"], 0);
  EXPECT_EQ(c["median"], 0);
  EXPECT_EQ(c["q3"], 16);
  EXPECT_EQ(doc["collectives_by_op"], (nlohmann::ordered_json{{"barrier", {{"calls", 2}, {"bytes", 0}}},
                                                              {"allreduce", {{"calls", 2}, {"bytes", 32}}}}));
}

// The counts of docs/running.md#counts: a send to the sender itself is an
// application message (and a self-message); a collective call is one per
// process.
TEST(TraceSummary, ApplicationMessagesCountSelfMessagesAndCollectiveCallsArePerProcess) {
  const std::string text =
      "ibsec-trace 2\nprocesses 2\ntime_unit ns\norigin synthetic summary\nevents\n"
      "0 0 10 send 1 8 1 0\n1 0 10 recv 0 8 1 0 exact\n"
      "0 10 20 isend 0 8 2 7 0\n0 20 30 recv 0 8 2 0 exact\n0 30 40 wait 7\n"
      "0 40 50 barrier 0\n1 40 50 barrier 0\n"
      "end 7\n";
  const auto doc = summarise(write_file("counts.trace", text));
  EXPECT_EQ(doc["application_messages"], 2);
  EXPECT_EQ(doc["self_messages"], 1);
  EXPECT_EQ(doc["collective_calls"], 2);
  EXPECT_EQ(doc["per_process"][0]["messages_sent"], 2);
}

// Both processes of a 2-process trace call every collective op of
// trace_ops.def once (waiting for the non-blocking ones): 8 bytes where the
// op has BYTES; counts 3,5 (the root of a gatherv or scatterv lists both,
// the other member its own part only).
std::string argument_text(TraceArg arg, uint32_t request) {
  if (arg == TraceArg::kBytes) return "8";
  if (arg == TraceArg::kReq) return std::to_string(request);
  return "0";  // the communicator: the world; the root: rank 0
}

std::string every_collective_trace() {
  std::string lines;
  uint64_t t = 0;
  uint64_t events = 0;
  uint32_t request = 0;
  for (const TraceOpInfo& op : kTraceOps) {
    if (!op.collective) continue;
    ++request;
    for (uint32_t rank = 0; rank < 2; ++rank) {
      std::string line =
          std::to_string(rank) + " " + std::to_string(t) + " " + std::to_string(t + 1) + " " + std::string(op.name);
      for (TraceArg arg : info(op.layout).args()) {
        line += ' ';
        line += argument_text(arg, request);
      }
      if (op.counts) line += has_root(static_cast<TraceOp>(op.code)) && rank != 0 ? " 0,5" : " 3,5";
      lines += line + "\n";
      ++events;
    }
    t += 1;
    if (opens_request(static_cast<TraceOp>(op.code))) {
      for (uint32_t rank = 0; rank < 2; ++rank) {
        lines += std::to_string(rank) + " " + std::to_string(t) + " " + std::to_string(t + 1) + " wait " +
                 std::to_string(request) + "\n";
        ++events;
      }
      t += 1;
    }
  }
  return "ibsec-trace 2\nprocesses 2\ntime_unit ns\norigin synthetic every collective\nevents\n" + lines + "end " +
         std::to_string(events) + "\n";
}

TEST(TraceSummary, EveryCollectiveOpIsBrokenDownWithItsCallsAndBytes) {
  const auto doc = summarise(write_file("every.trace", every_collective_trace()));
  const auto& ops = doc["collectives_by_op"];
  size_t collective_ops = 0;
  for (const TraceOpInfo& op : kTraceOps) {
    if (!op.collective) continue;
    ++collective_ops;
    const auto form = blocking_form(static_cast<TraceOp>(op.code));
    const bool rooted_counts = op.counts && has_root(static_cast<TraceOp>(op.code));
    const uint64_t bytes = form == TraceOp::kBarrier ? 0 : rooted_counts ? 8 + 5 : 16;
    ASSERT_TRUE(ops.contains(std::string(op.name))) << op.name;
    EXPECT_EQ(ops[std::string(op.name)]["calls"], 2) << op.name;
    EXPECT_EQ(ops[std::string(op.name)]["bytes"], bytes) << op.name;
  }
  EXPECT_EQ(ops.size(), collective_ops);
  EXPECT_EQ(doc["collective_sizes"]["calls"], 2 * collective_ops);
  EXPECT_EQ(doc["collective_sizes"]["max"], 8);
  EXPECT_EQ(doc["message_sizes"]["messages"], 0);
  EXPECT_TRUE(doc["message_sizes"]["median"].is_null());
}

}  // namespace
}  // namespace ibsec::traces
