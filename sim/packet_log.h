// Optional per-packet log (sim.event_log): one CSV row per delivered packet.
// Written to a temporary file beside PATH and renamed to PATH when the run ends, so a reader
// never sees a half-written log. When the option is off, nothing is created
// and a delivery costs one null-pointer test.
#pragma once

#include <fstream>
#include <string>

#include "network/packet.h"

namespace ibsec::sim {

class PacketLog {
 public:
  explicit PacketLog(std::string path);
  void record(const network::Packet& packet);
  // Flushes and moves the log into place.
  void close();

 private:
  std::string path_;
  std::string tmp_;
  std::ofstream out_;
};

}  // namespace ibsec::sim
