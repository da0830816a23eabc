// Implementations registered by name from their own translation units, so
// that a configuration string picks one and adding one touches one file plus
// its registration line. Each registry is a Registry<its entry type>.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "core/spelling.h"

namespace ibsec {

template <typename E>
class Registry {
 public:
  using Entry = E;  // needs a `name` member

  static bool add(Entry entry) {
    entries().push_back(std::move(entry));
    return true;
  }

  // Throws ConfigError(field, "unknown <what> 'name'; did you mean 'x'? known: a, b, ...").
  static const Entry& get(const std::string& name, const std::string& field, const std::string& what) {
    for (const auto& entry : entries()) {
      if (entry.name == name) return entry;
    }
    std::string known;
    for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
    throw ConfigError(field, "unknown " + what + " '" + name + "'; " + did_you_mean(name, names()) + "known: " + known);
  }

  // Every entry, sorted by name (registration order depends on link order).
  static std::vector<const Entry*> sorted() {
    std::vector<const Entry*> result;
    for (const auto& entry : entries()) result.push_back(&entry);
    std::ranges::sort(result, {}, [](const Entry* e) { return e->name; });
    return result;
  }

  static std::vector<std::string> names() {
    std::vector<std::string> result;
    for (const auto& entry : entries()) result.push_back(entry.name);
    std::ranges::sort(result);
    return result;
  }

 private:
  static std::vector<Entry>& entries() {
    static std::vector<Entry> registered;
    return registered;
  }
};

}  // namespace ibsec
