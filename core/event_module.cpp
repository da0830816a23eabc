#include "core/event_module.h"

namespace ibsec {

EventDrivenModule::EventDrivenModule(const sc_core::sc_module_name& name, EventKernel& kernel)
    : sc_core::sc_module(name), slot_(kernel.add(*this)), kernel_(kernel) {}

void EventDrivenModule::schedule(Tick at, uint32_t kind, uint32_t arg) {
  queue_.push(Entry{ModuleEvent{at, kind, arg}, next_order_++});
  // While waking, the loop in wake() picks the entry up or re-arms for it.
  if (!waking_ && at < armed_for_) arm(at);
}

void EventDrivenModule::PendingEntries::push(const Entry& entry) {
  if (!has_first_) {
    first_ = entry;
    has_first_ = true;
  } else if (Later{}(first_, entry)) {
    rest_.push(first_);
    first_ = entry;
  } else {
    rest_.push(entry);
  }
}

void EventDrivenModule::PendingEntries::pop() {
  if (rest_.empty()) {
    has_first_ = false;
    return;
  }
  first_ = rest_.top();
  rest_.pop();
}

void EventDrivenModule::arm(Tick at) {
  armed_for_ = at;
  kernel_.notify(slot_, at);
}

void EventDrivenModule::wake() {
  KernelCounters& counters = kernel_.counters();
  ++counters.activations;
  waking_ = true;
  armed_for_ = kNever;
  const Tick t = now();
  while (!queue_.empty() && queue_.top().event.at <= t) {
    const ModuleEvent event = queue_.top().event;
    queue_.pop();
    ++counters.events;
    handle_(*this, event);
    if (queue_.empty() || queue_.top().event.at > t) settle_(*this, t);
  }
  waking_ = false;
  if (!queue_.empty()) arm(queue_.top().event.at);
}

}  // namespace ibsec
