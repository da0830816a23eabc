// InfiniBand 4x link rates. The data rate is what carries packet bytes:
// SDR, DDR and QDR signal at 2.5/5/10 Gb/s per lane with 8b/10b coding, so a
// 4x link moves 8/16/32 Gb/s of data (IBA vol. 2, ch. 5/6).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/time.h"

namespace ibsec::network {

struct LinkRate {
  std::string name;     // "SDR", "DDR", "QDR"
  double signal_gbps;   // 4x signalling rate
  double data_gbps;     // after 8b/10b
  Tick ticks_per_byte;  // serialization time of one byte
};

// Known rates; throws ConfigError("network.link_rate", ...) for an unknown name.
const LinkRate& link_rate(const std::string& name);
// Every known rate, slowest first.
std::span<const LinkRate> link_rates();

}  // namespace ibsec::network
