// The one way modules in the cycle-level model use the SystemC kernel: each
// module keeps its own time-ordered queue of pending work in plain C++ and a
// single sc_event armed for the earliest entry, so the kernel wakes a module
// only when it has something to do and never every clock while it is idle.
// (A private heap plus one event measured ~3x faster than sc_event_queue.)
#pragma once

#include <cstdint>
#include <limits>
#include <queue>
#include <vector>

#include <systemc>

#include "core/time.h"

namespace ibsec {

inline constexpr Tick kNever = std::numeric_limits<Tick>::max();

// Kernel activity across the whole model, for events-per-packet figures.
struct KernelCounters {
  uint64_t activations = 0;  // SC_METHOD runs of all modules
  uint64_t events = 0;       // queue entries handled
};

struct ModuleEvent {
  Tick at;
  uint32_t kind;  // meaning is the module's own
  uint32_t arg;
};

class EventDrivenModule : public sc_core::sc_module {
 public:
  EventDrivenModule(const sc_core::sc_module_name& name, KernelCounters& counters);

  // Queues work for time `at` (>= the current time). Entries with equal times
  // run in the order they were queued, which keeps runs deterministic.
  void schedule(Tick at, uint32_t kind, uint32_t arg = 0);

  [[nodiscard]] static Tick now() { return sc_core::sc_time_stamp().value(); }

 protected:
  virtual void handle(const ModuleEvent& event) = 0;
  // Runs once after every entry due at the current time has been handled:
  // the place for decisions that must see all of this instant's arrivals
  // (arbitration).
  virtual void settle(Tick /*now*/) {}

 private:
  struct Entry {
    ModuleEvent event;
    uint64_t order;
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.event.at != b.event.at ? a.event.at > b.event.at : a.order > b.order;
    }
  };

  void wake();
  void arm(Tick at);

  std::priority_queue<Entry, std::vector<Entry>, Later> queue_;
  sc_core::sc_event wakeup_;
  KernelCounters& counters_;
  uint64_t next_order_ = 0;
  Tick armed_for_ = kNever;
  bool waking_ = false;
};

}  // namespace ibsec
