#include "core/event_module.h"

#include <cassert>

namespace ibsec {

EventDrivenModule::EventDrivenModule(const sc_core::sc_module_name& name, EventKernel& kernel)
    : sc_core::sc_module(name) {
  assert(&kernel == &EventKernel::active() && "a module joins the one kernel of its process");
  line_.slot = kernel.add(*this);
}

void EventDrivenModule::schedule(Tick at, uint32_t kind, uint32_t arg) {
  queue_push(PendingEntry{ModuleEvent{at, kind, arg}, line_.next_order++});
  // While waking (armed_for 0), the loop in wake_with picks the entry up or re-arms for it.
  if (at < line_.armed_for) arm(at);
}

void EventDrivenModule::queue_push(const PendingEntry& entry) {
  if (!line_.has_first) {
    line_.first = entry;
    line_.has_first = true;
    return;
  }
  if (!line_.rest) line_.rest = std::make_unique<LaterEntries>();
  if (LaterEntry{}(line_.first, entry)) {
    line_.rest->push(line_.first);
    line_.first = entry;
  } else {
    line_.rest->push(entry);
  }
  line_.has_rest = true;
}

void EventDrivenModule::queue_pop() {
  if (!line_.has_rest) {
    line_.has_first = false;
    return;
  }
  line_.first = line_.rest->top();
  line_.rest->pop();
  line_.has_rest = !line_.rest->empty();
}

// Only ever earlier than it is armed for (schedule, and wake_with once it
// has disarmed), so the kernel's pending wake-up, if any, is at the time
// this replaces.
void EventDrivenModule::arm(Tick at) {
  line_.armed_for = at;
  EventKernel::active().notify(line_, at);
}

uint64_t EventDrivenModule::wake_virtually(EventDrivenModule& m) {
  return m.wake_with([&m](const ModuleEvent& event) { m.handle(event); }, [&m](Tick now) { m.settle(now); });
}

}  // namespace ibsec
