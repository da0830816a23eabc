// Reading a side input that a user or another program wrote (placement
// files, period lengths, card session counts, CACTI tables, configuration
// and attack files): whatever the path names, memory stays bounded and an
// error says where.
//
// The path was given explicitly (an option or a parameter), so besides a
// regular file it may name a FIFO, /dev/stdin or a process substitution
// (`<(...)`), or a character device: those are read as a stream, and a
// stream that never ends (`/dev/zero`, `yes`) is refused at the bound like
// any other. A folder, a socket or a block device is refused before
// anything is read. Bounds are checked before the bytes are held: a regular
// file larger than its bound is refused from its size, a stream as soon as
// it passes the bound, and a line as soon as it passes its own, so at most
// one line and one chunk are ever in memory.
//
// Errors are ConfigError naming the option or parameter, then
// "FILE:LINE: field 'F': problem" (docs/running.md, "Inputs").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ibsec {

// A placement of a million ranks is ~20 MiB, a period file of a million
// lengths ~10 MiB; the values read are held too (a length: 16 B).
struct InputLimits {
  uint64_t max_bytes = uint64_t{64} << 20;  // the whole input
  size_t max_line_bytes = size_t{1} << 20;  // one line (as the trace reader's)
};

// A configuration or attack file: JSON read whole, far more than any needs.
inline constexpr uint64_t kMaxConfigFileBytes = uint64_t{16} << 20;

class LineReader {
 public:
  // `field` names the option or parameter the path came from, `what` the
  // kind of file ("placement file"), for messages. Throws ConfigError if
  // the path cannot be opened or names something that is not read.
  LineReader(std::string path, std::string field, std::string what, InputLimits limits = {});
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line without its end ("\n" or "\r\n"); false after the last.
  bool next(std::string& line);

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const std::string& field() const { return field_; }
  // The number of the line next() returned last (1 for the first).
  [[nodiscard]] uint64_t line_number() const { return line_number_; }

  // ConfigError(field, "FILE:LINE: problem") at the current line.
  [[noreturn]] void fail(const std::string& problem) const;
  // ConfigError(field, "FILE:LINE: field 'COLUMN': problem").
  [[noreturn]] void fail(const std::string& column, const std::string& problem) const;
  // ConfigError(field, "FILE: problem"): about the file as a whole.
  [[noreturn]] void fail_file(const std::string& problem) const;

 private:
  bool fill();  // reads the next chunk; false at the end of the input

  std::string path_;
  std::string field_;
  std::string what_;
  InputLimits limits_;
  int fd_ = -1;
  std::vector<char> chunk_;
  size_t chunk_at_ = 0;
  size_t chunk_end_ = 0;
  uint64_t bytes_read_ = 0;
  uint64_t line_number_ = 0;
};

// The whole input at `path` as text, within `max_bytes` (the same checks as
// LineReader, without a line bound).
std::string read_bounded_file(const std::string& path, const std::string& field, const std::string& what,
                              uint64_t max_bytes);

// "256 MiB": a bound as messages give it.
std::string describe_bytes(uint64_t bytes);

}  // namespace ibsec
