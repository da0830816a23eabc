#include "nic/replacement_policy.h"

#include <algorithm>

#include "core/errors.h"

namespace ibsec::nic {

std::vector<PolicyRegistry::Entry>& PolicyRegistry::entries() {
  static std::vector<Entry> registered;
  return registered;
}

bool PolicyRegistry::add(Entry entry) {
  entries().push_back(std::move(entry));
  return true;
}

const PolicyRegistry::Entry& PolicyRegistry::get(const std::string& name) {
  for (const auto& entry : entries()) {
    if (entry.name == name) return entry;
  }
  std::string known;
  for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
  throw ConfigError("policy", "unknown replacement policy '" + name + "' (known: " + known + ")");
}

std::vector<std::string> PolicyRegistry::names() {
  std::vector<std::string> result;
  for (const auto& entry : entries()) result.push_back(entry.name);
  std::sort(result.begin(), result.end());
  return result;
}

}  // namespace ibsec::nic
