#include "network/forwarding.h"

namespace ibsec::network {

void Forwarding::to_table() {
  if (!rule_) return;
  table_.resize(destinations_);
  for (uint32_t d = 0; d < destinations_; ++d) table_[d] = rule_->port(switch_index_, d);
  rule_.reset();
}

void Forwarding::set(uint32_t destination, PortId port) {
  to_table();
  table_[destination] = port;
}

void Forwarding::fill(PortId port) {
  rule_.reset();
  table_.assign(destinations_, port);
}

bool Forwarding::operator==(const Forwarding& other) const {
  if (destinations_ != other.destinations_) return false;
  for (uint32_t d = 0; d < destinations_; ++d) {
    if ((*this)[d] != other[d]) return false;
  }
  return true;
}

}  // namespace ibsec::network
