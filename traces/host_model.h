// What drives the cards from the host side: synthetic sources, a script of
// messages (tests), and later trace replay. The cluster needs to know only
// where deliveries go and when the hosts have nothing more to offer.
#pragma once

#include "nic/host_interface.h"
#include "sim/event_module.h"

namespace ibsec::traces {

class HostModel : public sim::EventDrivenModule, public nic::HostInterface {
 public:
  using EventDrivenModule::EventDrivenModule;
  // True once the hosts will hand over nothing more.
  [[nodiscard]] virtual bool finished() const = 0;
};

}  // namespace ibsec::traces
