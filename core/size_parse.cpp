#include "core/size_parse.h"

#include <cctype>
#include <charconv>
#include <string>

#include "core/errors.h"

namespace ibsec {

namespace {

uint64_t unit_multiplier(std::string unit) {
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.empty() || unit == "B") return 1;
  if (unit == "KB" || unit == "KIB" || unit == "K") return 1024ULL;
  if (unit == "MB" || unit == "MIB" || unit == "M") return 1024ULL * 1024ULL;
  return 0;
}

}  // namespace

uint64_t parse_size_bytes(std::string_view text, std::string_view field) {
  const std::string name(field);
  size_t pos = 0;
  while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
  uint64_t number = 0;
  const auto* begin = text.data() + pos;
  const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), number);
  if (ec != std::errc() || end == begin) {
    throw ConfigError(name, "'" + std::string(text) + "' is not a size (expected e.g. 16KB, 512B)");
  }
  std::string unit(end, text.data() + text.size());
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.front()))) unit.erase(0, 1);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back()))) unit.pop_back();
  const uint64_t multiplier = unit_multiplier(unit);
  if (multiplier == 0) {
    throw ConfigError(name, "unknown unit '" + unit + "' in '" + std::string(text) + "' (use B, KB or MB)");
  }
  if (number == 0) throw ConfigError(name, "size must be positive, got '" + std::string(text) + "'");
  return number * multiplier;
}

}  // namespace ibsec
