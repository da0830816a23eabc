#include "core/piped_output.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/errors.h"

namespace ibsec {
namespace {

constexpr size_t kCopyChunkBytes = size_t{64} << 10;

[[noreturn]] void fail(const std::string& field, const std::string& what) {
  throw ConfigError(field, "cannot " + what + ": " + std::strerror(errno));
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

PipedOutput::PipedOutput(std::string path, std::string field, const std::string& name)
    : file_(std::move(path), field), field_(std::move(field)) {
  std::string folder = (std::filesystem::temp_directory_path() / "ibsec-pipe-XXXXXX").string();
  if (::mkdtemp(folder.data()) == nullptr) fail(field_, "make a private folder in " + folder);
  folder_ = folder;
  fifo_ = folder_ + "/" + name;
  try {
    if (::mkfifo(fifo_.c_str(), 0600) != 0) fail(field_, "make the FIFO " + fifo_);
    // Reading end first (without waiting for a writer), then our own writer, then blocking reads.
    read_fd_ = ::open(fifo_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (read_fd_ < 0) fail(field_, "open the FIFO " + fifo_);
    hold_fd_ = ::open(fifo_.c_str(), O_WRONLY | O_CLOEXEC);
    if (hold_fd_ < 0) fail(field_, "open the FIFO " + fifo_);
    if (::fcntl(read_fd_, F_SETFL, ::fcntl(read_fd_, F_GETFL) & ~O_NONBLOCK) != 0) fail(field_, "read " + fifo_);
    if (::pipe2(stop_, O_CLOEXEC) != 0) fail(field_, "make a pipe");
    copier_ = std::thread(&PipedOutput::copy, this);
  } catch (...) {
    close_pipe();
    throw;
  }
}

PipedOutput::~PipedOutput() {
  if (copier_.joinable()) {
    const char stop = 0;
    while (::write(stop_[1], &stop, 1) < 0 && errno == EINTR) {
    }
    copier_.join();
  }
  close_pipe();
}

void PipedOutput::close_pipe() {
  close_fd(read_fd_);
  close_fd(hold_fd_);
  close_fd(stop_[0]);
  close_fd(stop_[1]);
  if (!fifo_.empty()) ::unlink(fifo_.c_str());
  if (!folder_.empty()) ::rmdir(folder_.c_str());
  fifo_.clear();
  folder_.clear();
}

void PipedOutput::copy() {
  std::vector<char> chunk(kCopyChunkBytes);
  for (;;) {
    pollfd ready[2] = {{read_fd_, POLLIN, 0}, {stop_[0], POLLIN, 0}};
    if (::poll(ready, 2, -1) < 0) {
      if (errno == EINTR) continue;
      read_failed_ = true;
      return;
    }
    if (ready[1].revents != 0) return;  // abandoned
    const ssize_t got = ::read(read_fd_, chunk.data(), chunk.size());
    if (got == 0) return;  // every writer has closed: the end
    if (got < 0) {
      if (errno == EINTR) continue;
      read_failed_ = true;
      return;
    }
    // After a failed write the stream writes nothing more, but the pipe is
    // still drained, so that the library never blocks on it.
    file_.stream().write(chunk.data(), got);
  }
}

void PipedOutput::commit() {
  close_fd(hold_fd_);
  copier_.join();
  if (read_failed_) throw ConfigError(field_, "reading what the library wrote failed");
  file_.commit();
  close_pipe();
}

}  // namespace ibsec
