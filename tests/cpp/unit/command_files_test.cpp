// The outputs of one command checked together (core/atomic_file.h,
// CommandFiles): regular files or new paths only, none another output and
// none an input, compared by inode where they exist and by normalized path
// where they do not (issue 27, items 7, 15, 16, 17).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "support/scratch_files.h"

namespace ibsec {
namespace {

namespace fs = std::filesystem;

// The message CommandFiles refuses with, or "accepted".
template <typename Fill>
std::string refusal(Fill&& fill) {
  try {
    CommandFiles files;
    fill(files);
    files.check();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(CommandFiles, DistinctNewOutputsAndInputsAreAccepted) {
  const auto dir = testing::scratch_dir("command-files-");
  const std::string in = testing::write_file(dir / "in.json", "{}");
  EXPECT_EQ(refusal([&](CommandFiles& f) {
              f.input(in, "config");
              f.output((dir / "r.json").string(), "--out");
              f.output((dir / "r.csv").string(), "sim.event_log");
              f.output("-", "--perf-json");
              f.input("", "--attack");  // not given
            }),
            "accepted");
}

TEST(CommandFiles, TwoNamesOfOneNewFileAreRefused) {
  const auto dir = testing::scratch_dir("command-files-");
  fs::create_directories(dir / "d");
  const std::string out = (dir / "r.json").string();
  const std::string again = (dir / "d" / ".." / "." / "r.json").string();
  EXPECT_EQ(refusal([&](CommandFiles& f) {
              f.output(out, "--out");
              f.output(again, "sim.event_log");
            }),
            "invalid 'sim.event_log': '" + again + "' is also where --out goes ('" + out +
                "'): give each output its own file");
}

TEST(CommandFiles, HardLinksOfOneFileAreOneFile) {
  const auto dir = testing::scratch_dir("command-files-");
  const std::string file = testing::write_file(dir / "old.json", "{}");
  const std::string link = (dir / "hard.json").string();
  fs::remove(link);
  fs::create_hard_link(file, link);
  EXPECT_NE(refusal([&](CommandFiles& f) {
              f.output(file, "--out");
              f.output(link, "--perf-json");
            }).find("is also where --out goes"),
            std::string::npos);
}

TEST(CommandFiles, AnOutputThatIsAnInputIsRefused) {
  const auto dir = testing::scratch_dir("command-files-");
  const std::string trace = testing::write_file(dir / "t.trace", "x");
  const std::string alias = (dir / "alias.trace").string();
  fs::remove(alias);
  fs::create_symlink(trace, alias);
  EXPECT_EQ(refusal([&](CommandFiles& f) {
              f.input(alias, "trace.file");
              f.output(trace, "--out");
            }),
            "invalid '--out': '" + trace + "' is trace.file ('" + alias +
                "'), which the run reads: writing it would destroy it");
}

TEST(CommandFiles, StandardOutputTakesOneOutput) {
  EXPECT_NE(refusal([](CommandFiles& f) {
              f.output("-", "--out");
              f.output("-", "--perf-json");
            }).find("invalid '--perf-json': '-' is also where --out goes"),
            std::string::npos);
}

TEST(CommandFiles, OutputsAreRegularFilesOrNewPaths) {
  const auto dir = testing::scratch_dir("command-files-");
  const std::string fifo = (dir / "fifo").string();
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string link = (dir / "link").string();
  fs::remove(link);
  fs::create_symlink(dir / "elsewhere", link);
  const auto problem = [](const std::string& path) {
    return refusal([&](CommandFiles& f) { f.output(path, "--out"); });
  };
  EXPECT_NE(problem(fifo).find("is a FIFO"), std::string::npos);
  EXPECT_NE(problem(link).find("is a symbolic link"), std::string::npos);  // even dangling
  EXPECT_NE(problem(dir.string()).find("is a directory"), std::string::npos);
  EXPECT_NE(problem("/dev/null").find("is a device"), std::string::npos);
  EXPECT_NE(problem("").find("is empty"), std::string::npos);
  EXPECT_NE(problem((dir / "missing" / "r.json").string()).find("is not a folder"), std::string::npos);
}

}  // namespace
}  // namespace ibsec
