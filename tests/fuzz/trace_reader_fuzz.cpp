// libFuzzer target for the trace reader and checker (docs/trace-format.md).
//
// Each input is written to a file private to this process (the reader takes a
// path), opened with TraceReader, and read through check_whole_trace. A
// TraceError is the expected outcome for malformed input; anything else (an
// other exception, a crash, a sanitizer report, a leak, a hang) is a finding.
//
// A trace that is accepted is also written back with TraceWriter (binary and
// text) and read again: header and events must come back equal, as the
// format promises ("conversion text -> binary -> text gives back the same
// bytes"). A mismatch aborts.
//
// Known findings not yet fixed can be set aside, so that a long run looks
// for new ones, with IBSEC_FUZZ_KNOWN (comma-separated):
//   ios_failure  a std::ios_base::failure (corrupt compressed data) escaping
//                the reader instead of a TraceError
//   trailer256   the binary trailer check rejecting >= 256 events, which
//                fails the round trip of such traces
//
// Build and run: tests/fuzz/run_fuzz.sh [SECONDS]
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ios>
#include <string>
#include <vector>

#include "traces/trace_checker.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace {

using ibsec::traces::TraceError;
using ibsec::traces::TraceEvent;
using ibsec::traces::TraceHeader;
using ibsec::traces::TraceReader;

// Bounds the work per input: a compressed input can expand to many events.
constexpr uint64_t kMaxEvents = 1u << 16;
// Accepted traces up to this many events are round-tripped through the writer.
constexpr size_t kMaxRoundTripEvents = 1u << 12;

bool known(const char* finding) {
  static const std::string list = [] {
    const char* value = std::getenv("IBSEC_FUZZ_KNOWN");
    return std::string(",").append(value != nullptr ? value : "").append(",");
  }();
  return list.find(std::string(",").append(finding).append(",")) != std::string::npos;
}

// Thrown from the visitor to stop reading once kMaxEvents have been seen.
struct EnoughEvents {};

const std::string& scratch(const char* suffix) {
  static const std::string base = "/tmp/ibsec_trace_fuzz." + std::to_string(::getpid());
  static std::string paths[3] = {base + ".in", base + ".rt.ibtb", base + ".rt.trace"};
  if (suffix[0] == 'i') return paths[0];
  return suffix[0] == 'b' ? paths[1] : paths[2];
}

void write_input(const std::string& path, const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    std::perror("trace_reader_fuzz: cannot write the input file");
    std::abort();
  }
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
}

bool same_header(const TraceHeader& a, const TraceHeader& b) {
  return a.processes == b.processes && a.origin == b.origin && a.origin_text == b.origin_text && a.notes == b.notes &&
         a.comms == b.comms;
}

[[noreturn]] void round_trip_failed(const std::string& what, const std::string& detail) {
  std::fprintf(stderr, "trace_reader_fuzz: round trip through %s changed the trace: %s\n", what.c_str(),
               detail.c_str());
  std::abort();
}

// Writes the accepted trace with TraceWriter and reads it back.
void round_trip(const TraceHeader& header, const std::vector<TraceEvent>& events, const std::string& path) {
  {
    ibsec::traces::TraceWriter writer(path, header);
    for (const auto& e : events) writer.write(e);
    writer.finish();
  }
  std::vector<TraceEvent> again;
  try {
    TraceReader reader(path);
    if (!same_header(reader.header(), header)) round_trip_failed(path, "the header differs");
    ibsec::traces::check_whole_trace(reader, [&](const TraceEvent& e) { again.push_back(e); });
  } catch (const TraceError& e) {
    round_trip_failed(path, std::string("the written trace is rejected: ") + e.what());
  }
  if (again.size() != events.size()) {
    round_trip_failed(path, std::to_string(events.size()) + " events became " + std::to_string(again.size()));
  }
  for (size_t i = 0; i < events.size(); ++i) {
    if (!(again[i] == events[i])) {
      round_trip_failed(path, "event " + std::to_string(i) + " '" + ibsec::traces::format_event(events[i]) +
                                  "' came back as '" + ibsec::traces::format_event(again[i]) + "'");
    }
  }
}

// Reads and checks the whole trace; true when it is accepted. Only TraceError
// (and the stop after kMaxEvents) is caught here, so that any other
// exception terminates with the stack of the place that threw it.
bool read_whole(const std::string& path, TraceHeader& header, std::vector<TraceEvent>& events) {
  uint64_t seen = 0;
  try {
    TraceReader reader(path);
    header = reader.header();
    ibsec::traces::check_whole_trace(reader, [&](const TraceEvent& e) {
      if (++seen > kMaxEvents) throw EnoughEvents{};
      if (events.size() <= kMaxRoundTripEvents) events.push_back(e);
    });
    return true;
  } catch (const TraceError&) {
    // Malformed input, reported as it should be.
  } catch (const EnoughEvents&) {
    // Long (decompressed) input: stop here.
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = scratch("in");
  write_input(path, data, size);
  std::vector<TraceEvent> events;
  TraceHeader header;
  bool accepted = false;
  if (known("ios_failure")) {
    try {
      accepted = read_whole(path, header, events);
    } catch (const std::ios_base::failure&) {
    }
  } else {
    accepted = read_whole(path, header, events);
  }
  if (accepted && events.size() >= 256 && known("trailer256")) return 0;
  if (accepted && events.size() <= kMaxRoundTripEvents) {
    round_trip(header, events, scratch("binary"));
    round_trip(header, events, scratch("text"));
  }
  return 0;
}
