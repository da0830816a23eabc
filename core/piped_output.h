// An output that a library writes by name (SystemC opens its VCD trace
// itself, with stdio, and never says whether a write failed): the library is
// given a FIFO in a private folder, and a thread copies what arrives into an
// AtomicFile. So that output, like every other, is checked before the run,
// written atomically, and its write errors (a full disk, a file size limit)
// are errors of the run instead of a file silently cut short.
#pragma once

#include <string>
#include <thread>

#include "core/atomic_file.h"

namespace ibsec {

class PipedOutput {
 public:
  // `path` is the output and `field` the parameter it came from; the
  // library is to open pipe_path(), a FIFO named `name` in a private folder.
  PipedOutput(std::string path, std::string field, const std::string& name);
  // Uncommitted (the run failed): the copy is abandoned and nothing is left.
  ~PipedOutput();
  PipedOutput(const PipedOutput&) = delete;
  PipedOutput& operator=(const PipedOutput&) = delete;

  [[nodiscard]] const std::string& pipe_path() const { return fifo_; }
  // Once the library has closed its file: waits for the copy to end and puts
  // the output in place; ConfigError naming the field if a write failed.
  void commit();

 private:
  void copy();  // the copying thread: until every writer has closed, or stop_
  void close_pipe();

  AtomicFile file_;
  std::string field_;
  std::string folder_;
  std::string fifo_;
  int read_fd_ = -1;
  int hold_fd_ = -1;  // a writer of our own, so that the copy sees the end only when commit() closes it
  int stop_[2] = {-1, -1};
  bool read_failed_ = false;
  std::thread copier_;
};

}  // namespace ibsec
