// Where replayed ranks run (trace.placement): the cyclic and block rules for
// one and several jobs, and placement files with every error naming the
// file, the line and the field.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "hosts/placement.h"

namespace ibsec::hosts {
namespace {

std::vector<uint32_t> nodes_of(const IdVector<ProcessId, NodeId>& placed) {
  std::vector<uint32_t> out;
  for (const NodeId n : placed) out.push_back(n.value());
  return out;
}

std::string placement_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()) + ".place");
  std::ofstream(path) << text;
  return path.string();
}

// The ConfigError's message for a placement that is refused.
std::string refusal(const std::string& placement, const std::vector<uint32_t>& jobs, uint32_t nodes) {
  try {
    place_processes(placement, jobs, nodes);
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "trace.placement");
    return e.what();
  }
  return "accepted";
}

TEST(Placement, CyclicDealsEachJobsRanksToTheNodesInTurn) {
  EXPECT_EQ(nodes_of(place_processes("cyclic", {5}, 2)), (std::vector<uint32_t>{0, 1, 0, 1, 0}));
  EXPECT_EQ(nodes_of(place_processes("cyclic", {3, 2}, 4)), (std::vector<uint32_t>{0, 1, 2, 0, 1}));
}

// ceil(5 / 2) = 3 per node: ranks 0-2 on node 0, 3-4 on node 1; each job on its own.
TEST(Placement, BlockFillsTheNodesInRankOrder) {
  EXPECT_EQ(nodes_of(place_processes("block", {5}, 2)), (std::vector<uint32_t>{0, 0, 0, 1, 1}));
  EXPECT_EQ(nodes_of(place_processes("block", {4, 2}, 4)), (std::vector<uint32_t>{0, 1, 2, 3, 0, 1}));
  EXPECT_EQ(nodes_of(place_processes("block", {8}, 3)), (std::vector<uint32_t>{0, 0, 0, 1, 1, 1, 2, 2}));
}

TEST(Placement, AFilePlacesEveryRankWhereItSays) {
  const std::string one = placement_file("one", "# rank node\n0 3\n2 3  # two on node 3\n\n1 0\n");
  EXPECT_EQ(nodes_of(place_processes(one, {3}, 4)), (std::vector<uint32_t>{3, 0, 3}));
  const std::string two = placement_file("two", "1 0 2\n0 1 1\n0 0 1\n");
  EXPECT_EQ(nodes_of(place_processes(two, {2, 1}, 4)), (std::vector<uint32_t>{1, 1, 2}));
}

TEST(Placement, FileErrorsNameTheLineAndTheField) {
  const std::string prefix = "invalid 'trace.placement': ";
  std::string f = placement_file("node", "0 0\n1 4\n");
  EXPECT_EQ(refusal(f, {2}, 4), prefix + f + ":2: field 'node': 4 is not a node (the cluster has 4)");
  f = placement_file("rank", "0 0\n2 1\n");
  EXPECT_EQ(refusal(f, {2}, 4), prefix + f + ":2: field 'rank': 2 is not a rank of job 0 (it has 2 processes)");
  f = placement_file("twice", "0 0\n# again\n0 1\n");
  EXPECT_EQ(refusal(f, {2}, 4), prefix + f + ":3: field 'rank': rank 0 is placed twice (first on line 1)");
  f = placement_file("missing", "1 0\n");
  EXPECT_EQ(refusal(f, {2}, 4), prefix + f + ": rank 0 is not placed: every rank needs a line");
  f = placement_file("number", "0 x1\n");
  EXPECT_EQ(refusal(f, {1}, 4), prefix + f + ":1: field 'node': 'x1' is not a whole number below 2^32");
  f = placement_file("huge", "0 4294967296\n");
  EXPECT_EQ(refusal(f, {1}, 4), prefix + f + ":1: field 'node': '4294967296' is not a whole number below 2^32");
  f = placement_file("job", "0 0 0\n2 0 0\n");
  EXPECT_EQ(refusal(f, {1, 1}, 4), prefix + f + ":2: field 'job': 2 is not a job (the run has 2)");
  f = placement_file("width", "0 0 0\n0 0\n");
  EXPECT_EQ(refusal(f, {1, 1}, 4), prefix + f + ":2: expected 3 fields, as on the file's first line");
  f = placement_file("jobs", "0 0\n");
  EXPECT_EQ(refusal(f, {1, 1}, 4), prefix + f + ":1: the run replays 2 jobs: give 'JOB RANK NODE' lines");
  f = placement_file("fields", "0 0 0 0\n");
  EXPECT_EQ(refusal(f, {1}, 4), prefix + f + ":1: expected 'RANK NODE' or 'JOB RANK NODE'");
  EXPECT_EQ(refusal("/nonexistent/place", {1}, 4),
            prefix + "cannot open the placement file '/nonexistent/place': No such file or directory");
}

}  // namespace
}  // namespace ibsec::hosts
