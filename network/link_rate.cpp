#include "network/link_rate.h"

#include <array>

#include "core/errors.h"

namespace ibsec::network {
namespace {

// 8 bits per byte at the data rate: 1 ns/B at 8 Gb/s, exactly.
const std::array<LinkRate, 3> kRates{{
    {"SDR", 10.0, 8.0, 1000},
    {"DDR", 20.0, 16.0, 500},
    {"QDR", 40.0, 32.0, 250},
}};

}  // namespace

std::span<const LinkRate> link_rates() { return kRates; }

const LinkRate& link_rate(const std::string& name) {
  for (const auto& rate : kRates) {
    if (rate.name == name) return rate;
  }
  std::string known;
  for (const auto& rate : kRates) known += (known.empty() ? "" : ", ") + rate.name;
  throw ConfigError("network.link_rate", "unknown InfiniBand rate '" + name + "'; known: " + known);
}

}  // namespace ibsec::network
