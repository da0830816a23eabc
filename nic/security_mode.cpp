#include "nic/security_mode.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <vector>

#include "core/errors.h"
#include "core/spelling.h"

namespace ibsec::nic {
namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

uint32_t parse_count(const std::string& digits, const std::string& field, const std::string& whole) {
  uint32_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || value == 0) {
    throw ConfigError(field, "'" + whole + "': expected a positive entry count, got '" + digits + "'");
  }
  return value;
}

constexpr SecurityModeForm kForms[] = {
    {"NoSecurity", "no key look-up, no encryption: the baseline"},
    {"NoSKC", "every key look-up reads the external key memory"},
    {"SKC-<n>", "an n-entry session key cache in front of the key memory"},
    {"SKC-<n>+Prefetch-<m>", "an n-entry SKC and an m-entry prefetch buffer searched with it (+Prefetch: m = 8)"},
};

std::string lowercase(std::string text) {
  std::ranges::transform(text, text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// "did you mean" for a misspelt name, or for one that differs only in case
// ("noskc", "skc-6"), which the edit distance alone would not catch.
std::string spelling_hint(const std::string& text) {
  std::vector<std::string> known{"NoSecurity", "NoSKC"};
  if (lowercase(text.substr(0, 4)) == "skc-") known.push_back("SKC-" + text.substr(4));
  for (const std::string& name : known) {
    if (lowercase(name) == lowercase(text)) return "did you mean '" + name + "'? ";
  }
  return did_you_mean(text, known);
}

}  // namespace

std::span<const SecurityModeForm> security_mode_forms() { return kForms; }

std::string SecurityMode::name() const {
  switch (path) {
    case KeyPath::kNone:
      return "NoSecurity";
    case KeyPath::kExternalMemory:
      return "NoSKC";
    case KeyPath::kCache:
      break;
  }
  std::string text = "SKC-" + std::to_string(skc_entries);
  if (prefetch_entries > 0) text += "+Prefetch-" + std::to_string(prefetch_entries);
  return text;
}

SecurityMode parse_security_mode(const std::string& text, const std::string& field) {
  if (text == "NoSecurity") return SecurityMode{KeyPath::kNone, 0, 0};
  if (text == "NoSKC") return SecurityMode{KeyPath::kExternalMemory, 0, 0};
  if (!starts_with(text, "SKC-")) {
    throw ConfigError(field, "unknown card configuration '" + text + "'; " + spelling_hint(text) +
                                 "expected NoSecurity, NoSKC, SKC-<n> or SKC-<n>+Prefetch-<m>");
  }
  const std::string rest = text.substr(4);
  const auto plus = rest.find('+');
  SecurityMode mode{KeyPath::kCache, parse_count(rest.substr(0, plus), field, text), 0};
  if (plus == std::string::npos) return mode;
  const std::string extra = rest.substr(plus + 1);
  if (extra == "Prefetch") {
    mode.prefetch_entries = kPaperPrefetchEntries;
  } else if (starts_with(extra, "Prefetch-")) {
    mode.prefetch_entries = parse_count(extra.substr(9), field, text);
  } else {
    throw ConfigError(field, "'" + text + "': after '+' expected Prefetch or Prefetch-<m>");
  }
  return mode;
}

}  // namespace ibsec::nic
