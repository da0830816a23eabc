// Shifting the ranks' clocks of an imported trace after it was made
// (traces/import/rank_clock_shift.h): the events move, the order is the
// format's (START, then rank, then each rank's own order), nothing else changes.
#include "traces/import/rank_clock_shift.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/import_support.h"
#include "traces/trace_writer.h"

namespace ibsec::traces {
namespace {

namespace fs = std::filesystem;

class RankClockShift : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ibsec-clock-shift-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A binary trace of `events` (rank, start, end) of compute, in that order.
  std::string written(const std::vector<std::array<uint64_t, 3>>& events) {
    TraceHeader header;
    header.processes = 2;
    const std::string path = (dir_ / "in.ibtb").string();
    TraceWriter writer(path, header, TraceEncoding::kBinary, TraceCompression::kNone, "out");
    for (const auto& [rank, start, end] : events) {
      TraceEvent e;
      e.rank = static_cast<uint32_t>(rank);
      e.start_ns = start;
      e.end_ns = end;
      writer.write(e);
    }
    writer.finish();
    return path;
  }
  // `in`'s events through shift_rank_clocks, as text lines in the order handed on.
  static std::vector<std::string> shifted(const std::string& in, const std::vector<uint64_t>& shifts) {
    TraceReader reader(in);
    std::vector<std::string> lines;
    shift_rank_clocks(reader, shifts,
                      [&](const TraceEvent& e) { lines.push_back(format_event(e, reader.header().version)); });
    return lines;
  }

 private:
  fs::path dir_;
};

// Rank 0 moves 5 ns later. Its event at 5 ties with rank 1's: the lower
// rank goes first; rank 1's own three stay in their order.
TEST_F(RankClockShift, EventsMoveAndTiesGoByRankThenOwnOrder) {
  const std::string in = written({{0, 0, 10}, {1, 0, 5}, {1, 5, 5}, {1, 5, 10}, {0, 10, 20}, {1, 10, 20}});
  const std::vector<std::string> expected = {"1 0 5 compute",  "0 5 15 compute",  "1 5 5 compute",
                                             "1 5 10 compute", "1 10 20 compute", "0 15 25 compute"};
  EXPECT_EQ(shifted(in, {5, 0}), expected);
}

TEST_F(RankClockShift, NoShiftLeavesTheTraceAsItWas) {
  const std::string in = written({{0, 0, 10}, {1, 0, 5}, {1, 5, 10}, {0, 10, 20}});
  EXPECT_EQ(shifted(in, {0, 0}), testing::events_in_order(in));
}

TEST_F(RankClockShift, ARankWithoutAShiftIsRefused) {
  const std::string in = written({{0, 0, 10}, {1, 0, 5}});
  try {
    shifted(in, {3});
    FAIL() << "accepted";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.field(), "rank");
  }
}

}  // namespace
}  // namespace ibsec::traces
