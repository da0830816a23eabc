// Traces for tests: read one through every check, or convert it to another
// encoding, as `ibsec-engine trace validate` and `trace convert` do.
#pragma once

#include <string>
#include <vector>

#include "traces/trace_checker.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace ibsec::testing {

// Every event of the trace at `path`; its header into `header` if given.
inline std::vector<traces::TraceEvent> read_all(const std::string& path, traces::TraceHeader* header = nullptr) {
  traces::TraceReader reader(path);
  std::vector<traces::TraceEvent> events;
  traces::check_whole_trace(reader, [&](const traces::TraceEvent& e) { events.push_back(e); });
  if (header != nullptr) *header = reader.header();
  return events;
}

// What reading the trace at `path` through every check says after the file's
// name (":12: field 'peer': ..."), or "accepted".
inline std::string read_error(const std::string& path) {
  try {
    read_all(path);
  } catch (const traces::TraceError& e) {
    return std::string(e.what()).substr(path.size());
  }
  return "accepted";
}

// Writes the trace at `from` to `to`, in the encoding its name asks for; returns `to`.
inline std::string convert_to(const std::string& from, const std::string& to) {
  traces::TraceReader reader(from);
  traces::TraceWriter writer(to, reader.header());
  traces::check_whole_trace(reader, [&](const traces::TraceEvent& e) { writer.write(e); });
  writer.finish();
  return to;
}

}  // namespace ibsec::testing
