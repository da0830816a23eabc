// The card configurations the paper compares (§4.1), by their names:
//   NoSecurity          no key look-up, no GCM
//   NoSKC               every look-up goes to the external key memory
//   SKC-n               an n-entry session key cache
//   SKC-n+Prefetch-m    ... and an m-entry prefetch buffer searched with it
//                       ("SKC-n+Prefetch" alone means m = 8, the paper's size)
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace ibsec::nic {

enum class KeyPath { kNone, kExternalMemory, kCache };

struct SecurityMode {
  KeyPath path = KeyPath::kCache;
  uint32_t skc_entries = 0;
  uint32_t prefetch_entries = 0;

  // An n-entry SKC without a prefetch buffer (SKC-n).
  static constexpr SecurityMode skc(uint32_t entries) { return {KeyPath::kCache, entries, 0}; }

  [[nodiscard]] bool encrypts() const { return path != KeyPath::kNone; }
  [[nodiscard]] std::string name() const;
};

inline constexpr uint32_t kPaperPrefetchEntries = 8;

// The forms a configuration name takes, with what each means.
struct SecurityModeForm {
  const char* name;
  const char* description;
};
std::span<const SecurityModeForm> security_mode_forms();

// Throws ConfigError naming `field` for anything else.
SecurityMode parse_security_mode(const std::string& text, const std::string& field = "nic.security");

}  // namespace ibsec::nic
