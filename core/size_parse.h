// Reads sizes such as "16KB", "2 KiB", "512B" or "4096" (bytes).
#pragma once

#include <cstdint>
#include <string_view>

namespace ibsec {

// KB and KiB both mean 1024 bytes, as cache sizes are quoted in the paper.
// Throws ConfigError naming `field` on anything else.
uint64_t parse_size_bytes(std::string_view text, std::string_view field);

}  // namespace ibsec
