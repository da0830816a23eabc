#include "network/ibnetdiscover_file.h"

#include <map>
#include <optional>
#include <regex>

#include "core/bounded_input.h"
#include "core/errors.h"
#include "network/link_rate.h"

namespace ibsec::network {
namespace {

// Unicast LIDs are 0x0001..0xBFFF (IBA vol. 1, 4.1.3); multicast above.
constexpr uint64_t kMaxUnicastLid = 0xBFFF;
// A device's port count is 8 bits in NodeInfo.NumPorts.
constexpr uint64_t kMaxDevicePorts = 255;

const std::regex& key_value_line() {
  static const std::regex re(R"(^(vendid|devid|sysimgguid|switchguid|caguid|rtguid)=0x([0-9a-fA-F]+)(\(.*\))?\s*$)");
  return re;
}
const std::regex& header_line() {
  static const std::regex re(R"re(^(Switch|Ca|Rt)\s+(\d+)\s+"([^"]+)"\s*(?:#(.*))?$)re");
  return re;
}
const std::regex& port_line() {
  static const std::regex re(
      R"re(^\[(\d+)\](?:\[ext \d+\])?(?:\([0-9a-fA-F]+\))?\s+"([^"]+)"\[(\d+)\](?:\[ext \d+\])?(?:\([0-9a-fA-F]+\))?\s*(?:#(.*))?$)re");
  return re;
}

// What a comment says once its quoted descriptions (which may hold any
// words, "lid 5" included) are taken out.
std::string unquoted(const std::string& comment) { return std::regex_replace(comment, std::regex(R"("[^"]*")"), " "); }

// The first "lid N" of a comment, if any.
std::optional<std::string> first_lid(const std::string& comment) {
  static const std::regex re(R"(\blid (\S+))");
  std::smatch match;
  if (!std::regex_search(comment, match, re)) return std::nullopt;
  return match[1].str();
}

bool is_width(const std::string& name) {
  for (const LinkWidth& width : link_widths()) {
    if (width.name == name) return true;
  }
  return false;
}
bool is_generation(const std::string& name) {
  for (const LinkGeneration& generation : link_generations()) {
    if (generation.name == name) return true;
  }
  return false;
}

class Parser {
 public:
  Parser(const std::string& path, const std::string& field) : reader_(path, field, "ibnetdiscover file") {
    file_.path = path;
    file_.field = field;
  }

  SubnetFile parse() {
    std::string line;
    while (reader_.next(line)) parse_line(line);
    if (file_.devices.empty()) reader_.fail_file("no Switch or Ca record: is this ibnetdiscover's output?");
    return std::move(file_);
  }

 private:
  void parse_line(const std::string& line) {
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') return;
    std::smatch match;
    if (std::regex_match(line, match, key_value_line())) return key_value(match);
    if (std::regex_match(line, match, header_line())) return header(match);
    if (std::regex_match(line, match, port_line())) return port(match);
    reader_.fail("line", "not a device header (Switch/Ca), a cabled port ([n] \"id\"[m]) or key=0x... line: " + line);
  }

  void key_value(const std::smatch& match) {
    const std::string key = match[1].str();
    if (key == "rtguid") reader_.fail(key, "routers are not modelled");
    if (key == "switchguid" || key == "caguid") guid_ = hex(match[2].str(), key);
  }

  void header(const std::smatch& match) {
    const std::string kind = match[1].str();
    if (kind == "Rt") reader_.fail("type", "routers are not modelled");
    SubnetDevice device;
    device.is_switch = kind == "Switch";
    device.ports = static_cast<uint16_t>(number(match[2].str(), "ports", 1, kMaxDevicePorts));
    device.id = match[3].str();
    device.guid = guid_ ? *guid_ : guid_from_id(device.id);
    guid_.reset();
    device.line = reader_.line_number();
    if (device.is_switch) device.lid = lid_in(unquoted(match[4].str()), "base port 0 lid");
    file_.devices.push_back(std::move(device));
  }

  void port(const std::smatch& match) {
    if (file_.devices.empty()) reader_.fail("port", "a cabled port before any Switch or Ca header");
    SubnetDevice& device = file_.devices.back();
    SubnetLink link;
    link.port = static_cast<uint16_t>(number(match[1].str(), "port", 1, device.ports));
    for (const SubnetLink& seen : device.links) {
      if (seen.port == link.port) {
        reader_.fail("port", "port " + std::to_string(link.port) + " of \"" + device.id + "\" is listed twice (line " +
                                 std::to_string(seen.line) + ")");
      }
    }
    link.remote = match[2].str();
    link.remote_port = static_cast<uint16_t>(number(match[3].str(), "remote port", 1, kMaxDevicePorts));
    const std::string comment = unquoted(match[4].str());
    if (!device.is_switch) link.lid = lid_in(comment, "lid");
    rate_in(comment, link);
    link.line = reader_.line_number();
    device.links.push_back(std::move(link));
  }

  uint64_t number(const std::string& text, const std::string& column, uint64_t low, uint64_t high) const {
    if (text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos) {
      reader_.fail(column, "not a number: " + text);
    }
    const uint64_t value = std::stoull(text);
    if (value < low || value > high) {
      reader_.fail(column,
                   std::to_string(value) + " is out of range " + std::to_string(low) + ".." + std::to_string(high));
    }
    return value;
  }

  uint64_t hex(const std::string& digits, const std::string& column) const {
    if (digits.size() > 16) reader_.fail(column, "more than 64 bits: 0x" + digits);
    return std::stoull(digits, nullptr, 16);
  }

  // Without a switchguid=/caguid= line, the GUID is the one ibnetdiscover
  // writes into the id: "S-" or "H-" and 16 hex digits.
  uint64_t guid_from_id(const std::string& id) const {
    static const std::regex re(R"(^[SH]-([0-9a-fA-F]{16})$)");
    std::smatch match;
    if (!std::regex_match(id, match, re)) {
      reader_.fail("guid",
                   "no switchguid=/caguid= line before \"" + id + "\" and its id is not S-/H- and 16 hex digits");
    }
    return hex(match[1].str(), "guid");
  }

  uint16_t lid_in(const std::string& comment, const std::string& what) const {
    const std::optional<std::string> lid = first_lid(comment);
    if (!lid) reader_.fail("lid", "no '" + what + " N' in the comment: a subnet manager must have assigned LIDs");
    return static_cast<uint16_t>(number(*lid, "lid", 1, kMaxUnicastLid));
  }

  // The comment ends with the link's width and speed, e.g. "4xQDR".
  void rate_in(const std::string& comment, SubnetLink& link) const {
    static const std::regex re(R"((\d+x)([A-Za-z0-9]+)\s*$)");
    std::smatch match;
    if (!std::regex_search(comment, match, re)) reader_.fail("rate", "no width and speed (e.g. 4xQDR) at the end");
    link.width = match[1].str();
    link.generation = match[2].str();
    if (!is_width(link.width)) reader_.fail("rate", "unknown link width " + link.width + " (1x, 2x, 4x, 8x or 12x)");
    if (!is_generation(link.generation)) {
      reader_.fail("rate",
                   "link speed " + link.generation + " is not a modelled generation (SDR ... XDR; docs/network.md)");
    }
  }

  LineReader reader_;
  SubnetFile file_;
  std::optional<uint64_t> guid_;  // from the switchguid=/caguid= line of the record being read
};

// --- both ends of every cable ---------------------------------------------

const SubnetLink* link_at(const SubnetDevice& device, uint16_t port) {
  for (const SubnetLink& link : device.links) {
    if (link.port == port) return &link;
  }
  return nullptr;
}

void check_other_end(const SubnetFile& file, const SubnetDevice& device, const SubnetLink& link,
                     const SubnetDevice& remote) {
  const std::string here = "\"" + device.id + "\" port " + std::to_string(link.port);
  const std::string there = "\"" + remote.id + "\" port " + std::to_string(link.remote_port);
  if (link.remote_port > remote.ports) {
    subnet_file_error(file, link.line, "remote port",
                      there + " does not exist: \"" + remote.id + "\" has " + std::to_string(remote.ports) +
                          " ports (line " + std::to_string(remote.line) + ")");
  }
  const SubnetLink* back = link_at(remote, link.remote_port);
  if (back == nullptr) {
    subnet_file_error(
        file, link.line, "remote",
        "the cable to " + there + " is not listed at that end (record at line " + std::to_string(remote.line) + ")");
  }
  if (back->remote != device.id || back->remote_port != link.port) {
    subnet_file_error(file, link.line, "remote",
                      here + " is cabled to " + there + ", but line " + std::to_string(back->line) + " cables " +
                          there + " to \"" + back->remote + "\" port " + std::to_string(back->remote_port));
  }
  if (back->width != link.width || back->generation != link.generation) {
    subnet_file_error(file, link.line, "rate",
                      link.width + link.generation + " here, " + back->width + back->generation +
                          " at the other end (line " + std::to_string(back->line) + ")");
  }
}

void check_cables(const SubnetFile& file) {
  std::map<std::string, const SubnetDevice*> by_id;
  for (const SubnetDevice& device : file.devices) {
    const auto [at, added] = by_id.emplace(device.id, &device);
    if (!added) {
      subnet_file_error(file, device.line, "id",
                        "\"" + device.id + "\" is described twice (line " + std::to_string(at->second->line) + ")");
    }
  }
  for (const SubnetDevice& device : file.devices) {
    for (const SubnetLink& link : device.links) {
      const auto remote = by_id.find(link.remote);
      if (remote == by_id.end()) subnet_file_error(file, link.line, "remote", "unknown device \"" + link.remote + "\"");
      check_other_end(file, device, link, *remote->second);
    }
  }
}

}  // namespace

void subnet_file_error(const SubnetFile& file, uint64_t line, const std::string& column, const std::string& problem) {
  throw ConfigError(file.field, file.path + ":" + std::to_string(line) + ": field '" + column + "': " + problem);
}

SubnetFile read_ibnetdiscover(const std::string& path, const std::string& field) {
  SubnetFile file = Parser(path, field).parse();
  check_cables(file);
  return file;
}

}  // namespace ibsec::network
