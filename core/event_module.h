// The one way modules in the cycle-level model are woken: each module keeps
// its own time-ordered queue of pending work in plain C++ and one wake-up
// armed for the earliest entry, which the EventKernel delivers, so a module
// runs only when it has something to do and never every clock while it is
// idle. (A private heap plus one wake-up measured ~3x faster than
// sc_event_queue; one kernel process for every module, not an sc_event and
// an SC_METHOD each, is docs/performance.md, "One process for the model".)
#pragma once

#include <cstdint>
#include <limits>
#include <queue>
#include <type_traits>
#include <vector>

#include <systemc>

#include "core/event_kernel.h"
#include "core/time.h"

namespace ibsec {

inline constexpr Tick kNever = std::numeric_limits<Tick>::max();

struct ModuleEvent {
  Tick at;
  uint32_t kind;  // meaning is the module's own
  uint32_t arg;
};

class EventDrivenModule : public sc_core::sc_module {
 public:
  EventDrivenModule(const sc_core::sc_module_name& name, EventKernel& kernel);

  // Queues work for time `at` (>= the current time). Entries with equal times
  // run in the order they were queued, which keeps runs deterministic.
  void schedule(Tick at, uint32_t kind, uint32_t arg = 0);

  [[nodiscard]] static Tick now() { return EventKernel::now(); }

 protected:
  virtual void handle(const ModuleEvent& event) = 0;
  // Runs once after every entry due at the current time has been handled:
  // the place for decisions that must see all of this instant's arrivals
  // (arbitration).
  virtual void settle(Tick /*now*/) {}

  // Has the module's handle and settle called as `Module`'s own, not through
  // the virtual table: the table's pointer is in the object's first line,
  // which nothing else a wake-up reads is in (a miss a wake-up on a large
  // fabric). A final module type calls it in its constructor, and befriends
  // EventDrivenModule so that it may name its private handle and settle.
  template <typename Module>
  void call_directly() {
    static_assert(std::is_final_v<Module>, "a module called directly has no overrides below it");
    handle_ = [](EventDrivenModule& m, const ModuleEvent& event) { static_cast<Module&>(m).Module::handle(event); };
    settle_ = [](EventDrivenModule& m, Tick now) { static_cast<Module&>(m).Module::settle(now); };
  }

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

  // The pending entries, earliest first. The earliest is kept in the module
  // itself and the rest in a heap apart, so that at light load, one entry at
  // a time, scheduling and waking never touch the heap's storage. Entries
  // are ordered by (time, order), a total order, so they leave in the same
  // order whichever way they are kept.
  class PendingEntries {
   public:
    [[nodiscard]] bool empty() const { return !has_first_; }
    [[nodiscard]] const Entry& top() const { return first_; }
    void push(const Entry& entry);
    void pop();

   private:
    Entry first_{};
    bool has_first_ = false;
    std::priority_queue<Entry, std::vector<Entry>, Later> rest_;
  };

  friend class EventKernel;
  void wake();
  void arm(Tick at);

  // What scheduling and waking read, in two cache lines of their own (an
  // sc_module's fields come before, and are not read while running): the
  // kernel's record of this module's wake-up and the earliest entry in the
  // first, the rest of the queue and the flags in the second.
  alignas(64) KernelSlot kernel_slot_;
  Tick armed_for_ = kNever;
  uint64_t next_order_ = 0;
  PendingEntries queue_;
  bool waking_ = false;
  uint32_t slot_;  // its place in the kernel
  EventKernel& kernel_;
  void (*handle_)(EventDrivenModule&, const ModuleEvent&) = [](EventDrivenModule& m, const ModuleEvent& event) {
    m.handle(event);
  };
  void (*settle_)(EventDrivenModule&, Tick) = [](EventDrivenModule& m, Tick now) { m.settle(now); };
};

}  // namespace ibsec
