// Resolving nic.skc.access_ns: a time in ns, or "cacti" for the CACTI 7
// access time of the card's SKC geometry (docs/hardware-cost.md).
#pragma once

#include "core/parameters.h"
#include "nic/cic.h"

namespace ibsec::nic {

// Sets card.skc_access and card.skc_access_origin from nic.skc.access_ns,
// after the SKC's geometry (nic.security, nic.skc.ways, card.cacti) is read.
// Throws ConfigError naming the key when the CACTI table lacks or rejects
// the geometry.
void resolve_skc_access(const ParameterValues& values, CicParams& card);

}  // namespace ibsec::nic
