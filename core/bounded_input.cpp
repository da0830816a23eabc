#include "core/bounded_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "core/errors.h"

namespace ibsec {
namespace {

constexpr size_t kChunkBytes = size_t{64} << 10;

// Opens what `path` names for reading, or says why not. A regular file is
// refused here when its size alone passes `max_bytes`.
int open_input(const std::string& path, const std::string& field, const std::string& what, uint64_t max_bytes) {
  if (path.empty()) throw ConfigError(field, "is empty: give the " + what + "'s path");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw ConfigError(field, "cannot open the " + what + " '" + path + "': " + std::strerror(errno));
  }
  struct stat about {};
  std::string refused;
  if (::fstat(fd, &about) != 0) {
    refused = std::string("cannot read it: ") + std::strerror(errno);
  } else if (S_ISDIR(about.st_mode)) {
    refused = "it is a folder";
  } else if (S_ISREG(about.st_mode)) {
    if (static_cast<uint64_t>(about.st_size) > max_bytes) {
      refused = "it holds " + describe_bytes(static_cast<uint64_t>(about.st_size)) + ", more than the " +
                describe_bytes(max_bytes) + " a " + what + " may";
    }
  } else if (!S_ISFIFO(about.st_mode) && !S_ISCHR(about.st_mode)) {
    refused = "it is neither a file, a FIFO nor a character device";
  }
  if (!refused.empty()) {
    ::close(fd);
    throw ConfigError(field, "the " + what + " '" + path + "' is refused: " + refused);
  }
  return fd;
}

// Reads up to `size` bytes, retrying an interrupted read; ConfigError on failure.
size_t read_some(int fd, char* into, size_t size, const std::string& path, const std::string& field,
                 const std::string& what) {
  for (;;) {
    const ssize_t got = ::read(fd, into, size);
    if (got >= 0) return static_cast<size_t>(got);
    if (errno != EINTR) {
      throw ConfigError(field, "cannot read the " + what + " '" + path + "': " + std::strerror(errno));
    }
  }
}

}  // namespace

std::string describe_bytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  size_t unit = 0;
  double value = static_cast<double>(bytes);
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.4g %s", value, kUnits[unit]);
  return text;
}

LineReader::LineReader(std::string path, std::string field, std::string what, InputLimits limits)
    : path_(std::move(path)), field_(std::move(field)), what_(std::move(what)), limits_(limits) {
  fd_ = open_input(path_, field_, what_, limits_.max_bytes);
  chunk_.resize(kChunkBytes);
}

LineReader::~LineReader() {
  if (fd_ >= 0) ::close(fd_);
}

bool LineReader::fill() {
  chunk_at_ = 0;
  chunk_end_ = read_some(fd_, chunk_.data(), chunk_.size(), path_, field_, what_);
  bytes_read_ += chunk_end_;
  if (bytes_read_ > limits_.max_bytes) {
    fail_file("holds more than the " + describe_bytes(limits_.max_bytes) + " a " + what_ + " may");
  }
  return chunk_end_ > 0;
}

bool LineReader::next(std::string& line) {
  line.clear();
  bool started = false;  // some of a line (possibly empty) was seen
  for (;;) {
    if (chunk_at_ == chunk_end_ && !fill()) {
      if (!started) return false;
      ++line_number_;  // a last line without its "\n"
      break;
    }
    started = true;
    const char* from = chunk_.data() + chunk_at_;
    const char* end = chunk_.data() + chunk_end_;
    const char* newline = static_cast<const char*>(std::memchr(from, '\n', static_cast<size_t>(end - from)));
    const size_t take = static_cast<size_t>((newline != nullptr ? newline : end) - from);
    if (line.size() + take > limits_.max_line_bytes) {
      ++line_number_;
      fail("line longer than " + describe_bytes(limits_.max_line_bytes));
    }
    line.append(from, take);
    chunk_at_ += take;
    if (newline != nullptr) {
      ++chunk_at_;
      ++line_number_;
      break;
    }
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

void LineReader::fail(const std::string& problem) const {
  throw ConfigError(field_, path_ + ":" + std::to_string(line_number_) + ": " + problem);
}

void LineReader::fail(const std::string& column, const std::string& problem) const {
  fail("field '" + column + "': " + problem);
}

void LineReader::fail_file(const std::string& problem) const { throw ConfigError(field_, path_ + ": " + problem); }

std::string read_bounded_file(const std::string& path, const std::string& field, const std::string& what,
                              uint64_t max_bytes) {
  const int fd = open_input(path, field, what, max_bytes);
  std::string text;
  try {
    std::vector<char> chunk(kChunkBytes);
    for (;;) {
      const size_t got = read_some(fd, chunk.data(), chunk.size(), path, field, what);
      if (got == 0) break;
      if (text.size() + got > max_bytes) {
        throw ConfigError(field, path + ": holds more than the " + describe_bytes(max_bytes) + " a " + what + " may");
      }
      text.append(chunk.data(), got);
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return text;
}

}  // namespace ibsec
