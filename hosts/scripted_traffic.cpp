#include "hosts/scripted_traffic.h"

#include <algorithm>
#include <stdexcept>

namespace ibsec::hosts {

ScriptedTraffic::ScriptedTraffic(const sc_core::sc_module_name& name, EventKernel& kernel,
                                 std::vector<ScriptedMessage> script, std::vector<nic::Cic*> cards, uint32_t mtu_bytes,
                                 DeliverySink& sink)
    : HostModel(name, kernel),
      script_(std::move(script)),
      cards_(std::move(cards)),
      mtu_bytes_(mtu_bytes),
      sink_(sink) {
  std::ranges::stable_sort(script_, {}, &ScriptedMessage::at);
  for (const auto& m : script_) {
    if (m.source.value() >= cards_.size() || m.message.destination.value() >= cards_.size()) {
      throw std::invalid_argument("scripted message names a node outside the cluster");
    }
  }
}

void ScriptedTraffic::start_of_simulation() {
  if (!script_.empty()) schedule(script_.front().at, 0);
}

void ScriptedTraffic::handle(const ModuleEvent& event) {
  while (next_ < script_.size() && script_[next_].at <= event.at) {
    const ScriptedMessage& m = script_[next_++];
    const uint32_t packets = std::max<uint32_t>(1, (m.message.bytes + mtu_bytes_ - 1) / mtu_bytes_);
    sink_.on_handover(m.message, packets, event.at);
    cards_[m.source.value()]->submit(m.message, event.at);
  }
  if (finished()) {
    sink_.on_sources_done(event.at);
  } else {
    schedule(script_[next_].at, 0);
  }
}

void ScriptedTraffic::on_packet_delivered(const network::Packet& packet, Tick now) {
  delivered_.push_back(packet);
  sink_.on_delivered(packet, now);
}

}  // namespace ibsec::hosts
