// The attacker's capture (attack.snoop): optionally a CSV of every snooped
// packet as it was on the wire, header fields, payload and tag in hex, and a
// count of the captured payloads that are plaintext. The count is the
// attacker's known-plaintext test: synthetic payloads are a public function
// of the header (nic/synthetic_payload.h), so a captured payload equal to
// that function's output was readable. With security on it must stay 0.
#pragma once

#include <memory>
#include <string>

#include "attack/attacker.h"
#include "core/atomic_file.h"

namespace ibsec::attack {

class SnoopCapture final : public attack::SnoopSink {
 public:
  // `path` empty: count only, write nothing.
  explicit SnoopCapture(const std::string& path);

  void snooped(const network::Packet& packet, std::span<const uint8_t> payload, std::span<const uint8_t> tag,
               Tick at) override;
  // Moves the capture file into place (nothing without one).
  void close();

  [[nodiscard]] uint64_t packets() const { return packets_; }
  [[nodiscard]] uint64_t plaintext_exposed() const { return plaintext_exposed_; }

 private:
  std::unique_ptr<AtomicFile> file_;
  uint64_t packets_ = 0;
  uint64_t plaintext_exposed_ = 0;
};

}  // namespace ibsec::attack
