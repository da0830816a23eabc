// `ibsec-engine topology`: a configuration's fabric without running it, as
// JSON: the topology's counts, its switches and its one-way links in the
// order a run's links table numbers them (sim/fabric_description.h). The
// Python `ibsec topology draw` reads it.
#include <memory>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "core/atomic_file.h"
#include "sim/config.h"
#include "sim/fabric_description.h"

namespace ibsec::apps {
namespace {

struct TopologyOptions {
  std::string config_path;
  std::vector<std::string> overrides;
  std::string out = "-";
};

void describe(const TopologyOptions& o) {
  CommandFiles files;
  files.input(o.config_path, "config");
  files.output(o.out, "--out");
  files.check();
  // The whole configuration is read and checked as a run would read it, so
  // what is described is what `run` with the same arguments would build.
  const sim::SimConfig config = sim::load_config(o.config_path, "", o.overrides);
  AtomicFile file(o.out, "--out");
  file.stream() << sim::fabric_description(*config.topology, config.network).dump(2) << "\n";
  file.commit();
}

}  // namespace

void add_topology_command(CLI::App& app) {
  auto options = std::make_shared<TopologyOptions>();
  CLI::App* cmd = app.add_subcommand(
      "topology", "Describe a configuration's fabric as JSON (switches, links in the run's order) without running it");
  cmd->add_option("config", options->config_path, "Configuration file (omit for the defaults)");
  cmd->add_option("--set", options->overrides, "Override one parameter: key=value (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--out,-o", options->out, "Where to write the JSON; - or omitted: standard output");
  cmd->callback([options] { describe(*options); });
}

}  // namespace ibsec::apps
