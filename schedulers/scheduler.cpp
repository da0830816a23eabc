#include "schedulers/scheduler.h"

#include <stdexcept>

#include "core/errors.h"

namespace ibsec::schedulers {

WaitMode parse_wait_mode(const std::string& text, const std::string& field) {
  if (text == "auto") return WaitMode::kPolicy;
  if (text == "spin") return WaitMode::kSpin;
  if (text == "block") return WaitMode::kBlock;
  if (text == "spin-block") return WaitMode::kSpinBlock;
  throw ConfigError(field, "unknown wait mode '" + text + "'; known: auto, block, spin, spin-block");
}

namespace {

void read_policy(const ParameterValues& v, const std::string& key, SchedulerParams& s) {
  s.policy = v.text(key);
  SchedulerRegistry::get(s.policy, key);  // rejects unknown names
}

void read_wait(const ParameterValues& v, const std::string& key, SchedulerParams& s) {
  s.wait = parse_wait_mode(v.text(key), key);
}

void read_start_order(const ParameterValues& v, const std::string& key, SchedulerParams& s) {
  const std::string order = v.text(key);
  if (order != "random" && order != "job") throw ConfigError(key, "expected random or job, got '" + order + "'");
  s.random_start_order = order == "random";
}

ParameterSet<SchedulerParams> declare() {
  const SchedulerParams d;
  ParameterSet<SchedulerParams> set(d);
  set.custom("scheduler.policy", d.policy, "",
             "CPU scheduling of replayed processes: batch (a CPU each), local, sb, dcs-sb, pb or gang "
             "(`ibsec-engine registries`; docs/schedulers.md)",
             read_policy)
      .count("scheduler.cpus_per_node", &SchedulerParams::cpus_per_node, "CPUs",
             "CPUs per node shared by the processes placed on it", 0, 1024)
      .duration("scheduler.context_switch_us", &SchedulerParams::context_switch, TimeUnit::kUs,
                "CPU time lost when a CPU switches to another process (direct cost ~4 us on Linux 2.6, Li et al. "
                "2007, plus some cache refill)")
      .custom("scheduler.wait", wait_mode_name(d.wait), "",
              "how a process waits for communication: auto (the policy's), spin, block or spin-block", read_wait)
      .custom("scheduler.start_order", d.random_start_order ? "random" : "job", "",
              "order in which a node's run queue first holds its processes: random (per node, seeded) or job",
              read_start_order)
      .duration("scheduler.spin_us", &SchedulerParams::spin, TimeUnit::kUs,
                "spin time before blocking, SB and DCS-SB (§4.1)")
      .duration("scheduler.boost_period_ms", &SchedulerParams::boost_period, TimeUnit::kMs,
                "PB: period of the priority boost (§4.1)", Bound::kPositive)
      .duration("scheduler.gang_slot_ms", &SchedulerParams::gang_slot, TimeUnit::kMs,
                "gang: length of a time slot (§4.1)", Bound::kPositive)
      .check([](const ParameterValues&, SchedulerParams& s) {
        if (s.cpus_per_node == 0) throw ConfigError("scheduler.cpus_per_node", "a node needs at least one CPU");
      });
  return set;
}

}  // namespace

const ParameterSet<SchedulerParams>& scheduler_parameters() {
  static const ParameterSet<SchedulerParams> set = declare();
  return set;
}

const char* wait_mode_name(WaitMode mode) {
  switch (mode) {
    case WaitMode::kSpin:
      return "spin";
    case WaitMode::kBlock:
      return "block";
    case WaitMode::kSpinBlock:
      return "spin-block";
    case WaitMode::kPolicy:
      break;
  }
  return "auto";
}

IdVector<CpuId, NodeId> node_major_cpus(uint32_t nodes, uint32_t cpus_per_node) {
  IdVector<CpuId, NodeId> cpu_nodes;
  for (const NodeId n : ids<NodeId>(nodes)) {
    for (uint32_t i = 0; i < cpus_per_node; ++i) cpu_nodes.push_back(n);
  }
  return cpu_nodes;
}

Scheduler::Scheduler(std::string name, const SchedulerParams& params, const std::vector<ProcessPlacement>& processes,
                     const IdVector<CpuId, NodeId>& cpu_nodes)
    : name_(std::move(name)), params_(params) {
  for (const ProcessPlacement& where : processes) processes_.push_back(Process{where});
  for (const NodeId node : cpu_nodes) cpus_.push_back(Cpu{node});
}

void Scheduler::start(Tick now) {
  if (host_ == nullptr) throw std::logic_error("scheduler '" + name_ + "' started without a host");
  wait_ = params_.wait == WaitMode::kPolicy ? default_wait() : params_.wait;
  on_start(now);
}

void Scheduler::waiting(ProcessId p, Tick now) {
  Process& process = processes_[p];
  if (process.state != ProcessState::kRunning) broken("waits without a CPU", p);
  process.waiting = true;
  process.spin_since = std::max(now, process.on_cpu_since);
  if (wait_ == WaitMode::kBlock) {
    block(p, now);
  } else if (wait_ == WaitMode::kSpinBlock) {
    process.spin_timer = set_timer(now + params_.spin, kSpinTimeout, p.value());
  }
}

void Scheduler::wait_over(ProcessId p, Tick now) {
  Process& process = processes_[p];
  if (!process.waiting) broken("ends a wait it is not in", p);
  if (process.state == ProcessState::kRunning) stop_spinning(process, now);
  process.waiting = false;
  cancel_timer(process.spin_timer);
  if (process.state == ProcessState::kBlocked) {
    process.state = ProcessState::kReady;
    ++stats_.wakeups;
    on_wake(p, now);
  }
}

void Scheduler::exited(ProcessId p, Tick now) {
  const CpuId c = leave_cpu(p, ProcessState::kDone, "finishes", now);
  on_exit(p, c, now);
}

void Scheduler::message_arrived(ProcessId p, Tick now) {
  Process& process = processes_[p];
  if (process.state == ProcessState::kRunning || process.state == ProcessState::kDone) return;
  process.unconsumed = true;
  on_message(p, now);
}

void Scheduler::timer(TimerId timer, Tick now) {
  Timer& t = timers_[timer];
  const bool live = t.live;
  const uint32_t kind = t.kind;
  const uint32_t arg = t.arg;
  t.live = false;
  timers_.release(timer);
  if (!live) return;
  if (kind == kSpinTimeout) {
    const ProcessId p(arg);
    processes_[p].spin_timer = TimerId::none();
    block(p, now);
    return;
  }
  on_timer(kind, arg, now);
}

Tick Scheduler::run_on(CpuId c, ProcessId p, Tick now) {
  Cpu& cpu = cpus_[c];
  Process& process = processes_[p];
  if (!cpu.current.is_none()) broken("is dispatched on a busy CPU " + std::to_string(c.value()), p);
  if (process.state != ProcessState::kReady) broken("is dispatched but not ready", p);
  if (cpu.node != process.where.node) {
    broken("is dispatched on CPU " + std::to_string(c.value()) + " of another node", p);
  }
  Tick at = now;
  if (!cpu.last.is_none() && cpu.last != p) {
    at += params_.context_switch;
    ++stats_.context_switches;
    stats_.switching += params_.context_switch;
  }
  cpu.current = p;
  cpu.last = p;
  process.state = ProcessState::kRunning;
  process.cpu = c;
  process.on_cpu_since = at;
  process.unconsumed = false;
  if (process.waiting) {
    // Back on a CPU while still waiting: the wait starts over (a boosted
    // process that has not got its message yet spins, or blocks, again).
    process.spin_since = at;
    if (wait_ == WaitMode::kSpinBlock) process.spin_timer = set_timer(at + params_.spin, kSpinTimeout, p.value());
    if (wait_ == WaitMode::kBlock) process.spin_timer = set_timer(at, kSpinTimeout, p.value());
  }
  ++stats_.dispatches;
  host_->dispatch(p, at);
  return at;
}

ProcessId Scheduler::preempt_cpu(CpuId c, Tick now) {
  const ProcessId p = cpus_[c].current;
  if (p.is_none()) return p;
  take_off_cpu(p, now);
  processes_[p].state = ProcessState::kReady;
  ++stats_.preemptions;
  host_->preempt(p, now);
  return p;
}

void Scheduler::unblock(ProcessId p) {
  Process& process = processes_[p];
  if (process.state != ProcessState::kBlocked) return;
  process.state = ProcessState::kReady;
  ++stats_.wakeups;
}

void Scheduler::take_off_cpu(ProcessId p, Tick now) {
  Process& process = processes_[p];
  cancel_timer(process.spin_timer);
  if (process.waiting) stop_spinning(process, now);
  const Tick ran = now > process.on_cpu_since ? now - process.on_cpu_since : 0;
  stats_.on_cpu += ran;
  on_leave_cpu(p, ran);
  cpus_[process.cpu].current = ProcessId::none();
  process.cpu = CpuId::none();
}

void Scheduler::stop_spinning(Process& process, Tick now) {
  if (now > process.spin_since) stats_.spinning += now - process.spin_since;
  process.spin_since = now;
}

// A running process gives its CPU up, becoming `state`; returns the CPU.
CpuId Scheduler::leave_cpu(ProcessId p, ProcessState state, const char* doing, Tick now) {
  Process& process = processes_[p];
  if (process.state != ProcessState::kRunning) broken(std::string(doing) + " without a CPU", p);
  const CpuId c = process.cpu;
  take_off_cpu(p, now);
  process.state = state;
  return c;
}

void Scheduler::block(ProcessId p, Tick now) {
  const CpuId c = leave_cpu(p, ProcessState::kBlocked, "blocks", now);
  ++stats_.blocks;
  host_->preempt(p, now);
  on_block(p, c, now);
}

TimerId Scheduler::set_timer(Tick at, uint32_t kind, uint32_t arg) {
  const TimerId timer = timers_.acquire(Timer{kind, arg, true});
  host_->set_timer(at, timer);
  return timer;
}

// The timer's slot stays taken until it fires; it then does nothing.
void Scheduler::cancel_timer(TimerId& timer) {
  if (timer.is_none()) return;
  timers_[timer].live = false;
  timer = TimerId::none();
}

void Scheduler::broken(const std::string& what, ProcessId p) const {
  throw std::logic_error("scheduler '" + name_ + "': process " + std::to_string(p.value()) + " " + what);
}

nlohmann::ordered_json Scheduler::report() const {
  nlohmann::ordered_json doc;
  doc["policy"] = name_;
  doc["wait"] = wait_mode_name(wait_);
  doc["cpus"] = cpus_.size();
  doc["context_switch_us"] = static_cast<double>(params_.context_switch) / kTicksPerUs;
  doc["context_switches"] = stats_.context_switches;
  doc["dispatches"] = stats_.dispatches;
  doc["preemptions"] = stats_.preemptions;
  doc["blocks"] = stats_.blocks;
  doc["wakeups"] = stats_.wakeups;
  doc["boosts"] = stats_.boosts;
  doc["cpu_time_s"] = static_cast<double>(stats_.on_cpu) / (1000.0 * kTicksPerMs);
  doc["spin_time_s"] = static_cast<double>(stats_.spinning) / (1000.0 * kTicksPerMs);
  doc["switch_time_s"] = static_cast<double>(stats_.switching) / (1000.0 * kTicksPerMs);
  return doc;
}

}  // namespace ibsec::schedulers
