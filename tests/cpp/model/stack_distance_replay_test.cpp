// The cards' LRU stack distances on a replay (nic.lookup.stack_distances),
// against the closed form of a hand-written trace and against replays of the
// same trace with a small SKC. Rank 0 sends to ranks 1 and 2 in turn, one
// packet a message, so card 0 alternates two keys and cards 1 and 2 each see
// one. Its order of look-ups does not depend on the SKC (one direction), so
// hit(x) read off the histogram must be the replay's hit rate at SKC-x exactly.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/model_support.h"

namespace ibsec {
namespace {

using namespace testing;

constexpr uint32_t kMessages = 40;  // from rank 0; half to rank 1, half to rank 2

std::string alternating_trace() {
  const auto path = std::filesystem::temp_directory_path() / ("alternating_" + std::to_string(::getpid()) + ".trace");
  std::ofstream out(path);
  out << "ibsec-trace 1\nprocesses 3\ntime_unit ns\norigin synthetic stack_distance_replay_test\nevents\n";
  for (uint32_t i = 0; i < kMessages; ++i) {
    const uint32_t peer = 1 + i % 2;
    out << "0 " << i * 1000 << " " << i * 1000 + 10 << " send " << peer << " 256 " << i / 2 << "\n";
    out << peer << " " << i * 1000 << " " << i * 1000 + 10 << " recv 0 256 " << i / 2 << "\n";
  }
  out << "end " << 2 * kMessages << "\n";  // the number of event lines
  return path.string();
}

nlohmann::json replay(const std::string& security, bool stack_distances) {
  return nlohmann::json::parse(
      run_in_child({"trace.file=" + nlohmann::json(alternating_trace()).dump(), "nic.security=\"" + security + "\"",
                    std::string("nic.lookup.stack_distances=") + (stack_distances ? "true" : "false")}));
}

TEST(StackDistanceReplay, AlternatingKeysGiveTheClosedForm) {
  const auto result = replay("SKC-8", true);
  const auto& report = result["lookup_stack_distances"];
  const uint64_t n = kMessages;
  // Card 0: n look-ups, 2 cold, the rest at distance 1; cards 1, 2: n/2 each, 1 cold, the rest at distance 0.
  EXPECT_EQ(report["cards"][0]["lookups"], n);
  EXPECT_EQ(report["cards"][0]["cold_lookups"], 2u);
  EXPECT_EQ(report["cards"][0]["histogram"], nlohmann::json({0, n - 2}));
  EXPECT_EQ(report["cards"][1]["histogram"], nlohmann::json({n / 2 - 1}));
  EXPECT_EQ(report["cards"][2]["histogram"], nlohmann::json({n / 2 - 1}));
  EXPECT_EQ(report["cards"][3]["lookups"], 0u);
  EXPECT_EQ(report["lookups"], 2 * n);
  EXPECT_EQ(report["lookups"], result["statistics"]["key_lookups"]);
  EXPECT_DOUBLE_EQ(report["lru_hit_rate_by_entries"][0].get<double>(), static_cast<double>(n - 2) / (2.0 * n));
  EXPECT_DOUBLE_EQ(report["lru_hit_rate_by_entries"][1].get<double>(), static_cast<double>(2 * n - 4) / (2.0 * n));
}

TEST(StackDistanceReplay, HitAtEachSizeIsTheReplaysHitRateAtThatSize) {
  const auto profile = replay("SKC-8", true)["lookup_stack_distances"]["lru_hit_rate_by_entries"];
  for (const uint32_t entries : {1U, 2U}) {
    const auto result = replay("SKC-" + std::to_string(entries), false);
    EXPECT_DOUBLE_EQ(result["statistics"]["skc_hit_rate"].get<double>(), profile[entries - 1].get<double>())
        << entries << " entries";
  }
}

TEST(StackDistanceReplay, OffByDefaultTheResultHasNoSection) {
  EXPECT_FALSE(replay("SKC-8", false).contains("lookup_stack_distances"));
}

}  // namespace
}  // namespace ibsec
