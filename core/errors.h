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

// The cryptographic library failed, or a counter that makes nonces unique ran
// out: carrying on would reuse a nonce, so the operation is refused.
class CryptoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ibsec
