#include "hosts/compute_clock.h"

#include "core/errors.h"

namespace ibsec::hosts {
namespace {

std::string listed(const std::vector<std::string>& hosts) {
  std::string text;
  for (const std::string& host : hosts) text += (text.empty() ? "" : ", ") + host;
  return text;
}

}  // namespace

ComputeChoice choose_compute_clock(ComputeClock asked, const traces::TraceHeader& header, const std::string& trace) {
  const bool has_cpu = header.cpu_clock != traces::CpuClock::kNone;
  const std::vector<std::string> crowded = header.oversubscribed_hosts();
  const std::string clock = std::string(traces::name(header.cpu_clock)) + " clock";
  ComputeChoice choice;
  if (asked == ComputeClock::kCpu) {
    if (!has_cpu) {
      throw ConfigError("replay.compute", "the trace " + trace + " has no CPU times (format version " +
                                              std::to_string(header.version) +
                                              "); capture it again with libibsec_capture, or use replay.compute=wall");
    }
    choice = {true, "replay.compute=cpu: the trace's CPU times (" + clock + ")", ""};
  } else if (asked == ComputeClock::kAuto && has_cpu && !crowded.empty()) {
    choice = {true,
              "replay.compute=auto: the capture's host " + listed(crowded) + " had more processes than CPUs; the " +
                  "trace's CPU times (" + clock + ")",
              ""};
  } else {
    choice.why = "replay.compute=" + std::string(name(asked)) + ": wall time" +
                 (asked == ComputeClock::kWall ? std::string()
                  : has_cpu                    ? ", the capture's hosts had a CPU per process"
                                               : ", the trace has no CPU times");
  }
  if (!choice.from_cpu && !crowded.empty()) {
    choice.warning = "compute from wall time of an oversubscribed capture: " + trace +
                     " was captured with more "
                     "processes than CPUs on host " +
                     listed(crowded) +
                     ", so its compute events include other "
                     "processes' time slices" +
                     (has_cpu ? "; replay.compute=cpu replays the CPU time it also recorded"
                              : "; capture it again with libibsec_capture, which records CPU time, and replay it with "
                                "replay.compute=auto (docs/replay.md)");
  }
  return choice;
}

}  // namespace ibsec::hosts
