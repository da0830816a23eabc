// Errors that reach the user. Each names the field (or file and line) at
// fault so that the message alone tells what to fix.
#pragma once

#include <stdexcept>
#include <string>

namespace ibsec {

// A configuration value is missing, malformed or impossible.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(const std::string& field, const std::string& problem);
  [[nodiscard]] const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// Standard output is a pipe whose reader has gone (`ibsec-engine ... | head`):
// the command ends quietly with kExitOutputClosed, since the reader chose to
// stop reading (docs/running.md, "Exit codes").
class StandardOutputClosed : public std::runtime_error {
 public:
  StandardOutputClosed() : std::runtime_error("standard output was closed by its reader") {}
};
// 128 + SIGPIPE: the status a shell reports for a program a closed pipe ended.
inline constexpr int kExitOutputClosed = 141;

// The cryptographic library failed, or a counter that makes nonces unique ran
// out: carrying on would reuse a nonce, so the operation is refused.
class CryptoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ibsec
