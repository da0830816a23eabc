// What drives the cards from the host side: synthetic sources, a script of
// messages (tests), and trace replay. The cluster needs to know only
// where deliveries go and when the hosts have nothing more to offer.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/event_module.h"
#include "nic/host_interface.h"
#include "schedulers/scheduler.h"

namespace ibsec::hosts {

// Something about the hosts a reader of the result must not overlook (the
// result's "warnings", beside the network's).
struct HostWarning {
  std::string kind;
  std::string message;
};

class HostModel : public EventDrivenModule, public nic::HostInterface {
 public:
  using EventDrivenModule::EventDrivenModule;
  // True once the hosts will hand over nothing more.
  [[nodiscard]] virtual bool finished() const = 0;
  // The host model's own results for the result file (null: none).
  [[nodiscard]] virtual nlohmann::ordered_json report() const { return nullptr; }
  // The node scheduler's section of the result (null: the hosts do not model CPUs).
  [[nodiscard]] virtual nlohmann::ordered_json scheduler_report() const { return nullptr; }
  // Its statistics group (null: no CPUs modelled).
  [[nodiscard]] virtual const schedulers::SchedulerStats* scheduler_stats() const { return nullptr; }
  // True once no process can ever go on: every one left waits for
  // communication and nothing is in flight that could end a wait. A run
  // stops there instead of letting timers tick forever.
  [[nodiscard]] virtual bool deadlocked() const { return false; }
  // What the hosts still wait for when a run ends unfinished (empty: nothing).
  [[nodiscard]] virtual std::string stall_report() const { return {}; }
  [[nodiscard]] virtual std::vector<HostWarning> warnings() const { return {}; }
};

}  // namespace ibsec::hosts
