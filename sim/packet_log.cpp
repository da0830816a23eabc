#include "sim/packet_log.h"

namespace ibsec::sim {

PacketLog::PacketLog(std::string path) : file_(std::move(path), "sim.event_log") {
  file_.stream() << "packet,source_node,destination_node,source_process,destination_process,session_key,sequence,"
                    "lane,payload_bytes,wire_bytes,handover_ps,delivered_ps,latency_ps,measured\n";
}

void PacketLog::record(const network::Packet& p) {
  file_.stream() << p.id << ',' << p.source.value() << ',' << p.destination.value() << ',' << p.source_process << ','
                 << p.destination_process << ',' << p.key.value() << ',' << p.sequence << ',' << int{p.lane.value()}
                 << ',' << p.payload_bytes << ',' << p.wire_bytes << ',' << p.handover << ',' << p.delivered << ','
                 << p.delivered - p.handover << ',' << (p.measured ? 1 : 0) << '\n';
}

}  // namespace ibsec::sim
