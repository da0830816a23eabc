#include "nic/card_throughput.h"

#include <cmath>
#include <limits>

namespace ibsec::nic {
namespace {

constexpr double kPsPerSecond = 1.0e12;
constexpr double kUnbounded = std::numeric_limits<double>::infinity();

double per_second(double ps) { return ps <= 0 ? kUnbounded : kPsPerSecond / ps; }

}  // namespace

CardRateBounds card_rate_bounds(const CicParams& card, const CardLoad& load) {
  // The card hands a packet to its link on one of its clock edges, so back-to-back packets leave a whole
  // number of card cycles apart.
  const double period = static_cast<double>(card.clock.period());
  const double link_ps = std::ceil(load.link_ps_per_packet / period) * period;
  CardRateBounds bounds{per_second(link_ps), kUnbounded, kUnbounded, kUnbounded};
  if (!card.security.encrypts()) return bounds;

  const Clock gcm_clock = card.gcm_clock.value_or(card.clock);
  const double occupied =
      static_cast<double>(gcm_clock.ticks(card.gcm.occupancy(load.payload_bytes, card.gcm_pipelined)));
  bounds.gcm = card.gcm_engines * per_second(occupied);

  const bool has_skc = card.security.path == KeyPath::kCache;
  const double probe = has_skc ? static_cast<double>(card.clock.ticks(card.clock.cycles_covering(card.skc_access))) : 0;
  const double memory = static_cast<double>(card.key_memory_access);
  // Each packet holds one of the stage's places for its SKC access and, if it
  // misses, the key memory's access (Little's law over the places).
  bounds.lookup = card.lookup_outstanding_misses * per_second(probe + load.miss_rate * memory);
  if (card.lookup_outstanding_misses > 1) {
    // A non-blocking stage starts one look-up per SKC access (per cycle without an SKC).
    bounds.lookup = std::min(bounds.lookup, per_second(has_skc ? probe : static_cast<double>(card.clock.period())));
  }
  const double reads_per_packet = load.miss_rate * load.directions_sharing;
  bounds.key_memory =
      reads_per_packet <= 0 ? kUnbounded : card.key_memory_requests_in_flight * per_second(memory) / reads_per_packet;
  return bounds;
}

}  // namespace ibsec::nic
