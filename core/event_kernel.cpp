#include "core/event_kernel.h"

#include <stdexcept>

#include "core/event_module.h"

namespace ibsec {

EventKernel::EventKernel(const sc_core::sc_module_name& name) : sc_core::sc_module(name) {
  if (active_ != nullptr) throw std::logic_error("EventKernel: one model a process, and one is already built");
  active_ = this;
  SC_HAS_PROCESS(EventKernel);
  SC_METHOD(run_instant);
  sensitive << wakeup_;
  dont_initialize();
}

namespace {
using Pending = WakeLine::Pending;
}  // namespace

EventKernel::~EventKernel() { active_ = nullptr; }

uint32_t EventKernel::add(EventDrivenModule& module) {
  modules_.push_back(Registered{&module, &EventDrivenModule::wake_virtually});
  looks_ahead_ = modules_.size() >= kLookAheadFromModules;
  return static_cast<uint32_t>(modules_.size() - 1);
}

void EventKernel::notify(WakeLine& state, Tick at) {
  if (state.pending == Pending::kDelta) return;
  // Between SystemC's time steps (elaboration, or between sc_start calls) its clock is the time.
  if (systemc_drives_ && !running_) now_ = sc_core::sc_time_stamp().value();
  if (at == now_) {
    state.pending = Pending::kDelta;  // a timed entry still in the heap is now cancelled
    deltas_.push_back(&state);
    arm_self(at);
    return;
  }
  state.pending = Pending::kTimed;
  state.timed_serial = ++next_serial_;
  insert(Timed{at, state.timed_serial, &state});
  arm_self(at);
}

void EventKernel::drive_from_caller() { systemc_drives_ = false; }

// Driven by SystemC and outside run_instant (elaboration, start of
// simulation), the kernel's own event is armed for the earliest wake-up;
// inside, run_instant arms it once it is done with the instant.
void EventKernel::arm_self(Tick at) {
  if (systemc_drives_ && !running_) wakeup_.notify(sc_core::sc_time::from_value(at - now_));
}

// One instant, as the SystemC kernel's simulate loop does it: the timed
// wake-ups due now, then evaluation and delta phases until nothing is left to
// run; then the next instant's time, past any cancelled entries on top.
void EventKernel::run_instant() {
  running_ = true;
  now_ = sc_core::sc_time_stamp().value();
  trigger_due();
  evaluate_and_notify();
  drop_cancelled_tops();
  running_ = false;
  if (heap_.size() > 1) wakeup_.notify(sc_core::sc_time::from_value(heap_[1].at - now_));
}

Tick EventKernel::run_for(Tick duration) {
  if (!systemc_drives_) {
    run_until(now_ + duration);
    return now_;
  }
  sc_core::sc_start(sc_core::sc_time::from_value(duration));
  return sc_core::sc_time_stamp().value();
}

// What sc_start(until - now) did, instant by instant: first the modules left
// runnable by the last call, then every instant up to `until`; the wake-ups
// due at `until` itself are triggered but run only in the next call, as
// sc_start holds the last instant's evaluation back; and the time is then
// `until`, as sc_start's default starvation policy leaves it.
void EventKernel::run_until(Tick until) {
  running_ = true;
  evaluate_and_notify();
  while (true) {
    drop_cancelled_tops();
    if (heap_.size() == 1 || heap_[1].at > until) break;
    now_ = heap_[1].at;
    trigger_due();
    if (now_ == until) break;
    evaluate_and_notify();
  }
  now_ = until;  // sc_start runs to its end time, whether anything happens there or not
  running_ = false;
}

// As sc_pending_activity: work at the current instant first, and only
// without it a look past cancelled entries for a later one (which drops
// them, and so shapes the heap, exactly when the kernel did).
bool EventKernel::pending() {
  if (systemc_drives_) return sc_core::sc_pending_activity();
  if (!runnable_.empty() || !deltas_.empty()) return true;
  drop_cancelled_tops();
  return heap_.size() > 1;
}

void EventKernel::trigger_due() {
  while (heap_.size() > 1 && heap_[1].at == now_) {
    const Timed entry = extract_top();
    if (alive(entry)) trigger(*entry.module);
  }
}

void EventKernel::evaluate_and_notify() {
  while (true) {
    while (!runnable_.empty()) {
      const uint32_t module = runnable_.front();
      runnable_.pop_front();
      if (looks_ahead_) look_ahead();
      const Registered& woken = modules_[module];
      woken.module->line_.runnable = false;
      ++counters_.activations;
      counters_.events += woken.wake(*woken.module);
    }
    if (deltas_.empty()) return;
    // The kernel triggers delta notifications last first.
    due_.swap(deltas_);
    for (auto it = due_.rbegin(); it != due_.rend(); ++it) trigger(**it);
    due_.clear();
    if (runnable_.empty()) return;
  }
}

// On a large fabric most of a wake-up's time is spent waiting for lines of
// memory that thousands of other wake-ups have pushed out of the cache since
// (the packet it handles, its input). The module to wake next is known a
// wake-up ahead: the next runnable one, or else the earliest in the heap (a
// guess, as the module being woken may queue an earlier one). It is asked
// for the lines its first entry names, so that they arrive while this one
// runs, and the wake-up lines of the heap entries that may follow it are
// fetched for the next such guess. Hints only: they change no order and
// nothing a module sees. A small model's state stays in the cache, where the
// look-ahead only costs (kLookAheadFromModules).
void EventKernel::look_ahead() const {
  const WakeLine* next = nullptr;
  if (!runnable_.empty()) {
    next = &modules_[runnable_.front()].module->line_;
  } else if (heap_.size() > 1) {
    next = heap_[1].module;
    for (size_t child = 2; child < heap_.size() && child <= 3; ++child) __builtin_prefetch(heap_[child].module);
  }
  if (next == nullptr || !next->has_first) return;
  const Registered& module = modules_[next->slot];
  if (module.hint != nullptr) module.hint(*module.module);
}

void EventKernel::trigger(WakeLine& state) {
  state.pending = Pending::kNone;
  if (state.runnable) return;
  state.runnable = true;
  runnable_.push_back(state.slot);
}

bool EventKernel::alive(const Timed& entry) {
  const WakeLine& state = *entry.module;
  return state.pending == Pending::kTimed && state.timed_serial == entry.serial;
}

// The kernel's sc_ppq: a binary max-heap on "earlier", sifting a new entry
// up past every strictly later parent, and re-heaping from the top after
// moving the last entry there.
void EventKernel::insert(const Timed& entry) {
  heap_.push_back(entry);
  size_t i = heap_.size() - 1;
  while (i > 1 && heap_[i / 2].at > entry.at) {
    heap_[i] = heap_[i / 2];
    i /= 2;
  }
  heap_[i] = entry;
}

EventKernel::Timed EventKernel::extract_top() {
  const Timed top = heap_[1];
  const Timed last = heap_.back();
  heap_.pop_back();
  const size_t size = heap_.size() - 1;
  if (size == 0) return top;
  // The kernel puts the last entry on top and swaps it down past any strictly
  // earlier child, the earlier of the two (the left one on a tie); moving
  // those children up into the hole and placing the entry once gives the
  // same heap.
  // Which child is earlier is a coin toss to the branch predictor, so it is
  // taken as a number (the right one, or the left itself when it has no
  // sibling), not as a branch.
  Timed* const heap = heap_.data();
  size_t hole = 1;
  for (size_t child = 2; child <= size; child = 2 * hole) {
    const size_t right = child + static_cast<size_t>(child < size);
    child += static_cast<size_t>(heap[right].at < heap[child].at);
    if (!(heap[child].at < last.at)) break;
    heap[hole] = heap[child];
    hole = child;
  }
  heap[hole] = last;
  return top;
}

void EventKernel::drop_cancelled_tops() {
  while (heap_.size() > 1 && !alive(heap_[1])) extract_top();
}

}  // namespace ibsec
