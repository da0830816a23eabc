// `ibsec-engine trace info|validate|convert`: look at, check and re-encode
// traces (docs/trace-format.md). Every command reads the whole trace through
// all checks, so `info` on a bad trace fails like `validate`.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "apps/commands.h"
#include "traces/trace_checker.h"
#include "traces/trace_reader.h"
#include "traces/trace_summary.h"
#include "traces/trace_writer.h"

namespace ibsec::apps {
namespace {

constexpr uint64_t kProgressEvery = 1u << 22;

// Reads and checks every event, handing each to `visit`, with a count on
// the terminal for long traces.
template <typename Visit>
void read_checked(traces::TraceReader& reader, Visit&& visit) {
  const bool show_progress = isatty(STDERR_FILENO) != 0;
  traces::check_whole_trace(reader, [&](const traces::TraceEvent& event) {
    visit(event);
    if (show_progress && reader.events_read() % kProgressEvery == 0) {
      std::fprintf(stderr, "\r  %llu events", static_cast<unsigned long long>(reader.events_read()));
    }
  });
  if (show_progress && reader.events_read() >= kProgressEvery) std::fprintf(stderr, "\r\033[K");
}

void print_info(const traces::TraceSummary& summary, const traces::TraceReader& reader) {
  const auto doc = summary.to_json();
  std::printf("%s: %s %s trace, %u processes, %s\n", reader.path().c_str(),
              reader.encoding() == traces::TraceEncoding::kBinary ? "binary" : "text",
              doc["origin"].get<std::string>().c_str(), reader.header().processes,
              doc["origin_text"].get<std::string>().c_str());
  std::printf("  events %llu, messages %llu, message bytes %llu, duration %.6f s\n",
              static_cast<unsigned long long>(summary.events()), doc["messages"].get<unsigned long long>(),
              doc["message_bytes"].get<unsigned long long>(), static_cast<double>(summary.duration_ns()) * 1e-9);
  std::printf("  %6s %10s %12s %14s %12s %6s %12s\n", "rank", "events", "msgs_sent", "bytes_sent", "collectives",
              "peers", "duration_s");
  for (const auto& p : doc["per_process"]) {
    std::printf("  %6u %10llu %12llu %14llu %12llu %6zu %12.6f\n", p["rank"].get<unsigned>(),
                p["events"].get<unsigned long long>(), p["messages_sent"].get<unsigned long long>(),
                p["bytes_sent"].get<unsigned long long>(), p["collectives"].get<unsigned long long>(),
                p["peers"].get<size_t>(), static_cast<double>(p["duration_ns"].get<uint64_t>()) * 1e-9);
  }
}

void add_info(CLI::App& trace) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd =
      trace.add_subcommand("info", "Summarise a trace: processes, events, messages, bytes, peers, duration");
  cmd->add_option("file", *path, "Trace file (text or binary, optionally .gz/.zst)")->required();
  cmd->add_flag("--json", *json, "Print the summary as JSON");
  cmd->callback([path, json] {
    traces::TraceReader reader(*path);
    traces::TraceSummary summary(reader.header());
    read_checked(reader, [&](const traces::TraceEvent& e) { summary.add(e); });
    if (*json) {
      std::cout << summary.to_json().dump(2) << "\n";
    } else {
      print_info(summary, reader);
    }
  });
}

void add_validate(CLI::App& trace) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd =
      trace.add_subcommand("validate", "Check a trace completely; exit 0 if it is valid, 2 with the first error");
  cmd->add_option("file", *path, "Trace file")->required();
  cmd->callback([path] {
    traces::TraceReader reader(*path);
    read_checked(reader, [](const traces::TraceEvent&) {});
    std::printf("%s: valid, %u processes, %llu events\n", path->c_str(), reader.header().processes,
                static_cast<unsigned long long>(reader.events_read()));
  });
}

void add_convert(CLI::App& trace) {
  auto in = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  CLI::App* cmd = trace.add_subcommand(
      "convert", "Re-encode a trace; OUT's name picks the form: .ibtb binary, else text; .gz/.zst compress");
  cmd->add_option("in", *in, "Trace to read")->required();
  cmd->add_option("out", *out, "Trace to write (replaced only once complete)")->required();
  cmd->callback([in, out] {
    traces::TraceReader reader(*in);
    traces::TraceWriter writer(*out, reader.header(), "out");
    read_checked(reader, [&](const traces::TraceEvent& e) { writer.write(e); });
    writer.finish();
  });
}

}  // namespace

void add_trace_command(CLI::App& app) {
  CLI::App* trace = app.add_subcommand("trace", "Inspect, check and convert traces");
  trace->require_subcommand(1);
  add_info(*trace);
  add_validate(*trace);
  add_convert(*trace);
}

}  // namespace ibsec::apps
