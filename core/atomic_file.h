// Writing an output without losing or destroying anything (docs/running.md,
// "Outputs"). Every output of a command is checked before it starts: a
// regular file or a new path, never a device, a FIFO, a symlink or a folder
// ("-" is standard output), and no two outputs, and no output and input,
// the same file (CommandFiles). A file appears under its name only once it
// is complete: written to a temporary beside it (private to this process)
// and renamed on commit(); an uncommitted one is removed, and a write error
// (a full disk, a file size limit) is an error, so nothing is ever left
// half-written under the output's name.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace ibsec {

// Throws ConfigError(field, ...) unless `path` could be written: not empty;
// "-", an existing regular file that is writable, or a new file in an
// existing, writable folder. Cheap: called for every output before a run starts.
void check_output_path(const std::string& path, const std::string& field);

// The files one command reads and writes, checked together before it starts:
// every output as check_output_path checks it, no two outputs the same file
// (one would replace the other) and no output one of the inputs (writing it
// would destroy what the command reads). Files are compared by device and
// inode where they exist, by their normalized absolute path where they do
// not yet; standard output ("-") takes one output at most.
class CommandFiles {
 public:
  // `field` names the option or parameter the path came from. Empty paths are not files and are left out.
  void input(const std::string& path, const std::string& field);
  void output(const std::string& path, const std::string& field);
  // ConfigError naming the output's field at the first problem.
  void check() const;

 private:
  struct File {
    std::string path;
    std::string field;
  };
  std::vector<File> inputs_;
  std::vector<File> outputs_;
};

// Whether standard output is a pipe whose reader has gone (`| head`): a
// failed write to it is the reader's choice, not an error of the command.
bool standard_output_closed();

class CheckedFileBuffer;

class AtomicFile {
 public:
  // `field` names the option the path came from, for error messages.
  AtomicFile(std::string path, std::string field);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  std::ostream& stream() { return *out_; }
  // Puts the file in place (or flushes standard output); ConfigError if any
  // write failed (whether through stream() or its buffer directly),
  // StandardOutputClosed if standard output's reader has gone.
  void commit();

 private:
  std::string path_;
  std::string field_;
  std::string tmp_;                            // the temporary beside the file; empty: standard output
  std::unique_ptr<CheckedFileBuffer> buffer_;  // every write goes through it, which remembers a failure
  std::unique_ptr<std::ostream> out_;
  bool committed_ = false;
};

}  // namespace ibsec
