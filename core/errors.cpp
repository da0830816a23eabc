#include "core/errors.h"

namespace ibsec {
namespace {

// A message quotes the key and value at fault; a value of a megabyte (a
// string in a config file) would bury the message, so each part is cut (long
// enough for any file name, and for any message that quotes no value).
constexpr size_t kMaxFieldChars = 1000;
constexpr size_t kMaxProblemChars = 1000;

std::string cut(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  return text.substr(0, limit) + "... (" + std::to_string(text.size()) + " characters)";
}

}  // namespace

ConfigError::ConfigError(const std::string& field, const std::string& problem)
    : std::runtime_error("invalid '" + cut(field, kMaxFieldChars) + "': " + cut(problem, kMaxProblemChars)),
      field_(field) {}

}  // namespace ibsec
