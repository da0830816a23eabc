// A run's configuration. Every parameter is declared once in config.cpp with
// its key, default, unit and description; a run is described by one JSON file
// (nested objects, dotted keys on the command line) plus `--set key=value`
// overrides. Reading goes raw -> checked: the file and overrides are merged
// into a flat table of JSON values (unknown keys are errors), then each value
// is converted and range-checked into SimConfig, naming the key on error.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/time.h"
#include "network/attack.h"
#include "network/topology.h"
#include "nic/cic.h"
#include "schedulers/scheduler.h"
#include "traces/synthetic_traffic.h"

namespace ibsec::sim {

struct NetworkConfig {
  network::TopologyParams topology;
  std::string link_rate = "SDR";
  Tick link_delay = 10 * kTicksPerNs;
  Tick switch_latency = 200 * kTicksPerNs;
  uint32_t virtual_lanes = 1;
  uint32_t vl_buffer_bytes = 4096;
};

struct OutputConfig {
  std::string event_log;  // per-packet CSV, empty = off
  std::string vcd;        // SystemC VCD trace, empty = off
};

struct TraceConfig {
  std::string file;               // replayed instead of synthetic traffic when set
  std::vector<std::string> jobs;  // or several traces sharing the cluster, one job each

  [[nodiscard]] bool replays() const { return !file.empty() || !jobs.empty(); }
  // The traces to replay, one per job.
  [[nodiscard]] std::vector<std::string> job_files() const { return file.empty() ? jobs : std::vector{file}; }
};

// The SKC access time used and where it came from, for the result file.
struct SkcAccessOrigin {
  double ns = 3.0;
  std::string source = "nic.skc.access_ns";  // or the CACTI table row it was read from
};

struct SimConfig {
  uint64_t seed = 1;
  NetworkConfig network;
  nic::CicParams nic;
  SkcAccessOrigin skc_access;
  traces::TrafficParams traffic;
  TraceConfig trace;
  schedulers::SchedulerParams scheduling;
  Tick drain_timeout = 10'000 * kTicksPerUs;
  OutputConfig output;
  std::optional<network::AttackParams> attack;  // attack.link set: an attacker on that cable
  nlohmann::ordered_json resolved;  // every key with the value used, for the result file
};

struct ParameterInfo {
  std::string key;
  nlohmann::json default_value;
  std::string unit;
  std::string description;
};

// All parameters, in the order they are documented.
const std::vector<ParameterInfo>& parameters();

// Merges defaults, the file (may be empty: defaults only) and overrides
// ("key=value"; value read as JSON if it parses, else as a string), then
// checks. Throws ConfigError naming the key (and the file) at fault.
SimConfig load_config(const std::string& path, const std::vector<std::string>& overrides);
// The same with an attack file (docs/attacks.md) merged after the
// configuration and before the overrides; it must set attack.link.
SimConfig load_config(const std::string& path, const std::string& attack_path,
                      const std::vector<std::string>& overrides);
SimConfig load_config(const nlohmann::json& document, const std::vector<std::string>& overrides,
                      const std::string& origin = "<config>");

}  // namespace ibsec::sim
