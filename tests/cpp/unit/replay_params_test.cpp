// The replay's parameters (hosts/replay_params.cpp): defaults, the choices
// they make, and every refusal naming its key.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "hosts/replay_params.h"

namespace ibsec::hosts {
namespace {

ReplayParams read(ParameterTable table) {
  for (const ParameterInfo& p : replay_parameters().infos()) table.emplace(p.key, p.default_value);
  return replay_parameters().read(ParameterValues(table));
}

std::string refusal(const std::string& key, const nlohmann::json& value) {
  try {
    read({{key, value}});
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), key);
    return e.what();
  }
  return "accepted";
}

TEST(ReplayParams, DefaultsAreOpenMpisOnCyclicPlacement) {
  const ReplayParams r = read({});
  EXPECT_EQ(r.placement, "cyclic");
  EXPECT_EQ(r.compute_scale, 1.0);
  EXPECT_EQ(r.eager_limit_bytes, 12288U);
  EXPECT_EQ(r.collective_choice().choose(TraceOp::kAlltoall, 16, 16384).algorithm, "linear");
}

TEST(ReplayParams, ASchemeAndForcedAlgorithmsMakeTheChoice) {
  const ReplayParams r = read({{"replay.collectives", "simple"}, {"replay.collective.bcast", "knomial"}});
  EXPECT_EQ(r.collective_choice().choose(TraceOp::kAlltoall, 16, 16384).algorithm, "pairwise");
  EXPECT_EQ(r.collective_choice().choose(TraceOp::kBcast, 16, 1 << 20).algorithm, "knomial");
  EXPECT_EQ(read({{"replay.eager_limit_bytes", UINT64_MAX}}).eager_limit_bytes, UINT64_MAX);
}

TEST(ReplayParams, RefusalsNameTheKey) {
  EXPECT_EQ(refusal("trace.placement", ""),
            "invalid 'trace.placement': give cyclic, block or the path of a placement file");
  EXPECT_EQ(refusal("replay.compute_scale", 0), "invalid 'replay.compute_scale': must be > 0, got 0");
  EXPECT_EQ(refusal("replay.compute_scale", 1001), "invalid 'replay.compute_scale': must be at most 1000.0, got 1001");
  EXPECT_EQ(refusal("replay.collectives", "fast"),
            "invalid 'replay.collectives': expected tuned or simple, got 'fast'");
  EXPECT_EQ(refusal("replay.collective.alltoall", "ring"),
            "invalid 'replay.collective.alltoall': unknown algorithm 'ring'; known: auto, bruck, linear, pairwise");
  EXPECT_EQ(refusal("replay.eager_limit_bytes", -1),
            "invalid 'replay.eager_limit_bytes': expected a whole number >= 0, got -1");
}

}  // namespace
}  // namespace ibsec::hosts
