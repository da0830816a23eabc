#include "traces/trace_summary.h"

#include <algorithm>

namespace ibsec::traces {

TraceSummary::TraceSummary(const TraceHeader& header) : header_(header), processes_(header.processes) {}

void TraceSummary::add(const TraceEvent& e) {
  ++events_;
  ++by_op_[static_cast<size_t>(e.op)];
  bytes_by_op_[static_cast<size_t>(e.op)] += e.bytes;
  ProcessSummary& p = processes_[e.rank];
  ++p.events;
  p.first_start_ns = std::min(p.first_start_ns, e.start_ns);
  p.last_end_ns = std::max(p.last_end_ns, e.end_ns);
  if (is_send(e.op)) {
    ++p.messages_sent;
    if (e.peer == e.rank) ++p.self_messages;
    p.bytes_sent += e.bytes;
    p.peers.insert(e.peer);
    message_sizes_.add(e.bytes);
  } else if (is_receive(e.op)) {
    ++p.messages_received;
    p.bytes_received += e.bytes;
    p.peers.insert(e.peer);
  } else if (is_collective(e.op)) {
    ++p.collectives;
    collective_sizes_.add(e.bytes);
  } else if (e.op == TraceOp::kCompute) {
    p.compute_ns += e.end_ns - e.start_ns;
    p.compute_cpu_ns += e.cpu_ns;
  }
}

uint64_t TraceSummary::duration_ns() const {
  uint64_t first = UINT64_MAX;
  uint64_t last = 0;
  for (const auto& p : processes_) {
    if (p.events == 0) continue;
    first = std::min(first, p.first_start_ns);
    last = std::max(last, p.last_end_ns);
  }
  return first == UINT64_MAX ? 0 : last - first;
}

// {"allreduce": {"calls": 10, "bytes": 80}, ...} for each collective op the
// trace calls, in op-code order.
nlohmann::ordered_json TraceSummary::collectives_by_op() const {
  nlohmann::ordered_json ops = nlohmann::ordered_json::object();
  for (size_t i = 0; i < by_op_.size(); ++i) {
    if (kTraceOps[i].collective && by_op_[i] != 0) {
      ops[std::string(kTraceOps[i].name)] = {{"calls", by_op_[i]}, {"bytes", bytes_by_op_[i]}};
    }
  }
  return ops;
}

nlohmann::ordered_json TraceSummary::to_json() const {
  nlohmann::ordered_json doc;
  doc["processes"] = header_.processes;
  doc["origin"] = header_.origin == TraceOrigin::kCaptured ? "captured" : "synthetic";
  doc["origin_text"] = header_.origin_text;
  doc["notes"] = header_.notes;
  doc["cpu_time"] = name(header_.cpu_clock);
  doc["oversubscribed_hosts"] = header_.oversubscribed_hosts();
  doc["communicators"] = header_.comms.size() + 1;
  doc["events"] = events_;
  nlohmann::ordered_json ops;
  for (size_t i = 0; i < by_op_.size(); ++i) {
    if (by_op_[i] != 0) ops[std::string(kTraceOps[i].name)] = by_op_[i];
  }
  doc["events_by_op"] = ops;
  // The counts of docs/running.md#counts that a trace holds: application messages and collective calls.
  uint64_t messages = 0;
  uint64_t self_messages = 0;
  uint64_t bytes = 0;
  uint64_t collective_calls = 0;
  nlohmann::ordered_json per_process = nlohmann::ordered_json::array();
  for (uint32_t r = 0; r < processes_.size(); ++r) {
    const ProcessSummary& p = processes_[r];
    messages += p.messages_sent;
    self_messages += p.self_messages;
    bytes += p.bytes_sent;
    collective_calls += p.collectives;
    per_process.push_back(
        {{"rank", r},
         {"events", p.events},
         {"messages_sent", p.messages_sent},
         {"bytes_sent", p.bytes_sent},
         {"messages_received", p.messages_received},
         {"bytes_received", p.bytes_received},
         {"collectives", p.collectives},
         {"peers", p.peers.size()},
         {"compute_ns", p.compute_ns},
         {"compute_cpu_ns", header_.cpu_clock == CpuClock::kNone ? nlohmann::ordered_json(nullptr)
                                                                 : nlohmann::ordered_json(p.compute_cpu_ns)},
         {"duration_ns", p.events == 0 ? 0 : p.last_end_ns - p.first_start_ns}});
  }
  doc["application_messages"] = messages;
  doc["self_messages"] = self_messages;
  doc["message_bytes"] = bytes;
  doc["collective_calls"] = collective_calls;
  doc["duration_ns"] = duration_ns();
  doc["message_sizes"] = message_sizes_.to_json("messages");
  doc["collective_sizes"] = collective_sizes_.to_json("calls");
  doc["collectives_by_op"] = collectives_by_op();
  doc["per_process"] = per_process;
  return doc;
}

}  // namespace ibsec::traces
