// ibsec-engine: single fast runs. Orchestration (presets, sweeps, plots) is
// the Python `ibsec` command's job; it calls this program. SystemC's library
// provides main() and calls sc_main; ours below only silences its banner.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <systemc>  // declares sc_main extern "C"

#include "apps/commands.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "traces/trace_error.h"

namespace {

// "unknown command 'bogus' (known: ...)" when a word where a command was expected names none, else empty:
// CLI11 would only say that a command is required.
std::string unknown_command(const CLI::App& app) {
  const CLI::App* parent = &app;  // the deepest command given: `trace` in `ibsec-engine trace bogus`
  while (!parent->get_subcommands().empty()) parent = parent->get_subcommands().front();
  const std::vector<std::string> left = parent->remaining();
  if (left.empty() || parent->get_subcommands({}).empty() || left.front().starts_with("-")) return {};
  std::string known;
  for (const CLI::App* sub : parent->get_subcommands({})) known += (known.empty() ? "" : ", ") + sub->get_name();
  const std::string command = (parent == &app ? "" : parent->get_name() + " ") + left.front();
  return "unknown command '" + command + "' (known: " + known + ")";
}

}  // namespace

int sc_main(int argc, char** argv) {
  CLI::App app{"ibsec-engine " IBSEC_VERSION ": cycle-level secure InfiniBand card simulator engine"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(IBSEC_VERSION) + " (SystemC " + sc_core::sc_release() + ")");
  ibsec::apps::add_cachesim_command(app);
  ibsec::apps::add_run_command(app);
  ibsec::apps::add_params_command(app);
  ibsec::apps::add_registries_command(app);
  ibsec::apps::add_trace_command(app);
  ibsec::apps::add_topology_command(app);
  // A closed pipe is reported by the write that fails (EPIPE), not by a signal that ends the program
  // mid-run: standard output's reader going away ends it quietly (kExitOutputClosed), standard error's
  // costs only the progress lines, and every other output is a file.
  std::signal(SIGPIPE, SIG_IGN);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    // Help and --version exit 0; every other misuse of the command line is a usage error, 2.
    if (const std::string unknown = unknown_command(app); !unknown.empty()) {
      std::cerr << "ibsec-engine: error: " << unknown << "\n";
      return 2;
    }
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const ibsec::StandardOutputClosed&) {
    return ibsec::kExitOutputClosed;
  } catch (const ibsec::traces::TraceError& e) {
    std::cerr << "ibsec-engine: error: " << e.what() << "\n";
    return 2;
  } catch (const ibsec::ConfigError& e) {
    std::cerr << "ibsec-engine: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ibsec-engine: error: " << e.what() << "\n";
    return 1;
  }
  // A result printed to a full disk is lost: say so. A closed pipe is its reader's choice.
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0) {
    if (ibsec::standard_output_closed()) return ibsec::kExitOutputClosed;
    std::cerr << "ibsec-engine: error: cannot write standard output\n";
    return 2;
  }
  return 0;
}

// Our own entry point, ahead of the one in libsystemc, only to keep the
// SystemC banner out of every run's output (--version names the release).
int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
