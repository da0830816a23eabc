// `ibsec-engine params`: every configuration key with its default, unit and
// description, as a table or as JSON.
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "apps/commands.h"
#include "sim/config.h"

namespace ibsec::apps {

void add_params_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("params", "List the configuration parameters of `run` with defaults and units");
  cmd->add_flag("--json", *json, "Print as JSON");
  cmd->callback([json] {
    if (*json) {
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (const auto& p : sim::parameters()) {
        out.push_back({{"key", p.key}, {"default", p.default_value}, {"unit", p.unit}, {"description", p.description}});
        if (!p.file.empty()) out.back()["file"] = p.file;
      }
      std::cout << out.dump(2) << "\n";
      return;
    }
    for (const auto& p : sim::parameters()) {
      std::cout << p.key << " = " << p.default_value.dump() << (p.unit.empty() ? "" : " [" + p.unit + "]") << "\n    "
                << p.description << "\n";
    }
  });
}

}  // namespace ibsec::apps
