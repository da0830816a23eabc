// Writing an output without losing or destroying anything. A regular file
// (or a new path) appears under its name only once it is complete: written
// to a temporary beside it (private to this process) and renamed on commit();
// an uncommitted one is removed, so an error leaves nothing half-written. A
// symlink is followed: the file it names is replaced and the link stays.
// A device, a FIFO or "-" (standard output) is written in place, never
// replaced (renaming over /dev/null would destroy it for the whole machine).
#pragma once

#include <fstream>
#include <memory>
#include <ostream>
#include <string>

namespace ibsec {

// Throws ConfigError(field, ...) unless `path` could be written: not empty,
// not a directory; an existing file writable, a new one in an existing,
// writable folder. Cheap: called for every output before a run starts.
void check_output_path(const std::string& path, const std::string& field);

class AtomicFile {
 public:
  // `field` names the option the path came from, for error messages.
  AtomicFile(std::string path, std::string field);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  std::ostream& stream() { return *out_; }
  // Puts a regular file in place (or flushes a device); ConfigError if any write failed.
  void commit();

 private:
  std::string path_;
  std::string field_;
  std::string target_;  // where a regular file's temporary is renamed to (a symlink's target)
  std::string tmp_;     // empty: written in place
  std::unique_ptr<std::ofstream> file_;
  std::ostream* out_ = nullptr;
  bool committed_ = false;
};

}  // namespace ibsec
