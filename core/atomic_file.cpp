#include "core/atomic_file.h"

#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "core/errors.h"

namespace ibsec {
namespace {

namespace fs = std::filesystem;

bool is_standard_output(const std::string& path) { return path == "-"; }

// A device or FIFO: written in place, never replaced.
bool is_special(const fs::file_status& status) {
  return fs::is_character_file(status) || fs::is_block_file(status) || fs::is_fifo(status);
}

// The folder a new file at `path` goes into ("." for a bare name).
fs::path folder_of(const fs::path& path) { return path.has_parent_path() ? path.parent_path() : fs::path("."); }

}  // namespace

void check_output_path(const std::string& path, const std::string& field) {
  if (path.empty()) throw ConfigError(field, "is empty: give a file name (or - for standard output)");
  if (is_standard_output(path)) return;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);  // follows symlinks
  if (fs::is_directory(status)) throw ConfigError(field, "'" + path + "' is a directory");
  if (fs::exists(status)) {
    if (::access(path.c_str(), W_OK) != 0) throw ConfigError(field, "'" + path + "' cannot be written");
    return;
  }
  const fs::path target =
      fs::is_symlink(fs::symlink_status(path, error)) ? fs::weakly_canonical(path, error) : fs::path(path);
  const fs::path folder = folder_of(target);
  if (!fs::is_directory(folder, error)) {
    throw ConfigError(field, "cannot write '" + path + "': " + folder.string() + " is not a folder");
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    throw ConfigError(field, "cannot write '" + path + "': folder " + folder.string() + " is not writable");
  }
}

AtomicFile::AtomicFile(std::string path, std::string field) : path_(std::move(path)), field_(std::move(field)) {
  check_output_path(path_, field_);
  if (is_standard_output(path_)) {
    out_ = &std::cout;
    return;
  }
  std::error_code error;
  if (is_special(fs::status(path_, error))) {
    file_ = std::make_unique<std::ofstream>(path_);
  } else {
    target_ = fs::is_symlink(fs::symlink_status(path_, error)) ? fs::weakly_canonical(path_).string() : path_;
    tmp_ = target_ + ".tmp." + std::to_string(::getpid());
    file_ = std::make_unique<std::ofstream>(tmp_, std::ios::trunc);
  }
  if (!*file_) throw ConfigError(field_, "cannot write '" + (tmp_.empty() ? path_ : tmp_) + "'");
  out_ = file_.get();
}

AtomicFile::~AtomicFile() {
  if (committed_ || tmp_.empty()) return;
  file_->close();
  std::error_code ignored;
  fs::remove(tmp_, ignored);
}

void AtomicFile::commit() {
  out_->flush();
  if (file_) file_->close();
  if (file_ ? file_->fail() : out_->fail()) {
    throw ConfigError(field_, is_standard_output(path_) ? "cannot write standard output (full disk or closed pipe?)"
                                                        : "writing '" + path_ + "' failed");
  }
  if (!tmp_.empty()) fs::rename(tmp_, target_);
  committed_ = true;
}

}  // namespace ibsec
