// Routing by loaded tables: the linear forwarding tables a subnet manager
// actually programmed, as `ibroute <switch LID>` prints them for one
// switch, concatenated for every switch (what `dump_fts`, formerly
// `dump_lfts.sh`, prints), or as OpenSM writes them to opensm-lfts.dump.
// LIDs map to nodes and switches through the ibnetdiscover fabric, so this
// routing needs network.topology=ibnetdiscover (docs/topology.md, "lft").
#include <cstdio>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include "core/bounded_input.h"
#include "core/errors.h"
#include "network/routing.h"

namespace ibsec::network {
namespace {

constexpr const char* kFileKey = "network.lft.file";

// A table's first line names its switch by GUID; the LID or directed route
// before it depends on how the dump was taken and is not needed.
const std::regex& table_header() {
  static const std::regex re(
      R"(^Unicast lids \[0x[0-9a-fA-F]+-0x[0-9a-fA-F]+\] of switch .* guid 0x([0-9a-fA-F]{1,16}) \(.*\):\s*$)");
  return re;
}
// "0x0004 003 : (Channel Adapter portguid ...)" from ibroute, "0x0004 003"
// from ibroute -n, "0x0004 003 # ..." from OpenSM's dump.
const std::regex& table_entry() {
  static const std::regex re(R"(^0x([0-9a-fA-F]{1,4})\s+(\d{1,3})(?:\s*[:#].*)?\s*$)");
  return re;
}
const std::regex& ignored_line() {
  static const std::regex re(
      R"(^(#.*|\s*Lid\s+Out\s+Destination\s*|\s*Port\s+Info\s*|\d+ (valid )?lids dumped\s*|\*\*\* WARNING \*\*\*: this command has been replaced by dump_fts\s*|\s*)$)");
  return re;
}

class LftLoader {
 public:
  LftLoader(Topology& topology, const std::string& path) : topology_(topology), reader_(path, kFileKey, "LFT dump") {
    const SubnetAddresses& subnet = *topology.subnet;
    for (uint32_t s = 0; s < subnet.switch_guid.size(); ++s) {
      switch_by_guid_[subnet.switch_guid[s]] = s;
      switch_lids_[subnet.switch_lid[s]] = s;
    }
    for (uint32_t n = 0; n < subnet.node_lid.size(); ++n) node_by_lid_[subnet.node_lid[n]] = n;
    for (SwitchSpec& spec : topology.switches) spec.forwarding.fill(PortId(spec.ports));  // no path
  }

  void load() {
    std::string line;
    while (reader_.next(line)) read_line(line);
    for (uint32_t s = 0; s < topology_.switches.size(); ++s) {
      if (!loaded_.contains(s)) reader_.fail_file("no table for " + switch_name(topology_, s) + " " + guid_text(s));
    }
  }

 private:
  void read_line(const std::string& line) {
    std::smatch match;
    if (std::regex_match(line, match, table_header())) return start_table(match[1].str());
    if (std::regex_match(line, match, table_entry())) return entry(match[1].str(), match[2].str());
    if (std::regex_match(line, ignored_line())) return;
    reader_.fail("line", "not a table header (Unicast lids ... guid 0x...), an entry (0xLID PORT) or a count: " + line);
  }

  void start_table(const std::string& guid_digits) {
    const uint64_t guid = std::stoull(guid_digits, nullptr, 16);
    const auto found = switch_by_guid_.find(guid);
    if (found == switch_by_guid_.end()) {
      reader_.fail("guid", "switch GUID 0x" + guid_digits + " is not a switch of " + topology_.subnet->file);
    }
    const auto [at, added] = loaded_.emplace(found->second, reader_.line_number());
    if (!added)
      reader_.fail("guid", "a second table for this switch (the first at line " + std::to_string(at->second) + ")");
    current_ = found->second;
    seen_lids_.clear();
  }

  void entry(const std::string& lid_digits, const std::string& port_digits) {
    if (!current_) reader_.fail("lid", "an entry before any table header");
    const auto lid = static_cast<uint16_t>(std::stoul(lid_digits, nullptr, 16));
    if (!seen_lids_.insert(lid).second) reader_.fail("lid", "LID " + std::to_string(lid) + " twice in this table");
    const uint64_t port = std::stoul(port_digits);
    SwitchSpec& spec = topology_.switches[*current_];
    if (port >= spec.ports) {
      reader_.fail("port",
                   "port " + std::to_string(port) + " of a switch with ports 0.." + std::to_string(spec.ports - 1));
    }
    if (switch_lids_.contains(lid)) return;  // management traffic to a switch: not modelled
    const auto node = node_by_lid_.find(lid);
    if (node == node_by_lid_.end()) {
      reader_.fail("lid", "LID " + std::to_string(lid) + " is no switch or CA port of " + topology_.subnet->file);
    }
    spec.forwarding.set(node->second, PortId(static_cast<uint16_t>(port)));
  }

  std::string guid_text(uint32_t s) const {
    char text[24];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(topology_.subnet->switch_guid[s]));
    return std::string("GUID ") + text;
  }

  Topology& topology_;
  LineReader reader_;
  std::map<uint64_t, uint32_t> switch_by_guid_;
  std::map<uint16_t, uint32_t> switch_lids_;
  std::map<uint16_t, uint32_t> node_by_lid_;
  std::map<uint32_t, uint64_t> loaded_;  // switch -> line of its table
  std::optional<uint32_t> current_;
  std::set<uint16_t> seen_lids_;
};

void route_by_loaded_tables(Topology& topology, const ParameterValues& own) {
  if (!topology.subnet) {
    throw ConfigError("network.routing",
                      "lft maps LIDs to nodes through the fabric's own file: it needs "
                      "network.topology=ibnetdiscover, not " +
                          topology.name);
  }
  const std::string path = own.text(kFileKey);
  if (path.empty()) throw ConfigError(kFileKey, "give the forwarding tables (ibroute/dump_fts output) to load");
  LftLoader(topology, path).load();
}

}  // namespace

IBSEC_REGISTER_ROUTING("lft",
                       "the linear forwarding tables a subnet manager programmed, loaded from ibroute/dump_fts output "
                       "(network.lft.file); needs network.topology=ibnetdiscover",
                       (std::vector<ParameterInfo>{
                           {"network.lft.file", "", "path",
                            "every switch's unicast table as `ibroute`/`dump_fts` print them (docs/topology.md)",
                            "input"},
                       }),
                       route_by_loaded_tables)

}  // namespace ibsec::network
