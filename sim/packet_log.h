// Optional per-packet log (sim.event_log): one CSV row per delivered packet.
// The file appears under its name when the run ends (AtomicFile), so a reader
// never sees a half-written log. When the option is off, nothing is created
// and a delivery costs one null-pointer test.
#pragma once

#include <string>

#include "core/atomic_file.h"
#include "network/packet.h"

namespace ibsec::sim {

class PacketLog {
 public:
  explicit PacketLog(std::string path);
  void record(const network::Packet& packet);
  // Flushes and moves the log into place.
  void close() { file_.commit(); }

 private:
  AtomicFile file_;
};

}  // namespace ibsec::sim
