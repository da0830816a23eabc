// The optional outputs of a run: the per-packet log and the VCD trace.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "support/model_support.h"

namespace ibsec {
namespace {

namespace fs = std::filesystem;

TEST(RunOutputs, PacketLogHasOneRowPerDeliveryAndTheVcdIsWritten) {
  const fs::path dir = fs::temp_directory_path() / ("ibsec-outputs-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path log = dir / "packets.csv";
  const fs::path vcd = dir / "cards.vcd";
  const sim::SimConfig config = testing::config_with({"sim.event_log=" + log.string(), "sim.vcd=" + vcd.string()});
  sim::Cluster cluster(config, {testing::message_at(0, 0, 1, 600, 0), testing::message_at(5'000'000, 2, 3, 10, 1)});
  ASSERT_TRUE(cluster.run().drained);

  std::ifstream in(log);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("packet,source_node,destination_node", 0), 0U);
  int rows = 0;
  for (std::string line; std::getline(in, line);) ++rows;
  EXPECT_EQ(rows, 4);  // 600 B = 3 packets of at most 256 B, plus one
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2) << "a temporary file was left";
  ASSERT_TRUE(fs::exists(vcd));
  EXPECT_GT(fs::file_size(vcd), 100U);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ibsec
