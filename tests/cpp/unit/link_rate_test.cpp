// InfiniBand generations and widths against the published per-lane data
// rates (docs/network.md, "Link generations"): the data rate of every
// generation x width, and the time of one packet on the wire to the
// picosecond, from a table written out by hand here rather than from the
// engine's own signalling rates and encodings.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/errors.h"
#include "network/link_rate.h"

namespace ibsec {
namespace {

// Per lane: the published data rate, and the time of one byte as an exact
// fraction of picoseconds (8 bits / data rate).
struct PublishedLane {
  const char* generation;
  double data_gbps;
  uint64_t ps_numerator;
  uint64_t ps_denominator;
};

// SDR/DDR/QDR: 2.5/5/10 Gbaud x 8/10. FDR: 14.0625 x 64/66 = 13.63 Gb/s, a
// byte in 8000 x 66 / (14.0625 x 64) = 1760/3 ps. EDR: 25.78125 x 64/66 = 25.
// HDR/NDR/XDR: 50/100/200 Gb/s of data per lane (53.125/106.25/212.5 Gb/s PAM4).
const std::vector<PublishedLane> kLanes{
    {"SDR", 2.0, 4000, 1}, {"DDR", 4.0, 2000, 1}, {"QDR", 8.0, 1000, 1}, {"FDR", 14.0625 * 64 / 66, 1760, 3},
    {"EDR", 25.0, 320, 1}, {"HDR", 50.0, 160, 1}, {"NDR", 100.0, 80, 1}, {"XDR", 200.0, 40, 1},
};

struct Width {
  const char* name;
  uint32_t lanes;
};
const std::vector<Width> kWidths{{"1x", 1}, {"2x", 2}, {"4x", 4}, {"8x", 8}, {"12x", 12}};

// Wire bytes of one full packet: the payload plus 26 header bytes, plus 24
// security bytes on a secure card.
constexpr uint32_t kPaperPacket = 256 + 26 + 24;
constexpr uint32_t kLargestPacket = 4096 + 26 + 24;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

TEST(LinkRate, EveryGenerationAndWidthHasThePublishedDataRate) {
  ASSERT_EQ(network::link_generations().size(), kLanes.size());
  ASSERT_EQ(network::link_widths().size(), kWidths.size());
  for (const PublishedLane& lane : kLanes) {
    for (const Width& width : kWidths) {
      const network::LinkRate rate = network::link_rate(lane.generation, width.name);
      EXPECT_NEAR(rate.data_gbps(), lane.data_gbps * width.lanes, 1e-9 * lane.data_gbps * width.lanes)
          << lane.generation << " " << width.name;
    }
  }
}

TEST(LinkRate, OnePacketTakesItsExactTimeRoundedUpToAPicosecond) {
  for (const PublishedLane& lane : kLanes) {
    for (const Width& width : kWidths) {
      const network::SerializationRate rate = network::link_rate(lane.generation, width.name).serialization;
      for (const uint32_t bytes : {1U, 282U, kPaperPacket, kLargestPacket}) {
        EXPECT_EQ(rate.ticks(bytes), ceil_div(uint64_t{bytes} * lane.ps_numerator, lane.ps_denominator * width.lanes))
            << lane.generation << " " << width.name << " " << bytes << " B";
      }
    }
  }
}

TEST(LinkRate, HandWorkedPacketTimes) {
  // 4x FDR: 440/3 ps a byte; 306 and 4146 bytes are whole picoseconds.
  EXPECT_EQ(network::link_rate("FDR", "4x").serialization.ticks(kPaperPacket), 44'880U);
  EXPECT_EQ(network::link_rate("FDR", "4x").serialization.ticks(kLargestPacket), 608'080U);
  // 12x FDR: 440/9 ps a byte; 282 B is 13 786.67 ps, so 13 787.
  EXPECT_EQ(network::link_rate("FDR", "12x").serialization.ticks(282), 13'787U);
  // 4x EDR (100 Gb/s): 80 ps a byte. 4x NDR (400 Gb/s): 20. 12x XDR (2.4 Tb/s): 10/3.
  EXPECT_EQ(network::link_rate("EDR", "4x").serialization.ticks(kLargestPacket), 331'680U);
  EXPECT_EQ(network::link_rate("NDR", "4x").serialization.ticks(kLargestPacket), 82'920U);
  EXPECT_EQ(network::link_rate("XDR", "12x").serialization.ticks(kLargestPacket), 13'820U);
  EXPECT_EQ(network::link_rate("XDR", "12x").serialization.ticks(1), 4U);
}

TEST(LinkRate, TodaysFourLaneRatesKeepTheirWholePicosecondsPerByte) {
  // What every run before link widths used: 1000, 500 and 250 ps a byte.
  EXPECT_EQ(network::link_rate("SDR", "4x").serialization, network::SerializationRate(1000, 1));
  EXPECT_EQ(network::link_rate("DDR", "4x").serialization, network::SerializationRate(500, 1));
  EXPECT_EQ(network::link_rate("QDR", "4x").serialization, network::SerializationRate(250, 1));
  EXPECT_EQ(network::link_rate("SDR", "4x").serialization.ps_per_byte(), 1000.0);
}

TEST(LinkRate, SignallingRateIsBaudTimesBitsPerSymbolTimesLanes) {
  EXPECT_DOUBLE_EQ(network::link_rate("SDR", "4x").signal_gbps(), 10.0);
  EXPECT_DOUBLE_EQ(network::link_rate("FDR", "4x").signal_gbps(), 56.25);
  EXPECT_DOUBLE_EQ(network::link_rate("EDR", "4x").signal_gbps(), 103.125);
  EXPECT_DOUBLE_EQ(network::link_rate("HDR", "1x").signal_gbps(), 53.125);  // 26.5625 Gbaud PAM4
  EXPECT_DOUBLE_EQ(network::link_rate("XDR", "1x").signal_gbps(), 212.5);
}

TEST(LinkRate, SerializationRateIsReduced) {
  const network::SerializationRate rate(5'280'000'000'000ULL, 36'000'000'000ULL);  // 4x FDR before reduction
  EXPECT_EQ(rate.ps_numerator(), 440U);
  EXPECT_EQ(rate.ps_denominator(), 3U);
  EXPECT_EQ(rate, network::link_rate("FDR", "4x").serialization);
}

TEST(LinkRate, OnlyPamFourGenerationsAddForwardErrorCorrection) {
  for (const auto& generation : network::link_generations()) {
    const bool pam4 = generation.bits_per_symbol == 2;
    EXPECT_EQ(generation.fec_latency > 0, pam4) << generation.name;
  }
}

template <typename F>
std::string failing_field(F f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.field();
  }
  return "(accepted)";
}

TEST(LinkRate, UnknownNamesAreRefusedNamingTheirField) {
  EXPECT_EQ(failing_field([] { network::link_generation("GDR"); }), "network.link_rate");
  EXPECT_EQ(failing_field([] { network::link_generation("sdr"); }), "network.link_rate");
  EXPECT_EQ(failing_field([] { network::link_width("3x"); }), "network.link_width");
  EXPECT_EQ(failing_field([] { network::link_rate("HDR", "16x"); }), "network.link_width");
  try {
    network::link_width("3x");
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("1x, 2x, 4x, 8x, 12x"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ibsec
