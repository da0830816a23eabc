// The EventKernel wakes modules in exactly the order the SystemC kernel woke
// them when each module had its own sc_event and SC_METHOD (core/event_kernel.h):
// the same scenario of modules waking each other, with many wake-ups at equal
// times, wake-ups for the current instant and earlier ones replacing later
// ones, is run once on the kernel and once on modules built the old way, each
// in its own process, and the two logs of who woke when must be equal. With
// enough modules for the kernel's look-ahead (EventKernel::look_ahead) and
// modules that take its hints, the order is the same still.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <queue>
#include <sstream>
#include <string>
#include <vector>

#include <systemc>

#include "core/event_module.h"
#include "support/model_support.h"

namespace ibsec {
namespace {

constexpr uint32_t kModules = 48;
// Enough modules that the kernel looks ahead (EventKernel::kLookAheadFromModules is 256).
constexpr uint32_t kModulesLookingAhead = 320;
constexpr uint64_t kBudget = 40'000;  // events handled before the modules stop waking each other
// Mostly short and equal delays, so that many wake-ups fall at one time; 0 is
// a wake-up for the current instant (a delta notification).
constexpr std::array<Tick, 8> kDelays = {0, 0, 1000, 1000, 1000, 2000, 3000, 7000};

struct Log {
  std::ostringstream text;
  uint64_t handled = 0;
  uint32_t modules = kModules;
  // The kernel's hints: the last one each module was given, and how many
  // entries were handled while their module's last hint was for them.
  struct Hint {
    uint32_t arg;
    Tick at;
    bool operator==(const Hint&) const = default;
  };
  std::vector<std::optional<Hint>> last_hint = std::vector<std::optional<Hint>>(kModulesLookingAhead);
  uint64_t hinted = 0;
};

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

// What every module does with an event, whichever way it is woken: logs it
// and wakes one or two modules (itself among them at times) a little later.
template <typename Schedule>
void react(Log& log, uint32_t id, uint32_t arg, Tick now, Schedule schedule) {
  log.text << now << ' ' << id << ' ' << arg << '\n';
  if (++log.handled > kBudget) return;
  const uint64_t h = mix((uint64_t{id} << 40) ^ (uint64_t{arg} << 20) ^ now);
  const uint32_t fanout = (h & 7) == 0 ? 2 : 1;
  for (uint32_t k = 0; k < fanout; ++k) {
    const uint64_t g = mix(h + k);
    schedule(static_cast<uint32_t>(g % log.modules), now + kDelays[(g >> 16) % kDelays.size()], arg + 1);
  }
}

// A module woken by the EventKernel; one that takes hints is called
// directly, the only way a module takes them.
class KernelModule final : public EventDrivenModule {
 public:
  KernelModule(const sc_core::sc_module_name& name, EventKernel& kernel, uint32_t id, Log& log,
               std::vector<std::unique_ptr<KernelModule>>& all, bool takes_hints)
      : EventDrivenModule(name, kernel), id_(id), log_(log), all_(all) {
    if (takes_hints) call_directly<KernelModule>();
  }

 private:
  friend class EventDrivenModule;  // calls handle and hint directly (call_directly)
  void start_of_simulation() override { schedule((id_ % 5) * 1000, 0, 0); }
  void handle(const ModuleEvent& event) override {
    if (log_.last_hint[id_] == Log::Hint{event.arg, event.at}) {
      ++log_.hinted;
      log_.last_hint[id_].reset();
    }
    react(log_, id_, event.arg, event.at,
          [this](uint32_t to, Tick at, uint32_t arg) { all_[to]->schedule(at, 0, arg); });
  }
  void hint(const ModuleEvent& event) const { log_.last_hint[id_] = Log::Hint{event.arg, event.at}; }
  uint32_t id_;
  Log& log_;
  std::vector<std::unique_ptr<KernelModule>>& all_;
};

// A module as they were before the EventKernel: its own queue, its own
// sc_event armed for the earliest entry, its own SC_METHOD.
class SystemCModule final : public sc_core::sc_module {
 public:
  SystemCModule(const sc_core::sc_module_name& name, uint32_t id, Log& log,
                std::vector<std::unique_ptr<SystemCModule>>& all)
      : sc_core::sc_module(name), id_(id), log_(log), all_(all) {
    SC_HAS_PROCESS(SystemCModule);
    SC_METHOD(wake);
    sensitive << wakeup_;
    dont_initialize();
  }
  void schedule(Tick at, uint32_t arg) {
    queue_.push(Entry{at, next_order_++, arg});
    if (!waking_ && at < armed_for_) arm(at);
  }

 private:
  struct Entry {
    Tick at;
    uint64_t order;
    uint32_t arg;
    bool operator>(const Entry& o) const { return at != o.at ? at > o.at : order > o.order; }
  };
  void start_of_simulation() override { schedule((id_ % 5) * 1000, 0); }
  void arm(Tick at) {
    armed_for_ = at;
    wakeup_.notify(sc_core::sc_time::from_value(at - sc_core::sc_time_stamp().value()));
  }
  void wake() {
    waking_ = true;
    armed_for_ = kNever;
    const Tick t = sc_core::sc_time_stamp().value();
    while (!queue_.empty() && queue_.top().at <= t) {
      const Entry entry = queue_.top();
      queue_.pop();
      react(log_, id_, entry.arg, t, [this](uint32_t to, Tick at, uint32_t arg) { all_[to]->schedule(at, arg); });
    }
    waking_ = false;
    if (!queue_.empty()) arm(queue_.top().at);
  }
  uint32_t id_;
  Log& log_;
  std::vector<std::unique_ptr<SystemCModule>>& all_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_;
  sc_core::sc_event wakeup_;
  uint64_t next_order_ = 0;
  Tick armed_for_ = kNever;
  bool waking_ = false;
};

// How a run advances time once its modules are built.
enum class Drive { kOneStart, kSystemCSlices, kCallerSlices };

// The scenario on the EventKernel: in one sc_start; in sc_start slices of
// 2 000 ps, as a run with a VCD trace does; or driven by its caller in slices
// of 2 000 ps, as a run without one does (the slices end on instants: every
// delay is a multiple of 1 000 ps).
// With `hints`, kModulesLookingAhead modules that take the kernel's hints,
// and the log ends with a line of how many entries were hinted.
std::string run_on_kernel(Drive drive, bool hints = false) {
  Log log;
  log.modules = hints ? kModulesLookingAhead : kModules;
  EventKernel kernel("kernel");
  if (drive == Drive::kCallerSlices) kernel.drive_from_caller();
  std::vector<std::unique_ptr<KernelModule>> modules;
  for (uint32_t i = 0; i < log.modules; ++i) {
    modules.push_back(
        std::make_unique<KernelModule>(("m" + std::to_string(i)).c_str(), kernel, i, log, modules, hints));
  }
  switch (drive) {
    case Drive::kOneStart:
      sc_core::sc_start();
      break;
    case Drive::kSystemCSlices:
      sc_core::sc_start(sc_core::SC_ZERO_TIME);
      while (sc_core::sc_pending_activity()) sc_core::sc_start(sc_core::sc_time::from_value(2000));
      break;
    case Drive::kCallerSlices:
      sc_core::sc_start(sc_core::SC_ZERO_TIME);
      while (kernel.pending()) kernel.run_for(2000);
      break;
  }
  if (hints) log.text << "hinted " << log.hinted << " of " << kernel.counters().activations << '\n';
  return log.text.str();
}

std::string run_on_systemc(uint32_t module_count = kModules) {
  Log log;
  log.modules = module_count;
  std::vector<std::unique_ptr<SystemCModule>> modules;
  for (uint32_t i = 0; i < module_count; ++i) {
    modules.push_back(std::make_unique<SystemCModule>(("m" + std::to_string(i)).c_str(), i, log, modules));
  }
  sc_core::sc_start();
  return log.text.str();
}

// Each way in its own process (SystemC elaborates one design a process), at
// the model's resolution.
template <typename Run>
std::string in_child(Run run) {
  return testing::output_of_child([&run] {
    sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    return run();
  });
}

// The two logs are equal, byte for byte.
void expect_same_log(const std::string& kernel, const std::string& systemc) {
  EXPECT_EQ(kernel.size(), systemc.size());
  EXPECT_TRUE(kernel == systemc) << "the first difference is at byte "
                                 << std::mismatch(kernel.begin(), kernel.end(), systemc.begin(), systemc.end()).first -
                                        kernel.begin();
}

TEST(EventKernel, WakesModulesInTheOrderTheSystemCKernelDid) {
  const std::string kernel = in_child([] { return run_on_kernel(Drive::kOneStart); });
  const std::string systemc = in_child([] { return run_on_systemc(); });
  // The scenario is what it claims: many wake-ups, many at one instant.
  const auto lines = static_cast<uint64_t>(std::count(systemc.begin(), systemc.end(), '\n'));
  EXPECT_GT(lines, kBudget);
  expect_same_log(kernel, systemc);
}

TEST(EventKernel, InSystemCSlicesWakesModulesInTheSameOrder) {
  const std::string systemc = in_child([] { return run_on_systemc(); });
  EXPECT_GT(static_cast<uint64_t>(std::count(systemc.begin(), systemc.end(), '\n')), kBudget);
  expect_same_log(in_child([] { return run_on_kernel(Drive::kSystemCSlices); }), systemc);
}

TEST(EventKernel, DrivenByItsCallerWakesModulesInTheSameOrder) {
  const std::string systemc = in_child([] { return run_on_systemc(); });
  EXPECT_GT(static_cast<uint64_t>(std::count(systemc.begin(), systemc.end(), '\n')), kBudget);
  expect_same_log(in_child([] { return run_on_kernel(Drive::kCallerSlices); }), systemc);
}

// The kernel's look-ahead asks the module it will wake next for the lines
// its first entry names: a hint, which changes no order; and its guess of
// the next module is right for nearly every wake-up (a module woken after
// the guess was made for another may come first).
TEST(EventKernel, LookingAheadWakesModulesInTheSameOrderAndHintsNearlyEveryWakeUp) {
  std::string kernel = in_child([] { return run_on_kernel(Drive::kOneStart, true); });
  const std::string systemc = in_child([] { return run_on_systemc(kModulesLookingAhead); });
  const size_t last_line = kernel.rfind("hinted ");
  ASSERT_NE(last_line, std::string::npos);
  std::istringstream tally(kernel.substr(last_line + 7));
  uint64_t hinted = 0;
  uint64_t wakes = 0;
  std::string of;
  tally >> hinted >> of >> wakes;
  kernel.erase(last_line);
  const auto lines = static_cast<uint64_t>(std::count(systemc.begin(), systemc.end(), '\n'));
  EXPECT_GT(lines, kBudget);
  expect_same_log(kernel, systemc);
  EXPECT_GT(hinted, wakes * 9 / 10) << "of " << wakes << " wake-ups";
}

}  // namespace
}  // namespace ibsec
