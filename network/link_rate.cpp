#include "network/link_rate.h"

#include <array>
#include <cassert>
#include <numeric>

#include "core/errors.h"

namespace ibsec::network {
namespace {

constexpr uint64_t kBitsPerByte = 8;
constexpr uint64_t kPsPerSecond = 1'000'000'000'000;
constexpr uint64_t kBaudPerKbaud = 1000;

// Per lane, from docs/network.md "Link generations", where each number's
// source is written. PAM4 links carry 256b/257b-transcoded 64b/66b blocks in
// RS(544,514) codewords: 256/257 x 514/544 = 16/17 of the line rate is data.
const std::array<LinkGeneration, 8> kGenerations{{
    {"SDR", 2'500'000, 1, "8b/10b", 8, 10, 0, 200 * kTicksPerNs, "InfiniScale III"},
    {"DDR", 5'000'000, 1, "8b/10b", 8, 10, 0, 200 * kTicksPerNs, "InfiniScale III"},
    {"QDR", 10'000'000, 1, "8b/10b", 8, 10, 0, 200 * kTicksPerNs, "InfiniScale III (no InfiniScale IV figure found)"},
    {"FDR", 14'062'500, 1, "64b/66b", 64, 66, 0, 200 * kTicksPerNs, "SwitchX (SX6036)"},
    {"EDR", 25'781'250, 1, "64b/66b", 64, 66, 0, 200 * kTicksPerNs, "SwitchX (no Switch-IB figure found)"},
    {"HDR", 26'562'500, 2, "PAM4, 256b/257b + RS(544,514)", 16, 17, 100 * kTicksPerNs, 130 * kTicksPerNs,
     "Quantum (QM8790)"},
    {"NDR", 53'125'000, 2, "PAM4, 256b/257b + RS(544,514)", 16, 17, 100 * kTicksPerNs, 130 * kTicksPerNs,
     "Quantum-2 (QM9700)"},
    {"XDR", 106'250'000, 2, "PAM4, 256b/257b + RS(544,514)", 16, 17, 100 * kTicksPerNs, 100 * kTicksPerNs,
     "Quantum-X800 (Q3400)"},
}};

const std::array<LinkWidth, 5> kWidths{{{"1x", 1}, {"2x", 2}, {"4x", 4}, {"8x", 8}, {"12x", 12}}};

template <typename Entry>
std::string names_of(std::span<const Entry> entries) {
  std::string names;
  for (const auto& e : entries) names += (names.empty() ? "" : ", ") + e.name;
  return names;
}

}  // namespace

SerializationRate::SerializationRate(uint64_t ps_numerator, uint64_t ps_denominator) {
  assert(ps_numerator > 0 && ps_denominator > 0);
  const uint64_t common = std::gcd(ps_numerator, ps_denominator);
  numerator_ = ps_numerator / common;
  denominator_ = ps_denominator / common;
  // bytes (< 2^32) x numerator must fit 64 bits.
  assert(numerator_ < (uint64_t{1} << 31));
}

double SerializationRate::ps_per_byte() const {
  return static_cast<double>(numerator_) / static_cast<double>(denominator_);
}

double SerializationRate::data_gbps() const { return static_cast<double>(kBitsPerByte) * 1000.0 / ps_per_byte(); }

double LinkRate::signal_gbps() const {
  return static_cast<double>(generation->lane_kbaud * generation->bits_per_symbol * width->lanes) / 1.0e6;
}

std::span<const LinkGeneration> link_generations() { return kGenerations; }
std::span<const LinkWidth> link_widths() { return kWidths; }

const LinkGeneration& link_generation(const std::string& name) {
  for (const auto& generation : kGenerations) {
    if (generation.name == name) return generation;
  }
  throw ConfigError("network.link_rate",
                    "unknown InfiniBand generation '" + name + "'; known: " + names_of(link_generations()));
}

const LinkWidth& link_width(const std::string& name) {
  for (const auto& width : kWidths) {
    if (width.name == name) return width;
  }
  throw ConfigError("network.link_width",
                    "unknown InfiniBand link width '" + name + "'; known: " + names_of(link_widths()));
}

// ps per byte = 8 bits x 10^12 ps/s / (lanes x baud x bits per symbol x data/line).
LinkRate link_rate(const std::string& generation_name, const std::string& width_name) {
  const LinkGeneration& generation = link_generation(generation_name);
  const LinkWidth& width = link_width(width_name);
  const uint64_t ps_numerator = kBitsPerByte * (kPsPerSecond / kBaudPerKbaud) * generation.line_bits;
  const uint64_t ps_denominator =
      uint64_t{width.lanes} * generation.lane_kbaud * generation.bits_per_symbol * generation.data_bits;
  return {&generation, &width, SerializationRate(ps_numerator, ps_denominator)};
}

}  // namespace ibsec::network
