// "Did you mean ...?" for a mistyped name: the known name nearest to what
// was given, when it is near enough to be a typo rather than another word.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsec {

// Edits (insert, delete, substitute, swap two neighbours) that turn `a` into
// `b`: the optimal string alignment distance, so that "secruity" is one edit
// from "security", as a typist's swapped keys are.
inline size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// The known name nearest to `given`, if at most a third of its characters
// (at least one) must change; the first in `known` wins a tie.
inline std::optional<std::string> closest_name(std::string_view given, const std::vector<std::string>& known) {
  const size_t allowed = std::max<size_t>(1, given.size() / 3);
  std::optional<std::string> best;
  size_t best_distance = allowed + 1;
  for (const std::string& name : known) {
    const size_t distance = edit_distance(given, name);
    if (distance < best_distance) {
      best = name;
      best_distance = distance;
    }
  }
  return best;
}

// "did you mean 'x'? " to put inside an error message, or nothing.
inline std::string did_you_mean(std::string_view given, const std::vector<std::string>& known) {
  const auto name = closest_name(given, known);
  return name ? "did you mean '" + *name + "'? " : "";
}

}  // namespace ibsec
