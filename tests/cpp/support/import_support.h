// What the trace-import tests (OTF2, DUMPI) share: a source imported beside
// itself, and the trace it gave as text lines per rank.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "traces/import/trace_import.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace ibsec::testing {

// Each rank's events as text lines, in the order the trace gives them.
inline std::map<uint32_t, std::vector<std::string>> events_by_rank(const std::string& path) {
  traces::TraceReader reader(path);
  std::map<uint32_t, std::vector<std::string>> lines;
  traces::TraceEvent e;
  while (reader.next(e)) lines[e.rank].push_back(traces::format_event(e, reader.header().version));
  return lines;
}

// Every event as a text line, in the trace's order.
inline std::vector<std::string> events_in_order(const std::string& path) {
  traces::TraceReader reader(path);
  std::vector<std::string> lines;
  traces::TraceEvent e;
  while (reader.next(e)) lines.push_back(traces::format_event(e, reader.header().version));
  return lines;
}

// `source` (an OTF2 anchor, a DUMPI .meta) imported as out.trace beside it; the output's path. `summary`, if
// given, receives what the import counted.
inline std::string imported(const std::string& source, traces::ImportSummary* summary = nullptr) {
  const std::string out = (std::filesystem::path(source).parent_path() / "out.trace").string();
  const auto result = traces::import_trace(source, out);
  if (summary) *summary = result;
  return out;
}

}  // namespace ibsec::testing
