#include "core/atomic_file.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <streambuf>
#include <vector>

#include "core/errors.h"

namespace ibsec {
namespace {

namespace fs = std::filesystem;

bool is_standard_output(const std::string& path) { return path == "-"; }

// The folder a new file at `path` goes into ("." for a bare name).
fs::path folder_of(const fs::path& path) { return path.has_parent_path() ? path.parent_path() : fs::path("."); }

// Why an existing `mode` is no output, or nothing for a regular file.
std::string not_an_output(mode_t mode) {
  if (S_ISREG(mode)) return {};
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISLNK(mode)) return "is a symbolic link";
  if (S_ISFIFO(mode)) return "is a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device";
  return "is not a regular file";
}

// What identifies a file: its device and inode while it exists, else where it would be.
struct FileIdentity {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  std::string normalized;

  explicit FileIdentity(const std::string& path) {
    struct stat about {};
    if (::stat(path.c_str(), &about) == 0) {
      exists = true;
      device = about.st_dev;
      inode = about.st_ino;
    }
    std::error_code error;
    const fs::path absolute = fs::absolute(path, error);
    normalized = fs::weakly_canonical(absolute, error).string();
    if (error) normalized = absolute.lexically_normal().string();
  }

  [[nodiscard]] bool same_as(const FileIdentity& other) const {
    if (exists && other.exists) return device == other.device && inode == other.inode;
    return normalized == other.normalized;
  }
};

}  // namespace

// A file's stream buffer that remembers the first failed write, however the
// stream is written: boost::iostreams (traces/trace_writer.cpp) writes to the
// buffer directly, so the stream's own state would not say. After a failure
// it accepts and drops everything, so that a writer never stalls on it.
class CheckedFileBuffer : public std::streambuf {
 public:
  // `owned`: the file is closed with the buffer (not so standard output).
  CheckedFileBuffer(int fd, bool owned) : fd_(fd), owned_(owned), buffer_(kBufferBytes) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  ~CheckedFileBuffer() override { close(); }
  CheckedFileBuffer(const CheckedFileBuffer&) = delete;
  CheckedFileBuffer& operator=(const CheckedFileBuffer&) = delete;

  // Writes what is buffered and closes the file (if owned); the errno of the first failure, or 0.
  int close() {
    if (fd_ < 0) return error_;
    flush_buffer();
    if (owned_ && ::close(fd_) != 0 && error_ == 0) error_ = errno;
    fd_ = -1;
    return error_;
  }

 protected:
  int overflow(int c) override {
    if (!flush_buffer()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }

  std::streamsize xsputn(const char* data, std::streamsize size) override {
    const auto count = static_cast<size_t>(size);
    if (count <= static_cast<size_t>(epptr() - pptr())) {
      std::memcpy(pptr(), data, count);
      pbump(static_cast<int>(count));
      return size;
    }
    return flush_buffer() && write_all(data, count) ? size : 0;
  }

  int sync() override { return flush_buffer() ? 0 : -1; }

 private:
  static constexpr size_t kBufferBytes = size_t{64} << 10;

  bool flush_buffer() {
    const bool written = write_all(pbase(), static_cast<size_t>(pptr() - pbase()));
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return written;
  }

  bool write_all(const char* data, size_t size) {
    while (size > 0 && error_ == 0) {
      const ssize_t done = ::write(fd_, data, size);
      if (done < 0 && errno == EINTR) continue;
      if (done < 0) {
        error_ = errno;
        break;
      }
      data += done;
      size -= static_cast<size_t>(done);
    }
    return error_ == 0;
  }

  int fd_;
  bool owned_;
  int error_ = 0;
  std::vector<char> buffer_;
};

void check_output_path(const std::string& path, const std::string& field) {
  if (path.empty()) throw ConfigError(field, "is empty: give a file name (or - for standard output)");
  if (is_standard_output(path)) return;
  struct stat about {};
  if (::lstat(path.c_str(), &about) == 0) {
    const std::string problem = not_an_output(about.st_mode);
    if (!problem.empty()) {
      throw ConfigError(
          field, "'" + path + "' " + problem + ": an output is a regular file or a new path (- for standard output)");
    }
    if (::access(path.c_str(), W_OK) != 0) throw ConfigError(field, "'" + path + "' cannot be written");
    return;
  }
  const fs::path folder = folder_of(path);
  std::error_code error;
  if (!fs::is_directory(folder, error)) {
    throw ConfigError(field, "cannot write '" + path + "': " + folder.string() + " is not a folder");
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    throw ConfigError(field, "cannot write '" + path + "': folder " + folder.string() + " is not writable");
  }
}

void CommandFiles::input(const std::string& path, const std::string& field) {
  if (!path.empty() && !is_standard_output(path)) inputs_.push_back({path, field});
}

void CommandFiles::output(const std::string& path, const std::string& field) {
  check_output_path(path, field);
  outputs_.push_back({path, field});
}

void CommandFiles::check() const {
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const File& output = outputs_[i];
    const bool to_stdout = is_standard_output(output.path);
    const FileIdentity identity(output.path);
    for (size_t j = 0; j < i; ++j) {
      const File& earlier = outputs_[j];
      if (to_stdout != is_standard_output(earlier.path)) continue;
      if (to_stdout || identity.same_as(FileIdentity(earlier.path))) {
        throw ConfigError(output.field, "'" + output.path + "' is also where " + earlier.field + " goes ('" +
                                            earlier.path + "'): give each output its own file");
      }
    }
    if (to_stdout) continue;
    for (const File& input : inputs_) {
      if (identity.same_as(FileIdentity(input.path))) {
        throw ConfigError(output.field, "'" + output.path + "' is " + input.field + " ('" + input.path +
                                            "'), which the run reads: writing it would destroy it");
      }
    }
  }
}

bool standard_output_closed() {
  pollfd out{STDOUT_FILENO, POLLOUT, 0};
  // A pipe whose reading end is closed polls as an error; a regular file or terminal never does.
  return ::poll(&out, 1, 0) == 1 && (out.revents & POLLERR) != 0;
}

AtomicFile::AtomicFile(std::string path, std::string field) : path_(std::move(path)), field_(std::move(field)) {
  check_output_path(path_, field_);
  if (is_standard_output(path_)) {
    std::cout.flush();  // what the command printed before comes first
    std::fflush(stdout);
    buffer_ = std::make_unique<CheckedFileBuffer>(STDOUT_FILENO, false);
  } else {
    tmp_ = path_ + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) throw ConfigError(field_, "cannot write '" + tmp_ + "': " + std::strerror(errno));
    buffer_ = std::make_unique<CheckedFileBuffer>(fd, true);
  }
  out_ = std::make_unique<std::ostream>(buffer_.get());
}

AtomicFile::~AtomicFile() {
  if (committed_ || tmp_.empty()) return;
  buffer_->close();
  std::error_code ignored;
  fs::remove(tmp_, ignored);
}

void AtomicFile::commit() {
  out_->flush();
  const int write_error = buffer_->close();
  if (tmp_.empty()) {  // standard output
    if (write_error == EPIPE) throw StandardOutputClosed();
    if (write_error != 0)
      throw ConfigError(field_, std::string("cannot write standard output: ") + std::strerror(write_error));
    committed_ = true;
    return;
  }
  if (write_error != 0) throw ConfigError(field_, "writing '" + path_ + "' failed: " + std::strerror(write_error));
  std::error_code error;
  fs::rename(tmp_, path_, error);
  if (error) throw ConfigError(field_, "cannot put '" + path_ + "' in place: " + error.message());
  committed_ = true;
}

}  // namespace ibsec
