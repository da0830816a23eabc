// A run's configuration: the assembly of every area's parameters. Each area
// declares its own (network/, nic/, hosts/, schedulers/, attack/) as a
// ParameterSet beside its component; the run's own keys (seed, trace.*,
// sim.*) are declared in config.cpp. A run is described by one JSON file
// (nested objects; dotted keys on the command line) plus `--set key=value`
// overrides. Reading goes raw -> checked: the layers are merged into a flat
// table of JSON values (unknown keys are errors), each area reads and checks
// its part, then the checks that span areas run, naming the key on error.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attack/attack.h"
#include "core/parameters.h"
#include "core/time.h"
#include "hosts/replay_params.h"
#include "hosts/synthetic_traffic.h"
#include "network/network_params.h"
#include "network/topology.h"
#include "nic/cic.h"
#include "schedulers/scheduler.h"
#include "sim/detail_tables.h"
#include "traces/import/import_cache.h"

namespace ibsec {
class CommandFiles;  // core/atomic_file.h
}  // namespace ibsec

namespace ibsec::sim {

struct OutputConfig {
  std::string event_log;  // per-packet CSV, empty = off
  std::string vcd;        // SystemC VCD trace, empty = off
  DetailLevel detail;     // per-component tables beside the result
};

struct TraceConfig {
  std::string file;               // replayed instead of synthetic traffic when set
  std::vector<std::string> jobs;  // or several traces sharing the cluster, one job each
  // Other tools' traces among them, each replaced above by its cached import (use_cached_imports).
  std::vector<traces::CachedImport> imports;

  [[nodiscard]] bool replays() const { return !file.empty() || !jobs.empty(); }
  // The traces to replay, one per job.
  [[nodiscard]] std::vector<std::string> job_files() const { return file.empty() ? jobs : std::vector{file}; }
};

struct SimConfig {
  uint64_t seed = 1;
  network::NetworkParams network;
  nic::CicParams nic;
  hosts::TrafficParams traffic;
  TraceConfig trace;
  hosts::ReplayParams replay;
  schedulers::SchedulerParams scheduling;
  Tick drain_timeout = 10'000 * kTicksPerUs;
  OutputConfig output;
  std::optional<attack::AttackParams> attack;  // attack.link set: an attacker on that cable
  // The topology, built once while the configuration is checked (null: the cluster builds it).
  std::shared_ptr<const network::Topology> topology;
  // Build the cluster even if its estimated memory exceeds the machine's (ibsec-engine run --force).
  bool ignore_memory_estimate = false;
  nlohmann::ordered_json resolved;  // every key with the value used, for the result file
  // The keys a configuration file, attack file or --set gave (every other key has its default), so that a
  // run can say which of them it had no use for (sim/run_warnings.h).
  std::set<std::string> given;
};

// All parameters, area by area, in the order they are documented.
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

// The file SystemC writes for sim.vcd = `vcd`: `vcd` with ".vcd" appended
// unless it already ends so.
std::string vcd_file_path(const std::string& vcd);
// Adds to `files` what a run of `config` reads and writes besides its
// configuration, attack and result files: every file parameter's (inputs
// and outputs, the VCD under the name SystemC gives it) and the sim.detail
// tables beside `result_path`. Throws ConfigError for an output that
// cannot be written (core/atomic_file.h).
void add_run_files(const SimConfig& config, const std::string& result_path, CommandFiles& files);

}  // namespace ibsec::sim
