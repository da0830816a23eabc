// A run whose trace.file names another tool's trace (a DUMPI run): the
// configuration points at its cached import (sim/imported_traces.h), the
// cluster replays it, and the result names the source by its digest.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "sim/cluster.h"
#include "sim/imported_traces.h"
#include "support/dumpi_writer.h"
#include "support/model_support.h"
#include "support/scratch_files.h"

namespace ibsec::sim {
namespace {

using namespace testing::dumpi;  // NOLINT: the writer's ids and argument helpers

TEST(ImportedTraceRun, ReplaysTheCachedImportAndNamesTheSource) {
  const std::filesystem::path xdg = testing::scratch_dir("ibsec-imported-run-");
  ::setenv("XDG_CACHE_HOME", xdg.c_str(), 1);
  DumpiRunWriter run(2, "run");
  const std::string meta = two_rank_run(run, 25);
  SimConfig config = testing::config_with({"trace.file=" + meta, "nic.security=NoSecurity"});
  use_cached_imports(config);
  ASSERT_EQ(config.trace.imports.size(), 1u);
  EXPECT_EQ(config.trace.file, config.trace.imports[0].trace);
  EXPECT_EQ(config.resolved["trace"]["file"], meta);  // the result's config keeps what the user gave
  Cluster cluster(config);
  const auto result = cluster.result(cluster.run());
  EXPECT_EQ(result["replay"]["application_messages"], 1);
  ASSERT_EQ(result["trace_imports"].size(), 1u);
  EXPECT_EQ(result["trace_imports"][0]["source"], meta);
  EXPECT_EQ(result["trace_imports"][0]["format"], "DUMPI");
  EXPECT_EQ(result["trace_imports"][0]["source_sha256"], config.trace.imports[0].source_sha256);
  EXPECT_FALSE(result["trace_imports"][0].contains("trace"));  // where the cache is differs from user to user
  std::filesystem::remove_all(xdg);
}

}  // namespace
}  // namespace ibsec::sim
