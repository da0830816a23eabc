// InfiniBand link generations (SDR to XDR) and widths (1x to 12x). A lane
// signals at a baud rate, carries one bit per symbol (NRZ) or two (PAM4),
// and gives up part of its line rate to the encoding (8b/10b, 64b/66b, or
// 256b/257b transcoding with RS(544,514) forward error correction). What is
// left, times the lanes, is the data rate that carries packet bytes. Every
// number and its source: docs/network.md, "Link generations".
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/time.h"

namespace ibsec::network {

// The largest InfiniBand MTU: 256, 512, 1 024, 2 048 or 4 096 bytes of
// payload per packet (IBA vol. 1: the MTU codes of PortInfo MTUCap). Smaller
// payloads are allowed here: the paper's sweeps go down to 32 bytes.
inline constexpr uint32_t kMaxMtuBytes = 4096;

// The exact time to serialize bytes at a data rate that is rarely a whole
// number of picoseconds per byte (4x FDR: 440/3 ps). It keeps picoseconds
// per byte as a reduced fraction and rounds each packet's time up to the
// next whole tick, so a tail never arrives before its last bit could.
class SerializationRate {
 public:
  // `ps_numerator` / `ps_denominator` picoseconds per byte.
  SerializationRate(uint64_t ps_numerator, uint64_t ps_denominator);

  // Time on the wire of `bytes` bytes, rounded up to a whole tick. Inline:
  // every packet's every hop asks, and 8b/10b rates are whole picoseconds per
  // byte, which needs no division.
  [[nodiscard]] Tick ticks(uint32_t bytes) const {
    const uint64_t scaled = uint64_t{bytes} * numerator_;
    return denominator_ == 1 ? scaled : (scaled + denominator_ - 1) / denominator_;
  }
  // Picoseconds per byte, for rates and capacities (not for event times).
  [[nodiscard]] double ps_per_byte() const;
  [[nodiscard]] double data_gbps() const;
  [[nodiscard]] uint64_t ps_numerator() const { return numerator_; }
  [[nodiscard]] uint64_t ps_denominator() const { return denominator_; }

  friend bool operator==(const SerializationRate&, const SerializationRate&) = default;

 private:
  uint64_t numerator_;
  uint64_t denominator_;
};

// One generation of the InfiniBand physical layer, per lane, with the delays
// that come with it.
struct LinkGeneration {
  std::string name;          // "SDR" ... "XDR"
  uint64_t lane_kbaud;       // symbols per lane, in thousands per second
  uint32_t bits_per_symbol;  // 1 (NRZ) or 2 (PAM4)
  std::string encoding;      // as written in docs/network.md
  uint32_t data_bits;        // of every `line_bits` sent, this many carry data
  uint32_t line_bits;
  Tick fec_latency;            // added to every link (encoder + decoder), 0 without FEC
  Tick switch_latency;         // switch traversal of the generation's switch silicon
  std::string switch_silicon;  // whose figure switch_latency is
};

struct LinkWidth {
  std::string name;  // "1x" ... "12x"
  uint32_t lanes;
};

// A link of one generation and width.
struct LinkRate {
  const LinkGeneration* generation;
  const LinkWidth* width;
  SerializationRate serialization;

  [[nodiscard]] double signal_gbps() const;  // baud x bits per symbol x lanes
  [[nodiscard]] double data_gbps() const { return serialization.data_gbps(); }
};

// Every generation, slowest first, and every width, narrowest first.
std::span<const LinkGeneration> link_generations();
std::span<const LinkWidth> link_widths();

// Throw ConfigError naming network.link_rate / network.link_width for an unknown name.
const LinkGeneration& link_generation(const std::string& name);
const LinkWidth& link_width(const std::string& name);
LinkRate link_rate(const std::string& generation, const std::string& width);

}  // namespace ibsec::network
