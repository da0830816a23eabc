// `ibsec-engine trace info|validate|convert|import`: look at, check, re-encode
// and import traces (docs/trace-format.md). Every command reads the whole trace through
// all checks, so `info` on a bad trace fails like `validate`.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "apps/commands.h"
#include "core/atomic_file.h"
#include "traces/import/import_cache.h"
#include "traces/import/trace_import.h"
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

// "45440 messages, min 8, q1 8, median 2800, q3 2800, max 2800".
void print_quartiles(const char* title, const char* what, const traces::SizeDistribution& sizes) {
  const auto q = sizes.quartiles();
  if (!q) {
    std::printf("  %s: no %s\n", title, what);
    return;
  }
  std::printf("  %s: %llu %s, min %llu, q1 %llu, median %llu, q3 %llu, max %llu%s\n", title,
              static_cast<unsigned long long>(sizes.count()), what, static_cast<unsigned long long>(q->min),
              static_cast<unsigned long long>(q->q1), static_cast<unsigned long long>(q->median),
              static_cast<unsigned long long>(q->q3), static_cast<unsigned long long>(q->max),
              sizes.exact() ? "" : " (quartiles within 1/128: too many distinct sizes to keep)");
}

// One row per log2 bucket from the smallest to the largest either distribution has.
void print_histograms(const traces::SizeDistribution& messages, const traces::SizeDistribution& collectives) {
  std::map<size_t, std::pair<uint64_t, uint64_t>> rows;  // bucket -> (messages, collective calls)
  for (const auto& b : messages.log2_histogram()) rows[traces::SizeDistribution::log2_bucket(b.from)].first = b.count;
  for (const auto& b : collectives.log2_histogram()) {
    rows[traces::SizeDistribution::log2_bucket(b.from)].second = b.count;
  }
  if (rows.empty()) return;
  std::printf("  %-24s %12s %17s\n", "bytes (log2 buckets)", "messages", "collective calls");
  for (size_t i = rows.begin()->first; i <= rows.rbegin()->first; ++i) {
    const auto counts = rows.contains(i) ? rows[i] : std::pair<uint64_t, uint64_t>{0, 0};
    std::printf("  %-24s %12llu %17llu\n", traces::bucket_label(traces::SizeDistribution::log2_bounds(i)).c_str(),
                static_cast<unsigned long long>(counts.first), static_cast<unsigned long long>(counts.second));
  }
}

void print_collective_ops(const nlohmann::ordered_json& ops) {
  if (ops.empty()) return;
  std::printf("  %-24s %12s %17s\n", "collective op", "calls", "bytes");
  for (const auto& [name, op] : ops.items()) {
    std::printf("  %-24s %12llu %17llu\n", name.c_str(), op["calls"].get<unsigned long long>(),
                op["bytes"].get<unsigned long long>());
  }
}

// Compute time over all processes: wall, and CPU where the trace has it; and
// whether the capture's hosts were oversubscribed (docs/replay.md, "Compute time").
void print_compute(const nlohmann::ordered_json& doc) {
  double wall = 0;
  double cpu = 0;
  for (const auto& p : doc["per_process"]) {
    wall += p["compute_ns"].get<double>();
    if (!p["compute_cpu_ns"].is_null()) cpu += p["compute_cpu_ns"].get<double>();
  }
  std::printf("  compute (all processes) %.6f s wall", wall * 1e-9);
  if (doc["cpu_time"] != "none") {
    std::printf(", %.6f s CPU (%s clock, %.0f %% of wall)", cpu * 1e-9, doc["cpu_time"].get<std::string>().c_str(),
                wall > 0 ? 100.0 * cpu / wall : 0.0);
  } else {
    std::printf(", no CPU times");
  }
  std::printf("%s\n", doc["oversubscribed_hosts"].empty() ? "" : "; captured oversubscribed");
}

void print_info(const traces::TraceSummary& summary, const traces::TraceReader& reader) {
  const auto doc = summary.to_json();
  std::printf("%s: %s %s trace, %u processes, %s\n", reader.path().c_str(),
              reader.encoding() == traces::TraceEncoding::kBinary ? "binary" : "text",
              doc["origin"].get<std::string>().c_str(), reader.header().processes,
              doc["origin_text"].get<std::string>().c_str());
  const auto n = [&](const char* name) { return doc[name].get<unsigned long long>(); };
  std::printf(
      "  events %llu; application messages %llu (%llu to the sender itself, no network), message bytes "
      "%llu; collective calls %llu; duration %.6f s\n",
      static_cast<unsigned long long>(summary.events()), n("application_messages"), n("self_messages"),
      n("message_bytes"), n("collective_calls"), static_cast<double>(summary.duration_ns()) * 1e-9);
  print_compute(doc);
  std::printf("  %6s %10s %12s %14s %12s %6s %12s\n", "rank", "events", "msgs_sent", "bytes_sent", "coll_calls",
              "peers", "duration_s");
  for (const auto& p : doc["per_process"]) {
    std::printf("  %6u %10llu %12llu %14llu %12llu %6zu %12.6f\n", p["rank"].get<unsigned>(),
                p["events"].get<unsigned long long>(), p["messages_sent"].get<unsigned long long>(),
                p["bytes_sent"].get<unsigned long long>(), p["collectives"].get<unsigned long long>(),
                p["peers"].get<size_t>(), static_cast<double>(p["duration_ns"].get<uint64_t>()) * 1e-9);
  }
  print_quartiles("point-to-point message bytes", "messages", summary.message_sizes());
  print_quartiles("collective bytes per call", "calls", summary.collective_sizes());
  print_histograms(summary.message_sizes(), summary.collective_sizes());
  print_collective_ops(doc["collectives_by_op"]);
}

// The ibsec trace to read for PATH: PATH itself, or for another tool's trace
// (OTF2, DUMPI) its import, made once into the cache (traces/import/import_cache.h).
std::string readable_trace(const std::string& path, const std::string& field) {
  if (!traces::is_import_source(path)) return path;
  return traces::cached_import(path, field,
                               [](const traces::CachedImport& i) {
                                 std::fprintf(stderr, "%s\n", traces::import_announcement(i).c_str());
                               })
      .trace;
}

constexpr const char* kTraceOrSource =
    "Trace file (text or binary, optionally .gz/.zst), or another tool's trace: an OTF2 anchor (*.otf2) or a DUMPI "
    ".meta file, read through its import, made once into the cache (docs/importing.md)";

void add_info(CLI::App& trace) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd =
      trace.add_subcommand("info",
                           "Summarise a trace: processes, events, messages, bytes, peers, duration; message sizes "
                           "and collective bytes per call (quartiles, log2 histogram); calls and bytes per collective "
                           "op");
  cmd->add_option("file", *path, kTraceOrSource)->required();
  cmd->add_flag("--json", *json, "Print the summary as JSON");
  cmd->callback([path, json] {
    traces::TraceReader reader(readable_trace(*path, "file"));
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
  cmd->add_option("file", *path, kTraceOrSource)->required();
  cmd->callback([path] {
    traces::TraceReader reader(readable_trace(*path, "file"));
    read_checked(reader, [](const traces::TraceEvent&) {});
    std::printf("%s: valid, %u processes, %llu events\n", path->c_str(), reader.header().processes,
                static_cast<unsigned long long>(reader.events_read()));
  });
}

// What a trace file's name makes of it (traces/trace_reader.h): binary or text, compressed or not.
std::string trace_form(const std::string& path) {
  const std::string encoding = traces::encoding_for_path(path) == traces::TraceEncoding::kBinary ? "binary" : "text";
  switch (traces::compression_for_path(path)) {
    case traces::TraceCompression::kGzip:
      return encoding + ", gzip-compressed";
    case traces::TraceCompression::kZstd:
      return encoding + ", zstd-compressed";
    case traces::TraceCompression::kNone:
      break;
  }
  return encoding;
}

// "1.23 MiB": a file size in the binary unit that suits it.
std::string human_bytes(uintmax_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.3g %s", value, kUnits[unit]);
  return text;
}

void add_convert(CLI::App& trace) {
  auto in = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  CLI::App* cmd = trace.add_subcommand(
      "convert", "Re-encode a trace; OUT's name picks the form: .ibtb binary, else text; .gz/.zst compress");
  cmd->add_option("in", *in, kTraceOrSource)->required();
  cmd->add_option("out", *out, "Trace to write (replaced only once complete); - for standard output")->required();
  cmd->callback([in, out] {
    CommandFiles files;  // the output is checked first, and may not be the trace it is converted from
    for (const std::string& file : traces::import_source_files(*in)) files.input(file, "in");
    files.output(*out, "out");
    files.check();
    traces::TraceReader reader(readable_trace(*in, "in"));
    traces::TraceWriter writer(*out, reader.header(), "out");
    read_checked(reader, [&](const traces::TraceEvent& e) { writer.write(e); });
    writer.finish();
    // Said only of a file: written to standard output (-) the trace is the output.
    if (*out != "-") {
      std::printf("%s: wrote %llu events of %u processes as %s (%s), from %s\n", out->c_str(),
                  static_cast<unsigned long long>(reader.events_read()), reader.header().processes,
                  trace_form(*out).c_str(), human_bytes(std::filesystem::file_size(*out)).c_str(), in->c_str());
    }
  });
}

// What the import could not express or mended, on stderr as in the notes.
void print_import_tally(const std::string& source, const traces::ImportTally& tally) {
  for (const auto& [call, count] : tally.not_imported) {
    std::fprintf(stderr, "%s: not imported: %s (%llu calls)\n", source.c_str(), call.c_str(),
                 static_cast<unsigned long long>(count));
  }
  for (const auto& [what, count] : tally.repairs) {
    std::fprintf(stderr, "%s: repaired %llu: %s\n", source.c_str(), static_cast<unsigned long long>(count),
                 what.c_str());
  }
}

void add_import(CLI::App& trace) {
  auto source = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto cached = std::make_shared<bool>(false);
  CLI::App* cmd = trace.add_subcommand(
      "import",
      "Write another tool's trace (OTF2: Score-P, EZTrace; DUMPI: SST's sst-dumpi) as an ibsec trace, saying what "
      "was left out or repaired (docs/importing.md)");
  cmd->add_option("source", *source, "OTF2 anchor file (*.otf2), or DUMPI .meta file (or its folder)")->required();
  auto* out_option = cmd->add_option("--out", *out, "Trace to write: .ibtb binary, else text; .gz/.zst compress");
  cmd->add_flag("--cached", *cached,
                "Instead of --out: import into the cache (once: `run --trace SOURCE` reads the same) and print the "
                "cached trace's path")
      ->excludes(out_option);
  cmd->callback([source, out, cached] {
    if (*cached) {
      std::printf("%s\n", readable_trace(*source, "source").c_str());
      return;
    }
    if (out->empty()) throw ConfigError("--out", "give the trace to write (or --cached)");
    const auto summary = traces::import_trace(*source, *out);
    print_import_tally(*source, summary.tally);
    if (*out != "-") {
      std::printf("%s: imported %s, %u processes, %llu events, %llu messages (%llu bytes), %llu collective calls\n",
                  out->c_str(), summary.format.c_str(), summary.processes,
                  static_cast<unsigned long long>(summary.events),
                  static_cast<unsigned long long>(summary.tally.messages),
                  static_cast<unsigned long long>(summary.tally.message_bytes),
                  static_cast<unsigned long long>(summary.tally.collective_calls));
    }
  });
}

}  // namespace

void add_trace_command(CLI::App& app) {
  CLI::App* trace = app.add_subcommand("trace", "Inspect, check and convert traces");
  trace->require_subcommand(1);
  add_info(*trace);
  add_validate(*trace);
  add_convert(*trace);
  add_import(*trace);
}

}  // namespace ibsec::apps
