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
#include <memory>
#include <queue>
#include <type_traits>
#include <vector>

#include <boost/heap/d_ary_heap.hpp>
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

// An entry of a module's queue: the work, and its place in the order the
// module queued it. Entries leave by time, then by that place.
struct PendingEntry {
  ModuleEvent event;
  uint64_t order;
};
struct LaterEntry {
  bool operator()(const PendingEntry& a, const PendingEntry& b) const {
    return a.event.at != b.event.at ? a.event.at > b.event.at : a.order > b.order;
  }
};
// A module's entries after its first. (time, order) is a total order, so any
// heap gives them back in the same order; a 4-ary one, as its levels are
// half as many: the synthetic sources keep one entry a node in one module,
// and a binary heap's pop there was 3 % of a 1 024-node fat tree's run
// (docs/performance.md).
using LaterEntries = boost::heap::d_ary_heap<PendingEntry, boost::heap::arity<4>, boost::heap::compare<LaterEntry>>;

// A module's wake-up state, in one cache line of the module: what the kernel
// keeps of it (its pending timed wake-up, whether it is pending or runnable)
// and what its own queue reads when it schedules and wakes (the earliest
// entry, the time it is armed for, whether more entries wait), so that
// scheduling, the kernel's check of a heap entry and the wake-up itself
// touch this line of the module and no other (a busy module's further
// entries aside).
struct alignas(64) WakeLine {
  enum class Pending : uint8_t { kNone, kDelta, kTimed };
  PendingEntry first{};     // the earliest pending entry, if has_first
  uint64_t next_order = 0;  // the next entry's place
  // The time it is armed for (kNever: none). With a timed wake-up pending it
  // is that wake-up's time: the module arms only for earlier than this, and
  // the kernel replaces its wake-up each time. While the module wakes it is
  // 0, which no entry is earlier than: the wake-up arms for the next once done.
  Tick armed_for = kNever;
  uint64_t timed_serial = 0;           // the kernel's: the heap entry that is its pending timed wake-up
  std::unique_ptr<LaterEntries> rest;  // the entries after the first, once a second has come
  uint32_t slot = 0;                   // its place in the kernel
  Pending pending = Pending::kNone;    // the kernel's
  bool runnable = false;               // the kernel's
  bool has_first = false;
  bool has_rest = false;  // rest holds entries
};
static_assert(sizeof(WakeLine) == 64, "a module's wake-up state is one cache line");

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

  // Has the kernel wake the module with its handle and settle called as
  // `Module`'s own, not through the virtual table: the table's pointer is in
  // the object's first line, which nothing else a wake-up reads is in (a
  // miss a wake-up on a large fabric). A final module type calls it in its
  // constructor, and befriends EventDrivenModule so that it may name its
  // private handle and settle.
  template <typename Module>
  void call_directly() {
    static_assert(std::is_final_v<Module>, "a module called directly has no overrides below it");
    EventKernel::active().set_waker(line_.slot, [](EventDrivenModule& m) {
      auto& module = static_cast<Module&>(m);
      return m.wake_with([&module](const ModuleEvent& event) { module.Module::handle(event); },
                         [&module](Tick now) { module.Module::settle(now); });
    });
    // A module that can say what its wake-ups read has the kernel ask it ahead of them.
    if constexpr (requires(const Module& m, const ModuleEvent& e) { m.hint(e); }) {
      EventKernel::active().set_hint(line_.slot, [](const EventDrivenModule& m) {
        static_cast<const Module&>(m).Module::hint(m.line_.first.event);
      });
    }
  }

 private:
  friend class EventKernel;
  // Wakes the module through its virtual handle and settle (EventKernel's
  // default waker); returns the entries handled.
  static uint64_t wake_virtually(EventDrivenModule& m);
  // Handles every entry due now, settling after the last of an instant's,
  // then arms for the next; returns the entries handled.
  template <typename Handle, typename Settle>
  uint64_t wake_with(Handle handle, Settle settle);
  void arm(Tick at);

  // The pending entries, earliest first: the earliest in the wake-up line,
  // the rest in a heap apart, so that at light load, one entry at a time,
  // scheduling and waking never touch the heap. Entries are ordered by
  // (time, order), a total order, so they leave in the same order whichever
  // way they are kept.
  void queue_push(const PendingEntry& entry);
  void queue_pop();

  WakeLine line_;
};

template <typename Handle, typename Settle>
uint64_t EventDrivenModule::wake_with(Handle handle, Settle settle) {
  uint64_t events = 0;
  line_.armed_for = 0;
  const Tick t = now();
  while (line_.has_first && line_.first.event.at <= t) {
    const ModuleEvent event = line_.first.event;
    queue_pop();
    ++events;
    handle(event);
    if (!line_.has_first || line_.first.event.at > t) settle(t);
  }
  line_.armed_for = kNever;
  if (line_.has_first) arm(line_.first.event.at);
  return events;
}

}  // namespace ibsec
