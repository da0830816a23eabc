// The one SystemC process of the cycle-level model. Every EventDrivenModule
// used to own an sc_event and an SC_METHOD, and the SystemC kernel kept the
// modules' pending wake-ups in its own heap of timed notifications; on a
// large fabric that heap and its allocations were a third of the run. Here
// one process keeps them instead, in plain arrays, and wakes the modules
// itself: one SystemC activation per instant of simulated time, or, once
// drive_from_caller() is called, none at all, the caller advancing time with
// run_until (SystemC then only elaborates the modules).
//
// It wakes them in exactly the order the SystemC 2.3 kernel did, so that no
// result changes: modules whose wake-ups fall at the same time are woken in
// the order the kernel's binary heap yields them (same algorithm, same
// comparison on time alone, cancelled entries left in place as the kernel
// leaves them), delta notifications (a wake-up for the current time) are
// triggered last first after every evaluation phase, and runnable modules
// run first in, first out. docs/performance.md, "One process for the model".
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include <systemc>

#include "core/time.h"

namespace ibsec {

class EventDrivenModule;

struct WakeLine;

// Kernel activity across the whole model, for events-per-packet figures.
struct KernelCounters {
  uint64_t activations = 0;  // module wake-ups
  uint64_t events = 0;       // queue entries handled
};

class EventKernel : public sc_core::sc_module {
 public:
  explicit EventKernel(const sc_core::sc_module_name& name);
  ~EventKernel() override;
  EventKernel(const EventKernel&) = delete;
  EventKernel& operator=(const EventKernel&) = delete;

  // The kernel of the model being built or run: one a process, as SystemC
  // elaborates one design a process, so that a module need not keep a
  // pointer to it in the line it wakes on.
  [[nodiscard]] static EventKernel& active() { return *active_; }

  // Wakes a module: handles what is due, settles, re-arms; returns the entries handled.
  using Waker = uint64_t (*)(EventDrivenModule&);
  // Asks the memory for what a module's next wake-up will read first (a
  // hint: it changes nothing the module or the model sees).
  using Hint = void (*)(const EventDrivenModule&);

  // A module's place in the kernel, given once at its construction; it is
  // woken through its virtual handle and settle unless set_waker says otherwise.
  uint32_t add(EventDrivenModule& module);
  void set_waker(uint32_t module, Waker waker) { modules_[module].wake = waker; }
  void set_hint(uint32_t module, Hint hint) { modules_[module].hint = hint; }
  // Wakes the module of `line` at `at` (>= now), with sc_event::notify's
  // rules: a pending wake-up for now stays; a pending timed one is
  // cancelled and replaced. A module only ever arms for earlier than its
  // pending timed wake-up (WakeLine::armed_for), so the rule that an earlier
  // pending one stays has nothing to do here.
  void notify(WakeLine& line, Tick at);

  // Time is advanced by run_for without SystemC's time steps: call before
  // the simulation starts. Nothing then follows SystemC's time (a VCD trace
  // would see one time step), which is why it is not the default.
  void drive_from_caller();
  // Runs `duration` on from now, as sc_start(duration) does (and, unless
  // driven by the caller, by it); returns the time then.
  Tick run_for(Tick duration);
  // Whether anything is left to run, as sc_pending_activity says.
  [[nodiscard]] bool pending();
  // The instant being simulated (or the last one, between calls).
  [[nodiscard]] static Tick now() { return now_; }

  [[nodiscard]] const KernelCounters& counters() const { return counters_; }

 private:
  struct Registered {
    EventDrivenModule* module;
    Waker wake;
    Hint hint = nullptr;
  };
  // A heap entry names the module by its wake-up line, which the check of
  // the entry and the trigger read, rather than by its place in modules_.
  struct Timed {
    Tick at;
    uint64_t serial;
    WakeLine* module;
  };

  void run_instant();
  void run_until(Tick until);
  void trigger_due();
  void evaluate_and_notify();
  void trigger(WakeLine& module);
  void look_ahead() const;
  [[nodiscard]] static bool alive(const Timed& entry);
  void insert(const Timed& entry);
  Timed extract_top();
  void drop_cancelled_tops();
  void arm_self(Tick at);

  // The models the look-ahead pays in. Measured: 0.79 of the CPU time of a
  // 1 024-node 4-ary 5-tree (2 300 modules) with a second run beside it, the
  // same alone; 1.04 of a 16-node single switch's (18 modules), whose state
  // stays in the cache (docs/performance.md).
  static constexpr size_t kLookAheadFromModules = 256;
  std::vector<Registered> modules_;
  bool looks_ahead_ = false;
  std::vector<Timed> heap_{Timed{}};  // 1-based, as the kernel's: heap_[0] is unused
  std::vector<WakeLine*> deltas_;
  std::vector<WakeLine*> due_;  // the deltas being triggered (kept for its capacity)
  std::deque<uint32_t> runnable_;
  uint64_t next_serial_ = 0;
  bool running_ = false;
  bool systemc_drives_ = true;
  // One model a process, as SystemC elaborates one design a process.
  inline static Tick now_ = 0;
  inline static EventKernel* active_ = nullptr;
  KernelCounters counters_;
  sc_core::sc_event wakeup_;
};

}  // namespace ibsec
