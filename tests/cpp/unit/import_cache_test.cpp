// Another tool's trace named where an ibsec trace is expected, read through
// its cached import (traces/import/import_cache.h, sim/imported_traces.h): made
// once, then read from the cache; made again when the source or the engine
// changes; and no cache folder named as the field at fault. A run of one:
// tests/cpp/model/imported_trace_run_test.cpp.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "core/errors.h"
#include "support/dumpi_writer.h"
#include "support/import_support.h"
#include "support/scratch_files.h"
#include "traces/import/import_cache.h"
#include "traces/import/trace_import.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace ibsec::traces {
namespace {

namespace fs = std::filesystem;
using namespace testing::dumpi;  // NOLINT: the writer's ids and argument helpers

// The cache under a scratch XDG_CACHE_HOME of this test's own (each test runs in a process of its own).
class ImportCache : public ::testing::Test {
 protected:
  void SetUp() override {
    xdg_ =
        testing::scratch_dir("ibsec-import-cache-") / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(xdg_);
    ::setenv("XDG_CACHE_HOME", xdg_.c_str(), 1);
  }
  void TearDown() override { fs::remove_all(xdg_); }
  fs::path xdg_;
};

TEST_F(ImportCache, ImportsOnceThenReadsTheCache) {
  DumpiRunWriter run(2, "once");
  const std::string meta = two_rank_run(run, 25);
  int announced = 0;
  const auto count = [&](const CachedImport&) { ++announced; };
  const CachedImport first = cached_import(meta, "trace.file", count);
  EXPECT_TRUE(first.imported_now);
  EXPECT_EQ(announced, 1);
  EXPECT_EQ(first.format, "DUMPI");
  EXPECT_EQ(fs::path(first.trace), xdg_ / "ibsec" / "imports" / (first.source_sha256 + ".ibtb"));
  const auto written = fs::last_write_time(first.trace);

  const CachedImport second = cached_import(meta, "trace.file", count);
  EXPECT_FALSE(second.imported_now);
  EXPECT_EQ(announced, 1);
  EXPECT_EQ(second.trace, first.trace);
  EXPECT_EQ(fs::last_write_time(second.trace), written);
  // The cached trace is what `trace import` writes, events for events.
  EXPECT_EQ(testing::events_by_rank(second.trace), testing::events_by_rank(testing::imported(meta)));
}

TEST_F(ImportCache, AChangedSourceIsImportedAgain) {
  DumpiRunWriter before(2, "before");
  DumpiRunWriter after(2, "after");
  const CachedImport first = cached_import(two_rank_run(before, 25), "trace.file");
  const CachedImport second = cached_import(two_rank_run(after, 26), "trace.file");
  EXPECT_TRUE(second.imported_now);
  EXPECT_NE(second.source_sha256, first.source_sha256);
  EXPECT_NE(second.trace, first.trace);
  EXPECT_EQ(testing::events_by_rank(second.trace).at(0).size(), testing::events_by_rank(first.trace).at(0).size());
}

// A cached trace without this engine's importer note (another build made it)
// is made again; so is one cut short.
TEST_F(ImportCache, AnImportOfAnotherEngineOrCutShortIsMadeAgain) {
  DumpiRunWriter run(2, "other");
  const std::string meta = two_rank_run(run, 25);
  const CachedImport first = cached_import(meta, "trace.file");
  TraceHeader header = TraceReader(first.trace).header();
  std::erase(header.notes, importer_note());
  header.notes.push_back("import: by ibsec-engine 0.0.0 sha256 0000");
  const std::string elsewhere = (xdg_ / "other.ibtb").string();
  {
    TraceReader reader(first.trace);
    TraceWriter writer(elsewhere, header, "out");
    TraceEvent e;
    while (reader.next(e)) writer.write(e);
    writer.finish();
  }
  fs::rename(elsewhere, first.trace);
  const CachedImport again = cached_import(meta, "trace.file");
  EXPECT_TRUE(again.imported_now);
  const TraceReader reread(again.trace);
  const auto& notes = reread.header().notes;
  EXPECT_NE(std::find(notes.begin(), notes.end(), importer_note()), notes.end());

  fs::resize_file(again.trace, fs::file_size(again.trace) / 2);
  EXPECT_TRUE(cached_import(meta, "trace.file").imported_now);
}

TEST_F(ImportCache, WithoutACacheFolderTheFieldIsNamed) {
  DumpiRunWriter run(2, "nofolder");
  const std::string meta = two_rank_run(run, 25);
  ::unsetenv("XDG_CACHE_HOME");
  ::unsetenv("HOME");
  try {
    cached_import(meta, "trace.jobs");
    FAIL() << "imported without a cache folder";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "trace.jobs");
    EXPECT_NE(std::string(e.what()).find("XDG_CACHE_HOME"), std::string::npos) << e.what();
  }
}

TEST_F(ImportCache, SourcesAreKnownByTheirNames) {
  DumpiRunWriter run(2, "names");
  const std::string meta = two_rank_run(run, 25);
  EXPECT_TRUE(is_import_source(meta));
  EXPECT_TRUE(is_import_source(run.dir().string()));  // the folder holding it
  EXPECT_TRUE(is_import_source("archive/traces.otf2"));
  EXPECT_FALSE(is_import_source(testing::imported(meta)));
  EXPECT_FALSE(is_import_source("cg.trace.zst"));
}

}  // namespace
}  // namespace ibsec::traces
