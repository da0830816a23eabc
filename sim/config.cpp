#include "sim/config.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "network/link_rate.h"
#include "nic/cacti_table.h"
#include "nic/replacement_policy.h"

namespace ibsec::sim {
namespace {

using json = nlohmann::json;
using Table = std::map<std::string, json>;

constexpr uint32_t kPaperNodes = 16;  // §4.1

}  // namespace

const std::vector<ParameterInfo>& parameters() {
  static const std::vector<ParameterInfo> kParameters{
      {"seed", 1, "", "seed of every random stream in the run"},
      {"network.topology", "single-switch", "", "single-switch or fat-tree (k-ary n-tree)"},
      {"network.nodes", 0, "nodes", "cluster size; 0 = the topology's own: 16 (the paper's) for single-switch, k^n for fat-tree"},
      {"network.switch_ports", 0, "ports", "switch radix; 0 = smallest that fits the topology"},
      {"network.fat_tree.k", 4, "", "fat-tree arity k (switches have 2k ports)"},
      {"network.fat_tree.n", 2, "levels", "fat-tree levels n (k^n nodes)"},
      {"network.link_rate", "SDR", "", "InfiniBand 4x rate: SDR (8 Gb/s data), DDR (16), QDR (32)"},
      {"network.link_delay_ns", 10.0, "ns", "propagation delay of every cable (2 m of copper at ~5 ns/m)"},
      {"network.switch_latency_ns", 200.0, "ns",
       "switch traversal, head in to head out (Mellanox InfiniScale III: < 200 ns port to port)"},
      {"network.virtual_lanes", 1, "lanes", "data virtual lanes per port (1..15); a session uses lane key mod lanes"},
      {"network.vl_buffer_bytes", 4096, "bytes", "input buffer per port and virtual lane (64-byte credits)"},
      {"nic.security", "SKC-6", "", "NoSecurity, NoSKC, SKC-<n> or SKC-<n>+Prefetch-<m>"},
      {"nic.skc.ways", 0, "ways", "SKC associativity; 0 = fully associative"},
      {"nic.skc.policy", "lru", "", "SKC replacement policy (lru, fifo, random, lfu; opt is for cachesim only)"},
      {"nic.skc.access_ns", 3.0, "ns",
       "SKC (and prefetch buffer) access time, or \"cacti\": the CACTI 7 access time of the SKC's geometry "
       "(SKC entries x nic.skc.block_bytes, nic.skc.ways, nic.tech_nm) from nic.cacti_table; 3.0 is the paper's "
       "CACTI figure for 16 KB at 45 nm (docs/hardware-cost.md)"},
      {"nic.skc.block_bytes", 32, "bytes", "CACTI line per session key entry (key, identifier, state), for \"cacti\""},
      {"nic.tech_nm", 45, "nm", "technology node of the card, for nic.skc.access_ns = \"cacti\""},
      {"nic.cacti_table", "", "path",
       "CACTI table (CSV) for nic.skc.access_ns = \"cacti\"; empty = the shipped one. The cache of live CACTI runs "
       "that `ibsec hwcost` keeps (~/.cache/ibsec/cacti/cacti_runs.csv) is read after it"},
      {"nic.prefetch.list_entries", 0, "keys",
       "recently evicted keys the card remembers per process for prefetching; 0 = the prefetch buffer's size"},
      {"nic.clock_mhz", 270.0, "MHz", "card clock; the GCM unit and key look-ups run on it"},
      {"nic.key_memory_ns", 2500.0, "ns", "external key memory access per session key (one port, FIFO)"},
      {"nic.gcm.first_block_cycles", 12, "cycles", "GCM latency of the first 128-bit block"},
      {"nic.gcm.block_cycles", 1, "cycles", "GCM cycles per further block (the length block counts as one)"},
      {"nic.gcm.tag_cycles", 2, "cycles", "GCM cycles to produce or check the tag"},
      {"nic.gcm.pipelined", false, "", "whether a GCM unit overlaps consecutive packets"},
      {"nic.mtu_bytes", 256, "bytes", "payload per packet; larger messages are segmented"},
      {"nic.header_bytes", 26, "bytes", "InfiniBand headers per packet: LRH 8 + BTH 12 + ICRC 4 + VCRC 2"},
      {"nic.security_bytes", 24, "bytes", "added by security: key id 4 + sequence number 4 + GCM tag 16"},
      {"nic.crypto.mode", "timing", "",
       "timing (time only) or functional: real AES-GCM on synthetic payloads, keys wrapped in key memory, replay "
       "window; same timing (docs/crypto.md, \"In the card\")"},
      {"nic.crypto.key_bits", 128, "bits", "session key size in functional mode: 128 (AES-128) or 256 (AES-256)"},
      {"traffic.pattern", "uniform", "", "uniform, bit-complement, transpose, shift or hotspot"},
      {"traffic.injection", "bernoulli", "", "bernoulli (slotted) or poisson"},
      {"traffic.load", 0.05, "fraction", "offered payload per node as a fraction of the link data rate"},
      {"traffic.sizes_bytes", json::array({256}), "bytes", "message sizes to draw from"},
      {"traffic.size_weights", json::array(), "", "relative weight of each message size; empty = equal weights"},
      {"traffic.processes_per_node", 1, "processes", "processes per node; a session is a pair of processes"},
      {"traffic.sessions_per_node", 0, "sessions",
       "if > 0, each node draws this many sessions up front and reuses them"},
      {"traffic.shift", 1, "nodes", "distance of the shift pattern"},
      {"traffic.hotspot.nodes", json::array({0}), "", "hot nodes of the hotspot pattern"},
      {"traffic.hotspot.fraction", 0.2, "fraction", "share of messages sent to a hot node"},
      {"traffic.max_backlog_packets", 256, "packets", "a node whose send queue is this long refuses new offers"},
      {"traffic.messages", 100000, "messages", "messages offered (over all nodes) after warm-up"},
      {"traffic.warmup_messages", 10000, "messages", "messages offered before measurement starts"},
      {"trace.file", "", "path",
       "trace to replay (docs/trace-format.md) instead of synthetic traffic; traffic.* is then ignored"},
      {"trace.jobs", json::array(), "paths",
       "traces replayed together, one job each, sharing the nodes (rank r of every job on node r mod nodes); "
       "exclusive with trace.file"},
      {"scheduler.policy", "batch", "",
       "CPU scheduling of replayed processes: batch (a CPU each), local, sb, dcs-sb, pb or gang (docs/schedulers.md)"},
      {"scheduler.cpus_per_node", 1, "CPUs", "CPUs per node shared by the processes placed on it"},
      {"scheduler.context_switch_us", 5.0, "us",
       "CPU time lost when a CPU switches to another process (direct cost ~4 us on Linux 2.6, Li et al. 2007, "
       "plus some cache refill)"},
      {"scheduler.wait", "auto", "",
       "how a process waits for communication: auto (the policy's), spin, block or spin-block"},
      {"scheduler.start_order", "random", "",
       "order in which a node's run queue first holds its processes: random (per node, seeded) or job"},
      {"scheduler.spin_us", 750.0, "us", "spin time before blocking, SB and DCS-SB (§4.1)"},
      {"scheduler.boost_period_ms", 2.0, "ms", "PB: period of the priority boost (§4.1)"},
      {"scheduler.gang_slot_ms", 20.0, "ms", "gang: length of a time slot (§4.1)"},
      {"attack.link", "", "",
       "cable an attacker sits on: 'node N out', 'node N in' or 'switch S port P'; empty = no attacker "
       "(docs/attacks.md; needs nic.crypto.mode = functional)"},
      {"attack.snoop", 0.0, "fraction", "share of passing packets the attacker copies into its capture"},
      {"attack.tamper", 0.0, "fraction", "share of passing packets the attacker alters (one bit flipped)"},
      {"attack.tamper_field", "any", "", "what a tamper flips: header, payload, tag or any"},
      {"attack.inject", 0.0, "fraction", "per passing packet, chance of a forged packet sent behind it"},
      {"attack.replay", 0.0, "fraction", "share of passing packets captured and sent again attack.replay_delay_us later"},
      {"attack.replay_delay_us", 2.0, "us", "how long after capture a replayed packet is sent"},
      {"attack.spoof", 0.0, "fraction", "per passing packet, chance of a copy claiming another source process"},
      {"attack.victims", json::array(), "nodes", "destination nodes whose packets are attacked; empty = all"},
      {"attack.capture_file", "", "path", "CSV of the snooped packets as they were on the wire (off when empty)"},
      {"sim.drain_timeout_us", 10000.0, "us", "simulated time allowed to deliver what is in flight at the end"},
      {"sim.event_log", "", "path", "per-packet CSV log (off when empty)"},
      {"sim.vcd", "", "path", "SystemC VCD trace of card and link activity (off when empty)"},
  };
  return kParameters;
}

namespace {

void flatten(const json& node, const std::string& prefix, Table& out) {
  for (const auto& [key, value] : node.items()) {
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object()) {
      flatten(value, path, out);
    } else {
      out[path] = value;
    }
  }
}

bool known(const std::string& key) {
  for (const auto& p : parameters()) {
    if (p.key == key) return true;
  }
  return false;
}

void merge(Table& table, const Table& layer, const std::string& origin) {
  for (const auto& [key, value] : layer) {
    if (!known(key)) throw ConfigError(key, "unknown parameter (in " + origin + "); `ibsec-engine params` lists them");
    table[key] = value;
  }
}

json parse_override_value(const std::string& text) {
  json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return value.is_discarded() ? json(text) : value;
}

// Typed reads: each names the key when the value does not fit.
class Reader {
 public:
  explicit Reader(const Table& table) : table_(table) {}

  [[nodiscard]] const json& at(const std::string& key) const { return table_.at(key); }

  uint64_t count(const std::string& key, uint64_t max = UINT32_MAX) const {
    const json& v = at(key);
    if (v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0)) {
      const auto n = v.get<uint64_t>();
      if (n <= max) return n;
      throw ConfigError(key, "must be at most " + std::to_string(max) + ", got " + v.dump());
    }
    if (v.is_number_float() && v.get<double>() >= 0 && std::floor(v.get<double>()) == v.get<double>()) {
      return count_from_float(key, v.get<double>(), max);
    }
    throw ConfigError(key, "expected a whole number >= 0, got " + v.dump());
  }
  double number(const std::string& key) const {
    const json& v = at(key);
    if (!v.is_number()) throw ConfigError(key, "expected a number, got " + v.dump());
    return v.get<double>();
  }
  double non_negative(const std::string& key) const {
    const double x = number(key);
    if (!(x >= 0.0) || !std::isfinite(x)) throw ConfigError(key, "must be >= 0, got " + at(key).dump());
    return x;
  }
  double positive(const std::string& key) const {
    const double x = number(key);
    if (!(x > 0.0) || !std::isfinite(x)) throw ConfigError(key, "must be > 0, got " + at(key).dump());
    return x;
  }
  std::string text(const std::string& key) const {
    const json& v = at(key);
    if (!v.is_string()) throw ConfigError(key, "expected a string, got " + v.dump());
    return v.get<std::string>();
  }
  bool flag(const std::string& key) const {
    const json& v = at(key);
    if (!v.is_boolean()) throw ConfigError(key, "expected true or false, got " + v.dump());
    return v.get<bool>();
  }
  std::vector<std::string> texts(const std::string& key) const {
    const json& v = at(key);
    std::vector<std::string> out;
    for (const auto& item : v.is_array() ? v : json::array({v})) {
      if (!item.is_string()) throw ConfigError(key, "expected a list of strings, got " + v.dump());
      out.push_back(item.get<std::string>());
    }
    return out;
  }
  template <typename T>
  std::vector<T> list(const std::string& key) const {
    const json& v = at(key);
    std::vector<T> out;
    const json items = v.is_array() ? v : json::array({v});
    for (const auto& item : items) {
      if (!item.is_number() || (std::is_unsigned_v<T> && !(item.is_number_unsigned() ||
                                                             (item.is_number_integer() && item.get<int64_t>() >= 0)))) {
        throw ConfigError(key, std::string("expected a list of ") +
                                   (std::is_unsigned_v<T> ? "whole numbers >= 0" : "numbers") + ", got " + v.dump());
      }
      out.push_back(item.get<T>());
    }
    return out;
  }

 private:
  static uint64_t count_from_float(const std::string& key, double x, uint64_t max) {
    if (x > static_cast<double>(max)) throw ConfigError(key, "must be at most " + std::to_string(max));
    return static_cast<uint64_t>(x);
  }
  const Table& table_;
};

Tick ticks_ns(const Reader& r, const std::string& key) { return ticks_from_ns(r.non_negative(key)); }

void read_network(const Reader& r, NetworkConfig& net) {
  net.topology.name = r.text("network.topology");
  net.topology.nodes = static_cast<uint32_t>(r.count("network.nodes"));
  if (net.topology.nodes == 0 && net.topology.name == "single-switch") net.topology.nodes = kPaperNodes;
  net.topology.switch_ports = static_cast<uint32_t>(r.count("network.switch_ports", UINT16_MAX));
  net.topology.fat_tree_k = static_cast<uint32_t>(r.count("network.fat_tree.k"));
  net.topology.fat_tree_n = static_cast<uint32_t>(r.count("network.fat_tree.n"));
  net.link_rate = r.text("network.link_rate");
  network::link_rate(net.link_rate);  // rejects unknown names
  net.link_delay = ticks_ns(r, "network.link_delay_ns");
  net.switch_latency = ticks_ns(r, "network.switch_latency_ns");
  net.virtual_lanes = static_cast<uint32_t>(r.count("network.virtual_lanes"));
  if (net.virtual_lanes < 1 || net.virtual_lanes > 15) {
    throw ConfigError("network.virtual_lanes", "InfiniBand has 1 to 15 data virtual lanes, got " +
                                                   std::to_string(net.virtual_lanes));
  }
  net.vl_buffer_bytes = static_cast<uint32_t>(r.count("network.vl_buffer_bytes"));
}

void read_crypto(const Reader& r, nic::CicParams& card) {
  const std::string mode = r.text("nic.crypto.mode");
  if (mode != "timing" && mode != "functional") {
    throw ConfigError("nic.crypto.mode", "expected timing or functional, got '" + mode + "'");
  }
  card.functional_crypto = mode == "functional";
  const uint64_t bits = r.count("nic.crypto.key_bits");
  if (bits != 128 && bits != 256) {
    throw ConfigError("nic.crypto.key_bits", "expected 128 or 256, got " + std::to_string(bits));
  }
  card.session_key_bytes = static_cast<uint32_t>(bits / 8);
}

void read_nic(const Reader& r, nic::CicParams& card) {
  card.security = nic::parse_security_mode(r.text("nic.security"));
  card.skc.ways = static_cast<uint32_t>(r.count("nic.skc.ways"));
  card.skc.policy = r.text("nic.skc.policy");
  if (card.skc.policy == "opt") {
    throw ConfigError("nic.skc.policy", "'opt' needs the future look-up sequence; it exists in cachesim only");
  }
  nic::PolicyRegistry::get(card.skc.policy, "nic.skc.policy");  // rejects unknown names
  card.prefetch_list_entries = static_cast<uint32_t>(r.count("nic.prefetch.list_entries", 1U << 16));
  card.clock = Clock::from_mhz(r.positive("nic.clock_mhz"));
  card.key_memory_access = ticks_ns(r, "nic.key_memory_ns");
  card.gcm.first_block_cycles = static_cast<uint32_t>(r.count("nic.gcm.first_block_cycles"));
  card.gcm.further_block_cycles = static_cast<uint32_t>(r.count("nic.gcm.block_cycles"));
  card.gcm.tag_cycles = static_cast<uint32_t>(r.count("nic.gcm.tag_cycles"));
  card.gcm_pipelined = r.flag("nic.gcm.pipelined");
  card.mtu_bytes = static_cast<uint32_t>(r.count("nic.mtu_bytes"));
  if (card.mtu_bytes == 0) throw ConfigError("nic.mtu_bytes", "must be at least 1 byte");
  card.header_bytes = static_cast<uint32_t>(r.count("nic.header_bytes"));
  card.security_bytes = static_cast<uint32_t>(r.count("nic.security_bytes"));
  read_crypto(r, card);
}

std::vector<std::string> cacti_tables(const std::string& chosen) {
  std::string table = chosen;
  if (table.empty()) table = nic::shipped_cacti_table();
  if (table.empty()) {
    throw ConfigError("nic.cacti_table", "the shipped CACTI table (share/ibsec/cacti7_summary.csv) was not found "
                                         "beside the engine; give its path");
  }
  std::vector<std::string> tables{table};
  const std::string cache = nic::user_cacti_cache();
  if (!cache.empty() && std::filesystem::is_regular_file(cache)) tables.push_back(cache);
  return tables;
}

std::string tables_text(const std::vector<std::string>& files) {
  std::string text;
  for (const std::string& f : files) text += (text.empty() ? "" : " and ") + f;
  return text;
}

// What to run to compute a missing geometry, or to change for a rejected one.
std::string cacti_remedy(const nic::CactiGeometry& g) {
  return "compute it with `CACTI_BIN=/path/to/cacti ibsec hwcost --skc " + std::to_string(g.capacity_bytes) +
         "B --ways " + std::to_string(g.assoc) + " --block " + std::to_string(g.block_bytes) + " --tech " +
         std::to_string(g.tech_nm) + " --pb 0` (it caches the result where the engine reads it), or give the "
         "access time in ns, e.g. nic.skc.access_ns=3.0";
}

// The CACTI access time of the card's SKC: capacity = SKC entries x block.
SkcAccessOrigin cacti_skc_access(const nic::CicParams& card, uint32_t tech_nm, uint32_t block_bytes,
                                 const std::string& table_choice) {
  const std::string key = "nic.skc.access_ns";
  const nic::CactiGeometry geometry{tech_nm, uint64_t{card.security.skc_entries} * block_bytes, block_bytes,
                                    card.skc.ways, nic::skc_structure(card.skc.ways)};
  const nic::CactiTable table = nic::CactiTable::read(cacti_tables(table_choice), "nic.cacti_table");
  const nic::CactiRow* row = table.find(geometry);
  const std::string asked = "\"cacti\" needs the CACTI access time of the SKC of " + card.security.name() + " (" +
                            std::to_string(card.security.skc_entries) + " entries x nic.skc.block_bytes " +
                            std::to_string(block_bytes) + " B), " + geometry.describe();
  if (row == nullptr) {
    throw ConfigError(key, asked + ", which " + tables_text(table.files()) + " does not have (it has " +
                               table.contents_near(geometry) + "; figures are never interpolated): " +
                               cacti_remedy(geometry));
  }
  if (!row->access_ns) {
    const std::string hint = geometry.assoc > 1 ? " (an N-way array needs at least 32 sets)" : "";
    throw ConfigError(key, asked + ", which CACTI rejects: " + row->rejection + " (" + row->source +
                               "); choose another size or nic.skc.ways" + hint + ", or give the access time in ns");
  }
  return {*row->access_ns, "CACTI 7: " + geometry.describe() + ", " + row->source};
}

// nic.skc.access_ns: a number of ns, or "cacti" for the CACTI access time of
// the configured SKC (its entries come from nic.security).
SkcAccessOrigin read_skc_access(const Reader& r, nic::CicParams& card) {
  const std::string key = "nic.skc.access_ns";
  const auto block = static_cast<uint32_t>(r.count("nic.skc.block_bytes", 1U << 20));
  const auto tech = static_cast<uint32_t>(r.count("nic.tech_nm", 1000));
  if (block == 0) throw ConfigError("nic.skc.block_bytes", "must be at least 1 byte");
  if (tech == 0) throw ConfigError("nic.tech_nm", "must be a feature size in nm, got 0");
  const std::string table_choice = r.text("nic.cacti_table");
  const std::string unused = card.security.path == nic::KeyPath::kCache
                                 ? ""
                                 : " (not used: nic.security = " + card.security.name() + " has no SKC)";
  if (!r.at(key).is_string()) {
    card.skc_access = ticks_ns(r, key);
    return {r.non_negative(key), key + unused};
  }
  if (r.text(key) != "cacti") throw ConfigError(key, "expected a time in ns or \"cacti\", got " + r.at(key).dump());
  if (!unused.empty()) {
    card.skc_access = 0;
    return {0.0, "cacti" + unused};
  }
  const SkcAccessOrigin origin = cacti_skc_access(card, tech, block, table_choice);
  card.skc_access = ticks_from_ns(origin.ns);
  return origin;
}

void read_traffic(const Reader& r, traces::TrafficParams& t) {
  t.pattern = r.text("traffic.pattern");
  t.injection = r.text("traffic.injection");
  t.load = r.positive("traffic.load");
  t.sizes_bytes = r.list<uint32_t>("traffic.sizes_bytes");
  t.size_weights = r.list<double>("traffic.size_weights");
  if (t.size_weights.empty()) t.size_weights.assign(t.sizes_bytes.size(), 1.0);
  t.processes_per_node = static_cast<uint32_t>(r.count("traffic.processes_per_node"));
  t.sessions_per_node = static_cast<uint32_t>(r.count("traffic.sessions_per_node"));
  t.shift = static_cast<uint32_t>(r.count("traffic.shift"));
  t.hotspot_nodes = r.list<uint32_t>("traffic.hotspot.nodes");
  t.hotspot_fraction = r.non_negative("traffic.hotspot.fraction");
  t.max_backlog_packets = static_cast<uint32_t>(r.count("traffic.max_backlog_packets"));
  t.messages = r.count("traffic.messages", UINT64_MAX);
  t.warmup_messages = r.count("traffic.warmup_messages", UINT64_MAX);
}

Tick ticks_us(double us) { return ticks_from_ns(us * 1.0e3); }
Tick ticks_ms(double ms) { return ticks_from_ns(ms * 1.0e6); }

void read_scheduler(const Reader& r, schedulers::SchedulerParams& s) {
  s.policy = r.text("scheduler.policy");
  schedulers::SchedulerRegistry::get(s.policy, "scheduler.policy");  // rejects unknown names
  s.cpus_per_node = static_cast<uint32_t>(r.count("scheduler.cpus_per_node", 1024));
  if (s.cpus_per_node == 0) throw ConfigError("scheduler.cpus_per_node", "a node needs at least one CPU");
  s.context_switch = ticks_us(r.non_negative("scheduler.context_switch_us"));
  s.wait = schedulers::parse_wait_mode(r.text("scheduler.wait"), "scheduler.wait");
  s.spin = ticks_us(r.non_negative("scheduler.spin_us"));
  const std::string order = r.text("scheduler.start_order");
  if (order != "random" && order != "job") {
    throw ConfigError("scheduler.start_order", "expected random or job, got '" + order + "'");
  }
  s.random_start_order = order == "random";
  s.boost_period = ticks_ms(r.positive("scheduler.boost_period_ms"));
  s.gang_slot = ticks_ms(r.positive("scheduler.gang_slot_ms"));
}

double fraction(const Reader& r, const std::string& key) {
  const double x = r.non_negative(key);
  if (x > 1.0) throw ConfigError(key, "is a probability: must be at most 1, got " + r.at(key).dump());
  return x;
}

network::TamperField tamper_field(const Reader& r) {
  const std::string field = r.text("attack.tamper_field");
  if (field == "any") return network::TamperField::kAny;
  if (field == "header") return network::TamperField::kHeader;
  if (field == "payload") return network::TamperField::kPayload;
  if (field == "tag") return network::TamperField::kTag;
  throw ConfigError("attack.tamper_field", "expected header, payload, tag or any, got '" + field + "'");
}

std::optional<network::AttackParams> read_attack(const Reader& r, uint64_t seed) {
  const std::string link = r.text("attack.link");
  if (link.empty()) return std::nullopt;
  network::AttackParams a;
  a.site = network::AttackSite::parse(link, "attack.link");
  a.snoop = fraction(r, "attack.snoop");
  a.tamper = fraction(r, "attack.tamper");
  a.inject = fraction(r, "attack.inject");
  a.replay = fraction(r, "attack.replay");
  a.spoof = fraction(r, "attack.spoof");
  a.tamper_field = tamper_field(r);
  a.replay_delay = ticks_us(r.non_negative("attack.replay_delay_us"));
  a.victims = r.list<uint32_t>("attack.victims");
  a.capture_file = r.text("attack.capture_file");
  a.seed = seed ^ 0xA77AC4ED5EEDULL;  // its own stream, unlike any the traffic draws from
  return a;
}

void check_attack(const SimConfig& config, uint32_t nodes) {
  if (!config.attack) return;
  if (!config.nic.functional_crypto) {
    throw ConfigError("attack.link", "an attacker needs packets with bytes: set nic.crypto.mode = functional");
  }
  for (const uint32_t victim : config.attack->victims) {
    if (victim >= nodes) {
      throw ConfigError("attack.victims", "node " + std::to_string(victim) + " is out of range (0.." +
                                              std::to_string(nodes - 1) + ")");
    }
  }
  if (config.trace.replays() && config.attack->tamper > 0.0) {
    throw ConfigError("attack.tamper", "a tampered packet is lost and ibsec does not retransmit, so a replayed "
                                       "trace could not finish: tamper with synthetic traffic only");
  }
}

// Checks that need more than one key. The topology is built once here only
// to check it, so that every configuration error shows before elaboration.
void check_together(SimConfig& config) {
  const uint32_t nodes = network::build_topology(config.network.topology).nodes;
  traces::validate(config.traffic, nodes);
  check_attack(config, nodes);
  const uint32_t mtu_wire = config.nic.mtu_bytes + config.nic.header_bytes + config.nic.security_bytes;
  if (config.network.vl_buffer_bytes < mtu_wire) {
    throw ConfigError("network.vl_buffer_bytes",
                      "must hold one whole packet (virtual cut-through): at least " + std::to_string(mtu_wire) +
                          " bytes for nic.mtu_bytes = " + std::to_string(config.nic.mtu_bytes));
  }
}

nlohmann::ordered_json nest(const Table& table) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& p : parameters()) {
    nlohmann::ordered_json* node = &out;
    std::string key = p.key;
    for (auto dot = key.find('.'); dot != std::string::npos; dot = key.find('.')) {
      node = &(*node)[key.substr(0, dot)];
      key = key.substr(dot + 1);
    }
    (*node)[key] = table.at(p.key);
  }
  return out;
}

}  // namespace

namespace {

struct Layer {
  json document;
  std::string origin;
  std::string required = {};  // a key the layer must set, with why (empty: none)
  std::string required_why = {};
};

json read_json_file(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path, "cannot open the " + what);
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw ConfigError(path, std::string("not valid JSON: ") + e.what());
  }
}

SimConfig load_layers(const std::vector<Layer>& layers, const std::vector<std::string>& overrides) {
  Table table;
  for (const auto& p : parameters()) table[p.key] = p.default_value;
  for (const Layer& layer : layers) {
    if (!layer.document.is_null() && !layer.document.is_object()) {
      throw ConfigError(layer.origin, "a configuration must be a JSON object");
    }
    Table from_file;
    if (layer.document.is_object()) flatten(layer.document, "", from_file);
    if (!layer.required.empty() && !from_file.contains(layer.required)) {
      throw ConfigError(layer.origin, layer.required_why);
    }
    merge(table, from_file, layer.origin);
  }
  for (const std::string& item : overrides) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw ConfigError("--set", "expected key=value, got '" + item + "'");
    }
    merge(table, Table{{item.substr(0, eq), parse_override_value(item.substr(eq + 1))}}, "--set");
  }

  const Reader r(table);
  SimConfig config;
  config.seed = r.count("seed", UINT64_MAX);
  read_network(r, config.network);
  read_nic(r, config.nic);
  config.skc_access = read_skc_access(r, config.nic);
  config.nic.skc.seed = config.seed;
  config.nic.key_seed = config.seed;
  config.nic.lanes = config.network.virtual_lanes;
  config.nic.rx_ticks_per_byte = network::link_rate(config.network.link_rate).ticks_per_byte;
  read_traffic(r, config.traffic);
  config.trace.file = r.text("trace.file");
  config.trace.jobs = r.texts("trace.jobs");
  if (!config.trace.file.empty() && !config.trace.jobs.empty()) {
    throw ConfigError("trace.jobs", "give either trace.file (one job) or trace.jobs (several), not both");
  }
  read_scheduler(r, config.scheduling);
  config.scheduling.seed = config.seed;
  config.drain_timeout = ticks_us(r.positive("sim.drain_timeout_us"));
  config.output.event_log = r.text("sim.event_log");
  config.output.vcd = r.text("sim.vcd");
  config.attack = read_attack(r, config.seed);
  check_together(config);
  config.resolved = nest(table);
  return config;
}

}  // namespace

SimConfig load_config(const json& document, const std::vector<std::string>& overrides, const std::string& origin) {
  return load_layers({Layer{document, origin}}, overrides);
}

SimConfig load_config(const std::string& path, const std::vector<std::string>& overrides) {
  return load_config(path, "", overrides);
}

SimConfig load_config(const std::string& path, const std::string& attack_path,
                      const std::vector<std::string>& overrides) {
  std::vector<Layer> layers;
  if (!path.empty()) layers.push_back(Layer{read_json_file(path, "configuration file"), path});
  if (!attack_path.empty()) {
    layers.push_back(Layer{read_json_file(attack_path, "attack file"), attack_path, "attack.link",
                           "an attack file must set attack.link (docs/attacks.md)"});
  }
  return load_layers(layers, overrides);
}

}  // namespace ibsec::sim
