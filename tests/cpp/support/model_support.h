// Helpers for tests that elaborate the cycle-level model.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <systemc>

#include "sim/cluster.h"
#include "sim/config.h"

namespace ibsec::testing {

// A checked configuration: the defaults plus `overrides` ("key=value").
inline sim::SimConfig config_with(const std::vector<std::string>& overrides) {
  static const bool resolution_set = [] {
    sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    return true;
  }();
  (void)resolution_set;
  return sim::load_config(nlohmann::json(), overrides);
}

inline hosts::ScriptedMessage message_at(Tick at, uint32_t source, uint32_t destination, uint32_t bytes,
                                         uint32_t id = 0, uint32_t processes_per_node = 1, uint32_t source_local = 0,
                                         uint32_t destination_local = 0) {
  hosts::ScriptedMessage m;
  m.at = at;
  m.source = NodeId(source);
  m.message.source_process = source * processes_per_node + source_local;
  m.message.destination_process = destination * processes_per_node + destination_local;
  m.message.destination = NodeId(destination);
  m.message.bytes = bytes;
  m.message.message = id;
  m.message.measured = true;
  return m;
}

// One run in this process: its result document.
inline nlohmann::ordered_json run_here(const std::vector<std::string>& overrides, sim::RunOutcome* outcome = nullptr) {
  sim::Cluster cluster(config_with(overrides));
  const sim::RunOutcome out = cluster.run();
  if (outcome) *outcome = out;
  return cluster.result(out);
}

// SystemC elaborates one design per process, so simulations to compare each
// get a child process: what `simulate` returns there (a string).
template <typename Simulate>
std::string output_of_child(Simulate simulate) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("model_run_" + std::to_string(::getpid()) + "_" + std::to_string(std::rand()) + ".out");
  const pid_t child = ::fork();
  if (child == 0) {
    int code = 1;
    try {
      std::ofstream(path) << simulate();
      code = 0;
    } catch (...) {
    }
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the run failed";
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  std::filesystem::remove(path);
  return text.str();
}

// One run of the cluster in a child process: its result document.
inline std::string run_in_child(const std::vector<std::string>& overrides) {
  return output_of_child([&overrides] { return run_here(overrides).dump(1); });
}

}  // namespace ibsec::testing
