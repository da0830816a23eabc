// Soak runs: a 64-node fat tree with every source saturated for a million
// messages and more, once with plain cards and once with secure ones. Long
// (seconds each): ctest -L soak, run by CI, not by the everyday test command.
#include <gtest/gtest.h>

#include "support/saturation.h"

namespace ibsec {
namespace {

using testing::expect_soak_survived;
using testing::saturate;

const std::vector<std::string> kSoakTree{"network.topology=fat-tree",    "network.fat_tree.n=3",
                                         "network.virtual_lanes=2",      "traffic.sizes_bytes=[64,256,2048]",
                                         "traffic.processes_per_node=2", "traffic.warmup_messages=20000"};

std::vector<std::string> soak(std::vector<std::string> extra) {
  extra.insert(extra.begin(), kSoakTree.begin(), kSoakTree.end());
  return extra;
}

TEST(Saturation, FatTreeSoakNeitherDeadlocksNorLoses) {
  // 64 nodes, two lanes, mixed sizes, every source saturated: the fabric is
  // the bottleneck.
  expect_soak_survived(saturate(soak({"traffic.messages=1500000"})));
}

TEST(Saturation, FatTreeSoakWithSecureCards) {
  // The same with SKC-6 and a prefetch buffer: now the key memory limits the
  // cards and backs traffic up into the hosts.
  expect_soak_survived(saturate(soak({"nic.security=SKC-6+Prefetch-2", "traffic.messages=1000000"})));
}

}  // namespace
}  // namespace ibsec
