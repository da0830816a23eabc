// The text `ibnetdiscover` prints (infiniband-diags; the same format ibsim
// reads its fabrics from): one record per device, a header line
// `Switch 36 "S-<guid>" # "desc" base port 0 lid 3 lmc 0` or
// `Ca 2 "H-<guid>" # "desc"`, then one line per cabled port,
// `[1] "H-<guid>"[1](<port guid>) # "desc" lid 4 4xQDR` on a switch and
// `[1](<port guid>) "S-<guid>"[3] # lid 4 lmc 0 "desc" lid 3 4xQDR` on a
// CA. Read and checked whole: every cable listed at both ends, alike.
// Errors are ConfigError naming the parameter the path came from, then
// "FILE:LINE: field 'F': problem" (docs/topology.md, "ibnetdiscover").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ibsec::network {

struct SubnetLink {
  uint16_t port = 0;         // on this device, 1-based as InfiniBand numbers them
  std::string remote;        // the id of the device at the other end ("S-0008f104...")
  uint16_t remote_port = 0;  // on that device
  uint16_t lid = 0;          // a CA port's own LID; 0 on a switch (its LID is the device's)
  std::string width;         // "4x"
  std::string generation;    // "QDR"
  uint64_t line = 0;
};

struct SubnetDevice {
  bool is_switch = false;
  std::string id;  // the quoted name that cable lines refer to
  uint64_t guid = 0;
  uint16_t ports = 0;  // physical ports, numbered 1..ports
  uint16_t lid = 0;    // a switch's base LID (port 0); 0 for a CA
  uint64_t line = 0;   // of the header
  std::vector<SubnetLink> links;
};

struct SubnetFile {
  std::string path;
  std::string field;  // the parameter that named it, for messages
  std::vector<SubnetDevice> devices;
};

// Reads and cross-checks `path`. Throws ConfigError(field, ...).
SubnetFile read_ibnetdiscover(const std::string& path, const std::string& field);

// ConfigError(field, "FILE:LINE: field 'COLUMN': problem"), for checks made
// after the line was read.
[[noreturn]] void subnet_file_error(const SubnetFile& file, uint64_t line, const std::string& column,
                                    const std::string& problem);

}  // namespace ibsec::network
