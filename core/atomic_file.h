// A file that appears under its name only once it is complete: written to a
// temporary beside it (private to this process) and renamed on commit(). An
// uncommitted file is removed, so an error leaves nothing half-written.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/errors.h"

namespace ibsec {

class AtomicFile {
 public:
  // `field` names the option the path came from, for error messages.
  AtomicFile(std::string path, std::string field)
      : path_(std::move(path)), field_(std::move(field)), tmp_(path_ + ".tmp." + std::to_string(::getpid())) {
    if (std::filesystem::is_directory(path_)) throw ConfigError(field_, "'" + path_ + "' is a directory");
    out_.open(tmp_, std::ios::trunc);
    if (!out_) throw ConfigError(field_, "cannot write '" + tmp_ + "'");
  }
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile() {
    if (committed_) return;
    out_.close();
    std::error_code ignored;
    std::filesystem::remove(tmp_, ignored);
  }

  std::ofstream& stream() { return out_; }

  void commit() {
    out_.close();
    if (!out_) throw ConfigError(field_, "writing '" + path_ + "' failed");
    std::filesystem::rename(tmp_, path_);
    committed_ = true;
  }

 private:
  std::string path_;
  std::string field_;
  std::string tmp_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace ibsec
