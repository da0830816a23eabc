// Subcommands of ibsec-engine, the C++ engine behind the `ibsec` command.
#pragma once

#include <CLI/CLI.hpp>

namespace ibsec::apps {

// Adds the `cachesim` subcommand to `app`.
void add_cachesim_command(CLI::App& app);
// Adds `run` (one cycle-level simulation) and `params` (its parameters).
void add_run_command(CLI::App& app);
void add_params_command(CLI::App& app);
// Adds `registries`: every name a configuration can choose from.
void add_registries_command(CLI::App& app);
// Adds `trace info|validate|convert`.
void add_trace_command(CLI::App& app);

}  // namespace ibsec::apps
