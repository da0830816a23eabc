#include "traces/trace_header.h"

#include <numeric>

namespace ibsec::traces {
namespace {

Communicator indexed(std::vector<uint32_t> members) {
  Communicator comm;
  comm.rank_of.reserve(members.size());
  for (size_t i = 0; i < members.size(); ++i) comm.rank_of.emplace(members[i], static_cast<uint32_t>(i));
  comm.members = std::move(members);
  return comm;
}

}  // namespace

std::map<uint32_t, Communicator> TraceHeader::communicators() const {
  std::map<uint32_t, Communicator> all;
  std::vector<uint32_t> world(processes);
  std::iota(world.begin(), world.end(), 0u);
  all.emplace(0, indexed(std::move(world)));
  for (const auto& [id, members] : comms) all.emplace(id, indexed(members));
  return all;
}

std::vector<std::string> TraceHeader::oversubscribed_hosts() const {
  constexpr std::string_view kHost = "host ";
  constexpr std::string_view kOversubscribed = " oversubscribed";
  std::vector<std::string> hosts;
  for (const std::string& note : notes) {
    const std::string_view text = note;
    if (!text.starts_with(kHost) || !text.ends_with(kOversubscribed)) continue;
    const std::string_view rest = text.substr(kHost.size());
    hosts.emplace_back(rest.substr(0, rest.find(' ')));
  }
  return hosts;
}

std::string format_header(const TraceHeader& header) {
  std::string text = "ibsec-trace " + std::to_string(header.written_version()) + "\n";
  text += "processes " + std::to_string(header.processes) + "\n";
  text += "time_unit ns\n";
  text += std::string("origin ") + (header.origin == TraceOrigin::kCaptured ? "captured" : "synthetic");
  if (!header.origin_text.empty()) text += " " + header.origin_text;
  text += "\n";
  if (header.cpu_clock != CpuClock::kNone) text += "cpu_time " + std::string(name(header.cpu_clock)) + "\n";
  for (const auto& note : header.notes) text += note.empty() ? "note\n" : "note " + note + "\n";
  for (const auto& [id, members] : header.comms) {
    text += "comm " + std::to_string(id);
    for (uint32_t r : members) {
      text += ' ';
      text += std::to_string(r);
    }
    text += "\n";
  }
  return text + "events\n";
}

}  // namespace ibsec::traces
