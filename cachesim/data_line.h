// The line-per-value files cachesim reads (period lengths, card session
// counts): blank lines and lines starting with '#' carry no value.
#pragma once

#include <optional>
#include <string>

namespace ibsec::cachesim {

// `line` without surrounding blanks, or nothing for a blank or comment line.
inline std::optional<std::string> data_line(const std::string& line) {
  const auto first = line.find_first_not_of(" \t\r");
  if (first == std::string::npos || line[first] == '#') return std::nullopt;
  const auto last = line.find_last_not_of(" \t\r");
  return line.substr(first, last - first + 1);
}

}  // namespace ibsec::cachesim
