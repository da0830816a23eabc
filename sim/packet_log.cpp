#include "sim/packet_log.h"

#include <unistd.h>

#include <filesystem>

#include "core/errors.h"

namespace ibsec::sim {

PacketLog::PacketLog(std::string path)
    : path_(std::move(path)), tmp_(path_ + ".tmp." + std::to_string(::getpid())), out_(tmp_, std::ios::trunc) {
  if (!out_) throw ConfigError("sim.event_log", "cannot write '" + tmp_ + "'");
  out_ << "packet,source_node,destination_node,source_process,destination_process,session_key,sequence,"
          "lane,payload_bytes,wire_bytes,handover_ps,delivered_ps,latency_ps,measured\n";
}

void PacketLog::record(const network::Packet& p) {
  out_ << p.id << ',' << p.source.value() << ',' << p.destination.value() << ',' << p.source_process << ','
       << p.destination_process << ',' << p.key.value() << ',' << p.sequence << ',' << int{p.lane.value()} << ','
       << p.payload_bytes << ',' << p.wire_bytes << ',' << p.handover << ',' << p.delivered << ','
       << p.delivered - p.handover << ',' << (p.measured ? 1 : 0) << '\n';
}

void PacketLog::close() {
  out_.close();
  if (!out_) throw ConfigError("sim.event_log", "writing '" + path_ + "' failed");
  std::filesystem::rename(tmp_, path_);
}

}  // namespace ibsec::sim
