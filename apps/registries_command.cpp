// `ibsec-engine registries`: every name a configuration can choose from —
// replacement policies, node schedulers, topologies (with their own
// parameters), card configurations, link generations and widths, trace operations and the
// replay's collective algorithms — with what each is. The Python `ibsec` command reads the JSON form instead of
// keeping lists of its own.
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "apps/commands.h"
#include "hosts/collectives.h"
#include "network/link_rate.h"
#include "network/routing.h"
#include "network/topology.h"
#include "nic/replacement_policy.h"
#include "nic/security_mode.h"
#include "schedulers/scheduler.h"
#include "traces/import/trace_import.h"
#include "traces/trace_event.h"

namespace ibsec::apps {
namespace {

using json = nlohmann::ordered_json;

template <typename Registry, typename Describe>
json listed(Describe describe) {
  json out = json::array();
  for (const auto* entry : Registry::sorted()) {
    json item{{"name", entry->name}, {"description", entry->description}};
    describe(*entry, item);
    out.push_back(std::move(item));
  }
  return out;
}

// Each collective op's simple choice and tuned decision table; a bound that
// holds for any size is null.
json collective_ops() {
  json out = json::array();
  for (const hosts::CollectiveOp* op : hosts::CollectiveOps::sorted()) {
    json rows = json::array();
    for (const hosts::DecisionRow& row : op->tuned) {
      json rules = json::array();
      for (const hosts::SizeRule& rule : row.rules) {
        rules.push_back({{"below_bytes", rule.below_bytes == hosts::kAnyBytes ? json(nullptr) : json(rule.below_bytes)},
                         {"ompi_algorithm", rule.ompi_algorithm},
                         {"algorithm", op->ompi_algorithms.at(rule.ompi_algorithm)}});
      }
      rows.push_back(
          {{"below_size", row.below_size == hosts::kAnySize ? json(nullptr) : json(row.below_size)}, {"rules", rules}});
    }
    out.push_back({{"name", op->name},
                   {"description", "simple: " + op->simple + "; tuned: Open MPI 4.1's fixed decision rules"},
                   {"simple", op->simple},
                   {"tuned", rows}});
  }
  return out;
}

// A topology's or routing's own parameters, as `params --json` lists them.
json parameter_list(const std::vector<ParameterInfo>& parameters) {
  json list = json::array();
  for (const ParameterInfo& p : parameters) {
    list.push_back({{"key", p.key}, {"default", p.default_value}, {"unit", p.unit}, {"description", p.description}});
  }
  return list;
}

json registries() {
  json out;
  out["replacement_policies"] =
      listed<nic::PolicyRegistry>([](const nic::PolicyEntry& e, json& item) { item["cycle_model"] = !e.needs_future; });
  out["schedulers"] = listed<schedulers::SchedulerRegistry>([](const auto&, json&) {});
  out["topologies"] = listed<network::TopologyRegistry>(
      [](const network::TopologyEntry& e, json& item) { item["parameters"] = parameter_list(e.parameters); });
  out["routings"] = listed<network::RoutingRegistry>(
      [](const network::RoutingEntry& e, json& item) { item["parameters"] = parameter_list(e.parameters); });
  out["security_modes"] = json::array();
  for (const auto& form : nic::security_mode_forms()) {
    out["security_modes"].push_back({{"name", form.name}, {"description", form.description}});
  }
  out["link_rates"] = json::array();
  for (const auto& generation : network::link_generations()) {
    const network::LinkRate one_lane = network::link_rate(generation.name, "1x");
    std::string description = generation.encoding;
    description += ", switch silicon ";
    description += generation.switch_silicon;
    out["link_rates"].push_back({{"name", generation.name},
                                 {"description", description},
                                 {"lane_signal_gbps", one_lane.signal_gbps()},
                                 {"lane_data_gbps", one_lane.data_gbps()},
                                 {"fec_latency_ns", ns_from_ticks(generation.fec_latency)},
                                 {"switch_latency_ns", ns_from_ticks(generation.switch_latency)}});
  }
  out["link_widths"] = json::array();
  for (const auto& width : network::link_widths()) {
    out["link_widths"].push_back({{"name", width.name}, {"lanes", width.lanes}});
  }
  out["trace_ops"] = traces::trace_ops_json();
  out["collective_algorithms"] =
      listed<hosts::CollectiveAlgorithms>([](const hosts::CollectiveAlgorithm& e, json& item) {
        const hosts::CollectiveOp* op = hosts::CollectiveOps::find(e.op);
        item["op"] = traces::name(e.op);
        item["algorithm"] = e.algorithm;
        item["simple"] = op != nullptr && op->simple == e.algorithm;
      });
  out["collective_ops"] = collective_ops();
  out["import_formats"] = json::array();
  for (const traces::ImportFormat& format : traces::import_formats()) {
    out["import_formats"].push_back({{"name", format.name},
                                     {"description", format.source_hint},
                                     {"suffix", format.suffix},
                                     {"built", format.built}});
  }
  return out;
}

void print_text(const json& all) {
  for (const auto& [registry, entries] : all.items()) {
    std::cout << registry << ":\n";
    for (const auto& entry : entries) {
      const std::string name = entry["name"].get<std::string>();
      std::string about = entry.contains("description") ? entry["description"].get<std::string>() : "";
      if (entry.contains("arguments")) {
        for (const auto& argument : entry["arguments"])
          about.append(about.empty() ? "" : " ").append(argument.get<std::string>());
      }
      if (entry.contains("lane_data_gbps")) {
        char rate[160];
        std::snprintf(rate, sizeof rate, "per lane: %g Gb/s signalling, %g Gb/s data; %s",
                      entry["lane_signal_gbps"].get<double>(), entry["lane_data_gbps"].get<double>(), about.c_str());
        about = rate;
      }
      if (entry.contains("lanes")) {
        about = std::to_string(entry["lanes"].get<uint32_t>());
        about += entry["lanes"].get<uint32_t>() == 1 ? " lane" : " lanes";
      }
      std::printf("  %-22s %s\n", name.c_str(), about.c_str());
    }
  }
}

}  // namespace

void add_registries_command(CLI::App& app) {
  auto as_json = std::make_shared<bool>(false);
  CLI::App* cmd =
      app.add_subcommand("registries",
                         "List the names a configuration can choose from: policies, schedulers, topologies, card "
                         "configurations, link generations and widths, trace operations, collective algorithms");
  cmd->add_flag("--json", *as_json, "Print as JSON");
  cmd->callback([as_json] {
    const json all = registries();
    if (*as_json) {
      std::cout << all.dump(2) << "\n";
    } else {
      print_text(all);
    }
  });
}

}  // namespace ibsec::apps
