#include "sim/config.h"

#include <cstdlib>
#include <string_view>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/json_input.h"
#include "core/spelling.h"
#include "hosts/placement.h"
#include "network/link_rate.h"
#include "network/links.h"
#include "network/routing.h"

namespace ibsec::sim {
namespace {

using json = nlohmann::json;
using Table = ParameterTable;

// The run's own keys: its seed, what the hosts replay, and what it writes.
ParameterSet<SimConfig> run_parameters() {
  const SimConfig d;
  ParameterSet<SimConfig> set(d);
  set.count("seed", &SimConfig::seed, "", "seed of every random stream in the run")
      .file(
          "trace.file", [](SimConfig & c) -> auto& { return c.trace.file; }, FileRole::kInput,
          "trace to replay (docs/trace-format.md) instead of synthetic traffic; traffic.* is then ignored (a "
          "warning names any given)")
      .file(
          "trace.jobs", [](SimConfig & c) -> auto& { return c.trace.jobs; }, FileRole::kInput,
          "traces replayed together, one job each, sharing the nodes (placed by trace.placement); exclusive with "
          "trace.file")
      .duration("sim.drain_timeout_us", &SimConfig::drain_timeout, TimeUnit::kUs,
                "simulated time allowed to deliver what is in flight at the end", Bound::kPositive)
      .file(
          "sim.event_log", [](SimConfig & c) -> auto& { return c.output.event_log; }, FileRole::kOutput,
          "per-packet CSV log (off when empty)")
      .file(
          "sim.vcd", [](SimConfig & c) -> auto& { return c.output.vcd; }, FileRole::kOutput,
          "SystemC VCD trace (off when empty): every card's counters and every link's packets and bytes sent, "
          "cumulative, as they change (docs/running.md)")
      .custom("sim.detail", d.output.detail.name(), "",
              "per-component tables written as CSV beside the result (RESULT.links.csv, .switches.csv, "
              ".cards.csv): none, links, switches, cards or all (docs/running.md)",
              [](const ParameterValues& v, const std::string& key, SimConfig& c) {
                c.output.detail = DetailLevel::parse(v.text(key), key);
              });
  return set;
}

const ParameterSet<SimConfig>& run_set() {
  static const ParameterSet<SimConfig> set = run_parameters();
  return set;
}

void append(std::vector<ParameterInfo>& all, const std::vector<ParameterInfo>& more) {
  all.insert(all.end(), more.begin(), more.end());
}

}  // namespace

const std::vector<ParameterInfo>& parameters() {
  static const std::vector<ParameterInfo> all = [] {
    std::vector<ParameterInfo> list;
    append(list, run_set().infos());
    append(list, network::network_parameters().infos());
    append(list, network::topology_parameters());
    append(list, network::routing_parameters());
    append(list, nic::card_parameters().infos());
    append(list, hosts::traffic_parameters().infos());
    append(list, hosts::replay_parameters().infos());
    append(list, schedulers::scheduler_parameters().infos());
    append(list, attack::attack_parameters().infos());
    return list;
  }();
  return all;
}

namespace {

// Nested objects become dotted keys; a key a layer gives twice (dotted and
// nested: {"traffic.load": 0.1, "traffic": {"load": 0.02}}) is an error.
// parse_user_json has bounded the depth.
void flatten(const json& node, const std::string& prefix, Table& out, const std::string& origin) {
  for (const auto& [key, value] : node.items()) {
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object()) {
      flatten(value, path, out, origin);
    } else if (!out.emplace(path, value).second) {
      throw ConfigError(origin, "'" + path + "' is given twice (once with dots in its name, once nested)");
    }
  }
}

std::vector<std::string> parameter_keys() {
  std::vector<std::string> keys;
  for (const auto& p : parameters()) keys.push_back(p.key);
  return keys;
}

bool known(const std::string& key) {
  for (const auto& p : parameters()) {
    if (p.key == key) return true;
  }
  return false;
}

// The command that lists the parameters, as the user reaches it: `ibsec params` when the engine runs under the
// ibsec command (which sets IBSEC_COMMAND=ibsec for it: analytics/ibsec/cli/main.py), else the engine's own.
std::string params_command() {
  const char* command = std::getenv("IBSEC_COMMAND");
  return command != nullptr && std::string_view(command) == "ibsec" ? "`ibsec params`" : "`ibsec-engine params`";
}

void merge(Table& table, const Table& layer, const std::string& origin) {
  for (const auto& [key, value] : layer) {
    if (!known(key)) {
      throw ConfigError(key, "unknown parameter (in " + origin + "); " + did_you_mean(key, parameter_keys()) +
                                 params_command() + " lists them");
    }
    table[key] = value;
  }
}

// A --set value: JSON if it is JSON (with the same limits as a file), else
// the text itself, which must then be UTF-8 like any JSON string (the result
// file echoes it).
json parse_override_value(const std::string& key, const std::string& text) {
  if (json::accept(text)) return parse_user_json(text, "--set " + key);
  json value(text);
  try {
    (void)value.dump();
  } catch (const json::type_error&) {
    throw ConfigError("--set " + key, "is not UTF-8 text");
  }
  return value;
}

// Checks that span areas. The topology is built here, once, so that every
// configuration error shows before elaboration; the cluster then uses it.
void check_attack(const SimConfig& config, uint32_t nodes) {
  if (!config.attack) return;
  if (!config.nic.functional_crypto) {
    throw ConfigError("attack.link", "an attacker needs packets with bytes: set nic.crypto.mode = functional");
  }
  for (const uint32_t victim : config.attack->victims) {
    if (victim >= nodes) {
      throw ConfigError("attack.victims",
                        "node " + std::to_string(victim) + " is out of range (0.." + std::to_string(nodes - 1) + ")");
    }
  }
  if (config.trace.replays() && config.attack->tamper > 0.0) {
    throw ConfigError("attack.tamper",
                      "a tampered packet is lost and ibsec does not retransmit, so a replayed "
                      "trace could not finish: tamper with synthetic traffic only");
  }
}

// A real fabric's file gives every cable its rate, and the links run at it.
// network.link_rate and network.link_width still set the switches' latency
// ("generation") and the unit of traffic.load, so they must be the fabric's
// rate, or on a fabric of mixed rates one of its rates (docs/network.md,
// "Links of different rates").
void check_fabric_rate(const SimConfig& config) {
  const auto& subnet = config.topology->subnet;
  if (!subnet) return;
  const network::CableRate given{config.network.link_rate, config.network.link_width};
  const std::vector<network::RateCount> rates = network::cable_rate_counts(*config.topology);
  if (rates.size() <= 1) {
    if (subnet->link_rate == given.generation && subnet->link_width == given.width) return;
    throw ConfigError("network.link_rate", subnet->file + ": the fabric's links are " + subnet->link_width +
                                               subnet->link_rate + ", not " + given.name() +
                                               ": set network.link_rate=" + subnet->link_rate +
                                               " and network.link_width=" + subnet->link_width);
  }
  std::string found;
  for (const network::RateCount& rate : rates) {
    if (rate.rate == given) return;
    found += (found.empty() ? "" : ", ") + rate.rate.name() + " (" + std::to_string(rate.links) + " links)";
  }
  throw ConfigError("network.link_rate",
                    subnet->file + ": the fabric mixes " + found + ", and " + given.name() +
                        " is none of them: set network.link_rate and network.link_width to one (they set the "
                        "switches' latency and the unit of traffic.load)");
}

void check_together(SimConfig& config) {
  if (!config.trace.file.empty() && !config.trace.jobs.empty()) {
    throw ConfigError("trace.jobs", "give either trace.file (one job) or trace.jobs (several), not both");
  }
  config.topology =
      std::make_shared<const network::Topology>(network::build_topology(config.network.topology_params()));
  network::check_virtual_lanes(*config.topology, config.network.virtual_lanes);
  check_fabric_rate(config);
  const uint32_t nodes = config.topology->nodes;
  hosts::validate(config.traffic, nodes);
  check_attack(config, nodes);
  if (config.nic.mtu_bytes > network::kMaxMtuBytes) {
    throw ConfigError("nic.mtu_bytes", "InfiniBand carries at most " + std::to_string(network::kMaxMtuBytes) +
                                           " bytes of payload per packet (IBA vol. 1, PortInfo MTUCap), got " +
                                           std::to_string(config.nic.mtu_bytes));
  }
  const uint32_t mtu_wire = config.nic.mtu_bytes + config.nic.header_bytes + config.nic.security_bytes;
  // Buffers count whole 64-byte credits: what is left over holds no packet.
  if (config.network.credits_per_lane() < network::credits_for(mtu_wire)) {
    throw ConfigError("network.vl_buffer_bytes",
                      "must hold one whole packet (virtual cut-through): at least " +
                          std::to_string(network::credits_for(mtu_wire) * network::kCreditBytes) + " bytes (" +
                          std::to_string(network::credits_for(mtu_wire)) + " credits of " +
                          std::to_string(network::kCreditBytes) +
                          " B) for nic.mtu_bytes = " + std::to_string(config.nic.mtu_bytes) + ", got " +
                          std::to_string(config.network.vl_buffer_bytes));
  }
}

// What one area's parameters imply for another's components.
void derive_across(SimConfig& config) {
  config.nic.skc.seed = config.seed;
  config.nic.key_seed = config.seed;
  config.nic.lanes = config.network.virtual_lanes;
  config.scheduling.seed = config.seed;
  if (config.attack) config.attack->seed = attack::attacker_seed(config.seed);
}

nlohmann::ordered_json nest(const Table& table) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& p : parameters()) {
    nlohmann::ordered_json* node = &out;
    std::string key = p.key;
    for (auto dot = key.find('.'); dot != std::string::npos; dot = key.find('.')) {
      node = &(*node)[key.substr(0, dot)];
      key = key.substr(dot + 1);
    }
    (*node)[key] = table.at(p.key);
  }
  return out;
}

struct Layer {
  json document;
  std::string origin;
  std::string required = {};  // a key the layer must set, with why (empty: none)
  std::string required_why = {};
};

SimConfig load_layers(const std::vector<Layer>& layers, const std::vector<std::string>& overrides) {
  Table table;
  for (const auto& p : parameters()) table[p.key] = p.default_value;
  std::set<std::string> given;
  for (const Layer& layer : layers) {
    if (!layer.document.is_null() && !layer.document.is_object()) {
      throw ConfigError(layer.origin, "a configuration must be a JSON object");
    }
    Table from_file;
    if (layer.document.is_object()) flatten(layer.document, "", from_file, layer.origin);
    if (!layer.required.empty() && !from_file.contains(layer.required)) {
      throw ConfigError(layer.origin, layer.required_why);
    }
    merge(table, from_file, layer.origin);
    for (const auto& entry : from_file) given.insert(entry.first);
  }
  for (const std::string& item : overrides) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw ConfigError("--set", "expected key=value, got '" + item + "'");
    }
    const std::string key = item.substr(0, eq);
    merge(table, Table{{key, parse_override_value(key, item.substr(eq + 1))}}, "--set");
    given.insert(key);
  }

  const ParameterValues values(table);
  SimConfig config = run_set().read(values);
  network::network_parameters().read(values, config.network);
  nic::card_parameters().read(values, config.nic);
  hosts::traffic_parameters().read(values, config.traffic);
  hosts::replay_parameters().read(values, config.replay);
  schedulers::scheduler_parameters().read(values, config.scheduling);
  const attack::AttackParams attack = attack::attack_parameters().read(values);
  if (attack.present()) config.attack = attack;
  derive_across(config);
  check_together(config);
  config.resolved = nest(table);
  config.given = std::move(given);
  return config;
}

}  // namespace

SimConfig load_config(const json& document, const std::vector<std::string>& overrides, const std::string& origin) {
  return load_layers({Layer{document, origin}}, overrides);
}

SimConfig load_config(const std::string& path, const std::vector<std::string>& overrides) {
  return load_config(path, "", overrides);
}

SimConfig load_config(const std::string& path, const std::string& attack_path,
                      const std::vector<std::string>& overrides) {
  std::vector<Layer> layers;
  if (!path.empty()) layers.push_back(Layer{read_user_json_file(path, "configuration file"), path});
  if (!attack_path.empty()) {
    layers.push_back(Layer{read_user_json_file(attack_path, "attack file"), attack_path, "attack.link",
                           "an attack file must set attack.link (docs/attacks.md)"});
  }
  return load_layers(layers, overrides);
}

std::string vcd_file_path(const std::string& vcd) {
  return vcd.size() > 4 && vcd.ends_with(".vcd") ? vcd : vcd + ".vcd";
}

namespace {

// The value of dotted `key` in the resolved configuration (nested objects).
const nlohmann::ordered_json& resolved_value(const SimConfig& config, const std::string& key) {
  const nlohmann::ordered_json* node = &config.resolved;
  size_t from = 0;
  for (size_t dot = key.find('.'); dot != std::string::npos; from = dot + 1, dot = key.find('.', from)) {
    node = &node->at(key.substr(from, dot - from));
  }
  return node->at(key.substr(from));
}

std::vector<std::string> paths_in(const nlohmann::ordered_json& value) {
  if (value.is_string()) return {value.get<std::string>()};
  return value.get<std::vector<std::string>>();
}

}  // namespace

void add_run_files(const SimConfig& config, const std::string& result_path, CommandFiles& files) {
  for (const ParameterInfo& p : parameters()) {
    if (p.file.empty()) continue;
    for (const std::string& path : paths_in(resolved_value(config, p.key))) {
      if (path.empty()) continue;  // off, or the shipped default
      if (p.file == "input") {
        if (p.key != "trace.placement" || !hosts::is_placement_rule(path)) files.input(path, p.key);
      } else {
        files.output(p.key == "sim.vcd" ? vcd_file_path(path) : path, p.key);
      }
    }
  }
  add_detail_outputs(config.output.detail, result_path, files);
}

}  // namespace ibsec::sim
