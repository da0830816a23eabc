#include "network/attack.h"

#include <sstream>

#include "core/errors.h"

namespace ibsec::network {

AttackSite AttackSite::parse(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string first;
  std::string third;
  std::string extra;
  uint64_t index = 0;
  AttackSite site;
  in >> first >> index;
  const bool numbered = !in.fail();
  in >> third;
  if (numbered && first == "node" && (third == "out" || third == "in")) {
    site.kind = third == "out" ? Kind::kNodeOut : Kind::kNodeIn;
  } else if (numbered && first == "switch" && third == "port") {
    uint64_t port = 0;
    in >> port;
    if (in.fail() || port > UINT16_MAX) throw ConfigError(key, "expected 'switch S port P', got '" + text + "'");
    site.kind = Kind::kSwitchPort;
    site.port = static_cast<uint16_t>(port);
  } else {
    throw ConfigError(key, "expected 'node N out', 'node N in' or 'switch S port P', got '" + text + "'");
  }
  if (index > UINT32_MAX || (in >> extra)) throw ConfigError(key, "cannot read '" + text + "' as a link");
  site.index = static_cast<uint32_t>(index);
  return site;
}

std::string AttackSite::text() const {
  switch (kind) {
    case Kind::kNodeOut:
      return "node " + std::to_string(index) + " out";
    case Kind::kNodeIn:
      return "node " + std::to_string(index) + " in";
    case Kind::kSwitchPort:
      break;
  }
  return "switch " + std::to_string(index) + " port " + std::to_string(port);
}

}  // namespace ibsec::network
