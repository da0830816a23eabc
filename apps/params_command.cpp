// `ibsec-engine params`: every configuration key of `run` (or, with --command
// cachesim, every option of `cachesim`) with its default, unit and
// description, as a table or as JSON.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/commands.h"
#include "sim/config.h"

namespace ibsec::apps {

namespace {

struct ParamsOptions {
  bool json = false;
  std::string command = "run";
};

// The cachesim options are command-line options: each is also listed with the flag that sets it.
nlohmann::ordered_json as_json(const std::vector<ParameterInfo>& listed, bool with_flags) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& p : listed) {
    out.push_back({{"key", p.key}, {"default", p.default_value}, {"unit", p.unit}, {"description", p.description}});
    if (!p.file.empty()) out.back()["file"] = p.file;
    if (with_flags) out.back()["option"] = cachesim_flag(p.key);
  }
  return out;
}

void print_text(const std::vector<ParameterInfo>& listed) {
  for (const auto& p : listed) {
    std::cout << p.key << " = " << p.default_value.dump() << (p.unit.empty() ? "" : " [" + p.unit + "]") << "\n    "
              << p.description << "\n";
  }
}

}  // namespace

void add_params_command(CLI::App& app) {
  auto options = std::make_shared<ParamsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "params", "List the configuration parameters of `run` (or the options of `cachesim`) with defaults and units");
  cmd->add_flag("--json", options->json, "Print as JSON");
  cmd->add_option("--command", options->command, "the command whose parameters to list")
      ->check(CLI::IsMember({"run", "cachesim"}))
      ->capture_default_str();
  cmd->callback([options] {
    const bool cachesim = options->command == "cachesim";
    const std::vector<ParameterInfo>& listed = cachesim ? cachesim_parameters() : sim::parameters();
    if (options->json) {
      std::cout << as_json(listed, cachesim).dump(2) << "\n";
    } else {
      print_text(listed);
    }
  });
}

}  // namespace ibsec::apps
