// `ibsec-engine run`: one cycle-level simulation of the cluster.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>

#include "apps/commands.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "nic/security_mode.h"
#include "sim/cluster.h"
#include "sim/config.h"
#include "sim/imported_traces.h"

namespace ibsec::apps {
namespace {

struct RunOptions {
  std::string config_path;
  std::vector<std::string> overrides;
  std::string out = "-";  // standard output
  std::optional<std::string> perf_out;
  std::string trace;
  std::string attack;
  bool quiet = false;
  bool force = false;
};

void write_atomically(const std::string& path, const std::string& field, const std::string& text) {
  AtomicFile file(path, field);
  file.stream() << text;
  file.commit();
}

// "812 ns", "6.75 µs", "3.71 s": a time in nanoseconds in the unit that suits it.
std::string human_time(double ns) {
  static constexpr struct {
    double ns;
    const char* name;
  } kUnits[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1.0, "ns"}};
  char text[48];
  for (const auto& unit : kUnits) {
    if (ns >= unit.ns || unit.ns == 1.0) {
      std::snprintf(text, sizeof text, "%.3g %s", ns / unit.ns, unit.name);
      break;
    }
  }
  return text;
}

// Progress on standard error, about once a second: on a terminal one line rewritten in place; into a file or
// pipe (a batch job's log) a new line every kProgressLinePeriod, never a carriage return. With synthetic
// traffic the work is known (warm-up + measured messages, each to be delivered), so the line gives the share
// delivered and an ETA.
constexpr std::chrono::seconds kProgressLinePeriod{10};

struct ProgressState {
  bool terminal = false;
  uint64_t messages_total = 0;  // 0: not known (a replay)
  std::chrono::steady_clock::time_point start;
  std::chrono::steady_clock::time_point last_line;
};
ProgressState progress_state;

void start_progress(const sim::SimConfig& config) {
  progress_state.terminal = isatty(STDERR_FILENO) != 0;
  progress_state.messages_total = config.trace.replays() ? 0 : config.traffic.warmup_messages + config.traffic.messages;
  progress_state.start = progress_state.last_line = std::chrono::steady_clock::now();
}

void report_progress(const sim::Cluster& cluster, Tick now) {
  const auto wall_now = std::chrono::steady_clock::now();
  if (!progress_state.terminal && wall_now - progress_state.last_line < kProgressLinePeriod) return;
  progress_state.last_line = wall_now;
  const auto& s = cluster.statistics();
  std::string share;
  if (progress_state.messages_total > 0) {
    const double done =
        std::min(1.0, static_cast<double>(s.messages_delivered()) / static_cast<double>(progress_state.messages_total));
    const double elapsed = std::chrono::duration<double>(wall_now - progress_state.start).count();
    char text[96];
    std::snprintf(text, sizeof text, ", %.0f %% of the messages delivered", 100.0 * done);
    share = text;
    if (done > 0.0) share += ", ETA " + human_time(1e9 * elapsed * (1.0 - done) / done);
  }
  std::fprintf(stderr, "%s  simulated %s, %llu packets delivered%s%s", progress_state.terminal ? "\r" : "",
               human_time(ns_from_ticks(now)).c_str(), static_cast<unsigned long long>(s.packets_delivered()),
               share.c_str(), progress_state.terminal ? "\x1b[K" : "\n");
  std::fflush(stderr);
}

long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// The attack section of the result, as a table on standard error, then which of the cards' checks dropped
// packets (the statistics count drops per check, not per attack kind; functional crypto only).
void print_attack_summary(const nlohmann::ordered_json& attack, const nlohmann::ordered_json& statistics) {
  const auto n = [](const nlohmann::ordered_json& v) { return static_cast<unsigned long long>(v.get<uint64_t>()); };
  std::fprintf(stderr, "  attack on %s under %s: %llu packets seen\n", attack["link"].get<std::string>().c_str(),
               attack["security"].get<std::string>().c_str(), n(attack["packets_seen"]));
  std::fprintf(stderr, "    %-8s %10s %10s %10s\n", "kind", "attacked", "detected", "delivered");
  for (const auto& [kind, counts] : attack["kinds"].items()) {
    std::fprintf(stderr, "    %-8s %10llu %10llu %10llu\n", kind.c_str(), n(counts["attacked"]), n(counts["detected"]),
                 n(counts["delivered"]));
  }
  std::fprintf(stderr, "    delivered despite attack %llu, false drops %llu, snooped %llu (%llu plaintext)\n",
               n(attack["delivered_despite_attack"]), n(attack["false_drops"]), n(attack["snooped"]),
               n(attack["snooped_plaintext"]));
  if (statistics.contains("packets_dropped_auth")) {
    std::fprintf(stderr, "    dropped by the cards' checks: tag %llu, replay window %llu, key unwrap %llu\n",
                 n(statistics["packets_dropped_auth"]), n(statistics["packets_dropped_replay"]),
                 n(statistics["packets_dropped_key"]));
  }
}

// The per-component tables (sim.detail) beside the result, each listed in
// the result's "detail" section by its file name (relative to the result).
void write_detail_tables(const sim::Cluster& cluster, const sim::RunOutcome& outcome, const std::string& out,
                         nlohmann::ordered_json& result) {
  for (const sim::DetailTable& table : cluster.detail_tables(outcome)) {
    const std::string path = sim::detail_table_path(out, table.name());
    AtomicFile file(path, "sim.detail");
    table.write_csv(file.stream());
    file.commit();
    result["detail"][table.name()] = table.describe(std::filesystem::path(path).filename().string());
  }
}

// A latency statistic ("-" when the run measured no packet: the result holds null).
std::string latency_text(const nlohmann::ordered_json& statistics, const std::string& name) {
  const auto it = statistics.find(name);
  return it == statistics.end() || it->is_null() ? "-" : human_time(it->get<double>());
}

unsigned long long count_of(const nlohmann::ordered_json& section, const char* name) {
  return static_cast<unsigned long long>(section[name].get<uint64_t>());
}

// What the traces asked for and what it became on the network, each number under its name
// (docs/running.md#counts): application messages and collective calls, then the network messages they made.
void print_replay_counts(const nlohmann::ordered_json& replay) {
  const auto n = [&](const char* name) { return count_of(replay, name); };
  std::fprintf(stderr,
               "  traces: %llu application messages (%llu to the sender itself, no network), %llu collective calls; "
               "network messages %llu = %llu point-to-point + %llu from collectives + %llu control (rendezvous)\n",
               n("application_messages"), n("self_messages"), n("collective_calls"), n("network_messages"),
               n("application_messages") - n("self_messages"), n("collective_messages"), n("control_messages"));
}

// Delivered network messages; with synthetic traffic, how many of them were measured (traffic.messages) and
// how many warmed up (traffic.warmup_messages), since a run delivers both.
std::string delivered_text(const nlohmann::ordered_json& s, bool replay) {
  const unsigned long long delivered = count_of(s, "messages_delivered");
  const unsigned long long measured = count_of(s, "messages_measured");
  std::string text = "delivered " + std::to_string(delivered) + " network messages";
  if (!replay) {
    text += " (" + std::to_string(measured) + " measured after " + std::to_string(delivered - measured) + " warm-up)";
  }
  return text + " in " + std::to_string(count_of(s, "packets_delivered")) + " packets";
}

// The SKC hit rate as the summary shows it. A card without a key cache (NoSecurity, NoSKC) has no hit rate:
// its 0 in the result counts look-ups that had no cache to hit, which "hit rate 0.000" would misread.
std::string skc_hit_rate_text(const nlohmann::ordered_json& statistics, const nic::SecurityMode& security) {
  if (security.path != nic::KeyPath::kCache) return "no SKC (" + security.name() + ")";
  const auto& hit_rate = statistics["skc_hit_rate"];
  if (hit_rate.is_null()) return "SKC hit rate - (no key look-ups)";
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", hit_rate.get<double>());
  return std::string("SKC hit rate ") + text;
}

// The run in three lines on standard error (four for a replay, its counts first): deliveries and throughput,
// latency (network latency, and the per-packet latency when the card reports it), hit rate and whether the
// network drained; then the warnings.
void print_run_summary(const nlohmann::ordered_json& result, const nic::SecurityMode& security) {
  const auto& s = result["statistics"];
  const auto count = [&](const char* name) { return count_of(s, name); };
  const bool replay = result.contains("replay");
  if (replay) print_replay_counts(result["replay"]);
  std::fprintf(stderr, "  %s; accepted throughput %.3g of %.3g offered (%.3g Gb/s per node)\n",
               delivered_text(s, replay).c_str(), s["accepted_throughput"].get<double>(),
               s["offered_throughput"].get<double>(), s["accepted_gbps_per_node"].get<double>());
  std::fprintf(stderr, "  latency mean %s, p99 %s over %llu measured packets",
               latency_text(s, "latency_mean_ns").c_str(), latency_text(s, "latency_p99_ns").c_str(),
               count("packets_measured"));
  if (s.contains("packet_latency_mean_ns")) {
    std::fprintf(stderr, "; per-packet latency mean %s, p99 %s", latency_text(s, "packet_latency_mean_ns").c_str(),
                 latency_text(s, "packet_latency_p99_ns").c_str());
  }
  std::fprintf(stderr, "\n");
  std::fprintf(stderr, "  %s; %s\n", skc_hit_rate_text(s, security).c_str(),
               s["drained"].get<bool>() ? "drained" : "did not drain");
  for (const auto& warning : result["warnings"]) {
    // Not draining is reported as the run's error below.
    if (warning["kind"] != "not_drained") {
      std::fprintf(stderr, "ibsec-engine: warning: %s\n", warning["message"].get<std::string>().c_str());
    }
  }
}

int run(const RunOptions& o) {
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  std::vector<std::string> overrides = o.overrides;
  if (!o.trace.empty()) {
    for (const std::string& item : overrides) {
      if (item.starts_with("trace.file=") || item.starts_with("trace.jobs=")) {
        throw ConfigError("--trace",
                          "the trace is also given as --set " + item.substr(0, item.find('=')) + ": give it one way");
      }
    }
    overrides.push_back("trace.file=" + nlohmann::json(o.trace).dump());
  }
  sim::SimConfig config = sim::load_config(o.config_path, o.attack, overrides);
  config.ignore_memory_estimate = o.force;
  // Every output is checked before the run, so that none is found unwritable after it, and none is another
  // output or one of the inputs (which writing it would destroy).
  CommandFiles files;
  files.input(o.config_path, "config");
  files.input(o.attack, "--attack");
  files.output(o.out, "--out");
  if (o.perf_out) files.output(*o.perf_out, "--perf-json");
  sim::add_run_files(config, o.out, files);
  files.check();
  sim::use_cached_imports(config, [&](const traces::CachedImport& i) {
    if (!o.quiet) std::fprintf(stderr, "%s\n", traces::import_announcement(i).c_str());
  });
  if (!o.quiet) {
    for (const traces::CachedImport& i : config.trace.imports) {
      if (!i.imported_now)
        std::fprintf(stderr, "%s: replaying its import from the cache, %s\n", i.source.c_str(), i.trace.c_str());
    }
  }
  const auto wall_start = std::chrono::steady_clock::now();
  sim::Cluster cluster(config);
  start_progress(config);
  const sim::RunOutcome outcome = cluster.run(o.quiet ? nullptr : report_progress);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  nlohmann::ordered_json result = cluster.result(outcome);
  write_detail_tables(cluster, outcome, o.out, result);
  const std::string text = result.dump(2) + "\n";
  write_atomically(o.out, "--out", text);
  const double delivered = static_cast<double>(cluster.statistics().packets_delivered());
  const nlohmann::ordered_json perf{
      {"wall_seconds", wall},
      {"packets_delivered", cluster.statistics().packets_delivered()},
      {"packets_per_second", delivered / wall},
      {"kernel_activations_per_packet", static_cast<double>(cluster.kernel().activations) / std::max(delivered, 1.0)},
      {"peak_rss_mib", static_cast<double>(peak_rss_kib()) / 1024.0}};
  if (o.perf_out) write_atomically(*o.perf_out, "--perf-json", perf.dump(2) + "\n");
  if (!o.quiet) {
    std::fprintf(stderr, "%s  %llu packets in %.2f s wall (%.0f packets/s), peak memory %.0f MiB%s\n",
                 progress_state.terminal ? "\r\x1b[K" : "",
                 static_cast<unsigned long long>(cluster.statistics().packets_delivered()), wall, delivered / wall,
                 static_cast<double>(peak_rss_kib()) / 1024.0, o.out == "-" ? "" : (", result in " + o.out).c_str());
  }
  if (!o.quiet) print_run_summary(result, config.nic.security);
  if (!o.quiet && result.contains("attack")) print_attack_summary(result["attack"], result["statistics"]);
  if (!outcome.drained) {
    const std::string stalled = cluster.host().stall_report();
    if (!stalled.empty()) {
      std::cerr << "ibsec-engine: error: the replay could not finish; processes still waiting:\n" << stalled;
    } else {
      std::cerr << "ibsec-engine: error: the network did not drain: " << outcome.packets_stuck
                << " packets still inside after sim.drain_timeout_us (deadlock or overload); results were written\n";
    }
    return 3;
  }
  return 0;
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run one cycle-level simulation of the cluster and write its result");
  cmd->add_option("config", options->config_path, "JSON configuration file (omit for the defaults)");
  cmd->add_option("--set", options->overrides, "Override one parameter: key=value (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--out,-o", options->out, "Result file (JSON); - or omitted: standard output");
  cmd->add_option(
      "--trace", options->trace,
      "Replay this trace instead of synthetic traffic (sets trace.file); another tool's (an OTF2 anchor, a DUMPI "
      ".meta file) is imported once into a cache (docs/importing.md)");
  cmd->add_option("--attack", options->attack,
                  "Attack file (JSON): an attacker on one cable, its actions and rates (docs/attacks.md)");
  cmd->add_option("--perf-json", options->perf_out, "Also write wall time, packets/s and peak memory here");
  cmd->add_flag("--quiet,-q", options->quiet, "No progress, summary or warnings on standard error");
  cmd->add_flag("--force", options->force,
                "Run even if the estimated memory exceeds the machine's (the estimate is refused otherwise)");
  cmd->callback([options] {
    const int code = run(*options);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace ibsec::apps
