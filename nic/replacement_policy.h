// The replacement-policy interface of the key cache and the registry that
// picks a policy by name.
//
// A policy sees slots, not the tag store: the cache tells it which slot was
// hit, filled or freed, and asks it for a victim in a full set. Slots of set s
// are [s * ways, (s + 1) * ways). Adding a policy means writing one .cpp file
// that implements this interface and registers itself with
// IBSEC_REGISTER_REPLACEMENT_POLICY.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/registry.h"
#include "core/types.h"

namespace ibsec::nic {

using Slot = uint32_t;

class ReplacementPolicy {
 public:
  virtual ~ReplacementPolicy() = default;
  // A look-up found `key` in slot `slot`.
  virtual void on_hit(Slot slot, SessionKeyId key) = 0;
  // `key` was just placed in the free slot `slot`.
  virtual void on_fill(Slot slot, SessionKeyId key) = 0;
  // `slot` was emptied by an explicit erase (not by eviction).
  virtual void on_erase(Slot slot) = 0;
  // Every slot of `set` is valid; choose the one to evict. The evicted slot is
  // then refilled with on_fill.
  virtual Slot victim(uint32_t set) = 0;
};

struct PolicyContext {
  uint32_t sets = 1;
  uint32_t ways = 1;
  uint64_t seed = 1;
  // The whole access sequence, for offline policies (Belady's OPT). Empty
  // for online policies.
  std::span<const SessionKeyId> future;
};

struct PolicyEntry {
  using Factory = std::function<std::unique_ptr<ReplacementPolicy>(const PolicyContext&)>;
  std::string name;
  std::string description;
  bool needs_future;
  Factory make;
};

class PolicyRegistry : public Registry<PolicyEntry> {
 public:
  // Throws ConfigError naming `field` (the option the name came from) for an
  // unknown name.
  static const Entry& get(const std::string& name, const std::string& field = "policy") {
    return Registry::get(name, field, "replacement policy");
  }
};

#define IBSEC_REGISTER_REPLACEMENT_POLICY(NAME, DESCRIPTION, NEEDS_FUTURE, CLASS)        \
  namespace {                                                                            \
  [[maybe_unused]] const bool registered_##CLASS = ::ibsec::nic::PolicyRegistry::add(    \
      {NAME, DESCRIPTION, NEEDS_FUTURE, [](const ::ibsec::nic::PolicyContext& context) { \
         return std::unique_ptr<::ibsec::nic::ReplacementPolicy>(new CLASS(context));    \
       }});                                                                              \
  }

}  // namespace ibsec::nic
