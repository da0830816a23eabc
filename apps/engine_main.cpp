// ibsec-engine: single fast runs. Orchestration (presets, sweeps, plots) is
// the Python `ibsec` command's job; it calls this program.
#include <iostream>

#include <CLI/CLI.hpp>

#include "apps/commands.h"
#include "core/errors.h"

int main(int argc, char** argv) {
  CLI::App app{"ibsec-engine " IBSEC_VERSION ": cycle-level secure InfiniBand card simulator engine"};
  app.require_subcommand(1);
  app.set_version_flag("--version", IBSEC_VERSION);
  ibsec::apps::add_cachesim_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const ibsec::ConfigError& e) {
    std::cerr << "ibsec-engine: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ibsec-engine: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
