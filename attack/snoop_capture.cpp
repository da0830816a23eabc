#include "attack/snoop_capture.h"

#include "nic/synthetic_payload.h"

namespace ibsec::attack {
namespace {

void write_hex(std::ostream& out, std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (const uint8_t b : bytes) out << kDigits[b >> 4] << kDigits[b & 0xF];
}

}  // namespace

SnoopCapture::SnoopCapture(const std::string& path) {
  if (path.empty()) return;
  file_ = std::make_unique<AtomicFile>(path, "attack.capture_file");
  file_->stream() << "time_ps,packet,source_node,destination_node,source_process,destination_process,session_key,"
                     "sequence,message,payload_bytes,payload_hex,tag_hex\n";
}

void SnoopCapture::snooped(const network::Packet& p, std::span<const uint8_t> payload, std::span<const uint8_t> tag,
                           Tick at) {
  ++packets_;
  if (!payload.empty() && nic::SyntheticPayload::matches(p.key, p.source_process, p.sequence, payload)) {
    ++plaintext_exposed_;
  }
  if (!file_) return;
  std::ostream& out = file_->stream();
  out << at << ',' << p.id << ',' << p.source.value() << ',' << p.destination.value() << ',' << p.source_process << ','
      << p.destination_process << ',' << p.key.value() << ',' << p.sequence << ',' << p.message << ','
      << p.payload_bytes << ',';
  write_hex(out, payload);
  out << ',';
  write_hex(out, tag);
  out << '\n';
}

void SnoopCapture::close() {
  if (file_) file_->commit();
}

}  // namespace ibsec::attack
