// The one reader of side inputs (core/bounded_input.h): lines as written,
// bounds checked before bytes are held, and every error naming the field,
// the file and the line (issue 27, item 18).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include "core/bounded_input.h"
#include "core/errors.h"
#include "support/scratch_files.h"

namespace ibsec {
namespace {

std::vector<std::string> lines_of(const std::string& path, InputLimits limits = {}) {
  LineReader in(path, "key", "test file", limits);
  std::vector<std::string> lines;
  for (std::string line; in.next(line);) lines.push_back(line + "@" + std::to_string(in.line_number()));
  return lines;
}

// The message of the ConfigError that reading the whole of `path` throws, or "read".
std::string refusal(const std::string& path, InputLimits limits = {}) {
  try {
    (void)lines_of(path, limits);
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "key");
    return e.what();
  }
  return "read";
}

TEST(BoundedInput, ReadsLinesAsWrittenWithTheirNumbers) {
  const auto dir = testing::scratch_dir("bounded-input-");
  const std::string path = testing::write_file(dir / "lines", "one\r\n\ntwo\nlast without end");
  EXPECT_EQ(lines_of(path), (std::vector<std::string>{"one@1", "@2", "two@3", "last without end@4"}));
  EXPECT_EQ(lines_of(testing::write_file(dir / "empty", "")), std::vector<std::string>{});
  EXPECT_EQ(lines_of(testing::write_file(dir / "one", "\n")), std::vector<std::string>{"@1"});
}

TEST(BoundedInput, LinesLongerThanTheBoundAreRefusedAtTheirNumber) {
  const auto dir = testing::scratch_dir("bounded-input-");
  const std::string path = testing::write_file(dir / "long", "short\n" + std::string(5000, 'x') + "\n");
  EXPECT_EQ(refusal(path, {.max_bytes = 1 << 20, .max_line_bytes = 4096}),
            "invalid 'key': " + path + ":2: line longer than 4 KiB");
  EXPECT_EQ(lines_of(path, {.max_bytes = 1 << 20, .max_line_bytes = 5000}).size(), 2U);
}

TEST(BoundedInput, ARegularFileBeyondTheBoundIsRefusedFromItsSize) {
  const auto dir = testing::scratch_dir("bounded-input-");
  const std::string path = testing::write_file(dir / "big", std::string(3000, '\n'));
  EXPECT_EQ(refusal(path, {.max_bytes = 2048}), "invalid 'key': the test file '" + path +
                                                    "' is refused: it holds 2.93 KiB, more than the 2 KiB a test "
                                                    "file may");
}

TEST(BoundedInput, AnEndlessDeviceStopsAtTheLineBound) {
  EXPECT_EQ(refusal("/dev/zero"), "invalid 'key': /dev/zero:1: line longer than 1 MiB");
}

TEST(BoundedInput, AStreamBeyondTheByteBoundIsRefusedWhereItPassesIt) {
  const auto dir = testing::scratch_dir("bounded-input-");
  const std::string fifo = (dir / "stream").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A FIFO is read as a stream: its size is not known in advance. Its writer sees the reader go.
  std::signal(SIGPIPE, SIG_IGN);
  std::thread writer([&] { testing::write_file(fifo, std::string(200'000, '\n')); });
  EXPECT_EQ(refusal(fifo, {.max_bytes = 100'000}),
            "invalid 'key': " + fifo + ": holds more than the 97.66 KiB a test file may");
  writer.join();
}

TEST(BoundedInput, FoldersAndMissingFilesAreRefusedByName) {
  const auto dir = testing::scratch_dir("bounded-input-");
  EXPECT_EQ(refusal(dir.string()), "invalid 'key': the test file '" + dir.string() + "' is refused: it is a folder");
  EXPECT_EQ(refusal((dir / "missing").string()),
            "invalid 'key': cannot open the test file '" + (dir / "missing").string() + "': No such file or directory");
  EXPECT_EQ(refusal(""), "invalid 'key': is empty: give the test file's path");
}

TEST(BoundedInput, ErrorsNameTheLineAndTheField) {
  const auto dir = testing::scratch_dir("bounded-input-");
  const std::string path = testing::write_file(dir / "fields", "a\nb\n");
  LineReader in(path, "key", "test file");
  std::string line;
  ASSERT_TRUE(in.next(line) && in.next(line));
  try {
    in.fail("node", "7 is not a node");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "invalid 'key': " + path + ":2: field 'node': 7 is not a node");
  }
}

TEST(BoundedInput, AWholeFileIsReadWithinItsBound) {
  const auto dir = testing::scratch_dir("bounded-input-");
  const std::string path = testing::write_file(dir / "whole", "{\"a\": 1}\n");
  EXPECT_EQ(read_bounded_file(path, "key", "test file", 100), "{\"a\": 1}\n");
  EXPECT_THROW((void)read_bounded_file(path, "key", "test file", 4), ConfigError);
  EXPECT_THROW((void)read_bounded_file("/dev/zero", "key", "test file", 1 << 16), ConfigError);
}

}  // namespace
}  // namespace ibsec
