// Subcommands of ibsec-engine, the C++ engine behind the `ibsec` command.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/parameters.h"

namespace ibsec::apps {

// Adds the `cachesim` subcommand to `app`.
void add_cachesim_command(CLI::App& app);
// The options of `cachesim` with their defaults, units and descriptions (`params --command cachesim`).
std::vector<ParameterInfo> cachesim_parameters();
// The command-line option of a cachesim parameter: entry_bytes -> --entry-bytes.
std::string cachesim_flag(const std::string& key);
// Adds `run` (one cycle-level simulation) and `params` (the parameters of `run` or of `cachesim`).
void add_run_command(CLI::App& app);
void add_params_command(CLI::App& app);
// Adds `registries`: every name a configuration can choose from.
void add_registries_command(CLI::App& app);
// Adds `trace info|validate|convert`.
void add_trace_command(CLI::App& app);
// Adds `topology`: a configuration's fabric as JSON, without running it.
void add_topology_command(CLI::App& app);

}  // namespace ibsec::apps
