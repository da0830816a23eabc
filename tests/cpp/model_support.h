// Helpers for tests that elaborate the cycle-level model.
#pragma once

#include <string>
#include <vector>

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

inline traces::ScriptedMessage message_at(Tick at, uint32_t source, uint32_t destination, uint32_t bytes,
                                          uint32_t id = 0, uint32_t processes_per_node = 1,
                                          uint32_t source_local = 0, uint32_t destination_local = 0) {
  traces::ScriptedMessage m;
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

}  // namespace ibsec::testing
