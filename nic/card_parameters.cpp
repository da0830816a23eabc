// nic.* : the card's parameters, each bound to its CicParams field (whose
// initial value is the default). Sources of the numbers: docs/cic.md.
#include <optional>
#include <string>

#include "nic/cic.h"
#include "nic/replacement_policy.h"
#include "nic/skc_access.h"

namespace ibsec::nic {
namespace {

void read_security(const ParameterValues& v, const std::string& key, CicParams& card) {
  card.security = parse_security_mode(v.text(key), key);
}

void read_policy(const ParameterValues& v, const std::string& key, CicParams& card) {
  card.skc.policy = v.text(key);
  if (PolicyRegistry::get(card.skc.policy, key).needs_future) {
    throw ConfigError(key, "'" + card.skc.policy + "' needs the future look-up sequence; it exists in cachesim only");
  }
}

// Each must be a policy the card can run: the shadow caches are the card's KeyCache.
void read_shadow_policies(const ParameterValues& v, const std::string& key, CicParams& card) {
  card.shadow_policies = v.texts(key);
  for (const std::string& policy : card.shadow_policies) {
    if (PolicyRegistry::get(policy, key).needs_future) {
      throw ConfigError(key, "'" + policy + "' needs the future look-up sequence; it exists in cachesim only");
    }
  }
}

void read_clock(const ParameterValues& v, const std::string& key, CicParams& card) { card.clock = v.clock_mhz(key); }

// 0 (the default) keeps the GCM engines on the card clock, as the paper's card has them.
void read_gcm_clock(const ParameterValues& v, const std::string& key, CicParams& card) {
  card.gcm_clock = v.number(key) == 0.0 ? std::optional<Clock>() : v.clock_mhz(key);
}

void read_crypto_mode(const ParameterValues& v, const std::string& key, CicParams& card) {
  const std::string mode = v.text(key);
  if (mode != "timing" && mode != "functional") {
    throw ConfigError(key, "expected timing or functional, got '" + mode + "'");
  }
  card.functional_crypto = mode == "functional";
}

void read_key_bits(const ParameterValues& v, const std::string& key, CicParams& card) {
  const uint64_t bits = v.count(key);
  if (bits != 128 && bits != 256) throw ConfigError(key, "expected 128 or 256, got " + std::to_string(bits));
  card.session_key_bytes = static_cast<uint32_t>(bits / 8);
}

ParameterSet<CicParams> declare() {
  const CicParams d;
  ParameterSet<CicParams> set(d);
  set.custom("nic.security", d.security.name(), "", "NoSecurity, NoSKC, SKC-<n> or SKC-<n>+Prefetch-<m>", read_security)
      .count(
          "nic.skc.ways", [](CicParams & c) -> auto& { return c.skc.ways; }, "ways",
          "SKC associativity; 0 = fully associative", 0, UINT32_MAX)
      .custom("nic.skc.policy", d.skc.policy, "",
              "SKC replacement policy (`ibsec-engine registries`; policies that need the future are for cachesim only)",
              read_policy)
      .custom("nic.skc.access_ns", d.skc_access_origin.ns, "ns",
              "SKC (and prefetch buffer) access time, or \"cacti\": the CACTI 7 access time of the SKC's geometry "
              "(SKC entries x nic.skc.block_bytes, nic.skc.ways, nic.tech_nm) from nic.cacti_table; 3.0 is the "
              "paper's CACTI figure for 16 KB at 45 nm (docs/hardware-cost.md)",
              [](const ParameterValues&, const std::string&, CicParams&) {})  // resolved by the check below
      .count(
          "nic.skc.block_bytes", [](CicParams & c) -> auto& { return c.cacti.block_bytes; }, "bytes",
          "CACTI line per session key entry (key, identifier, state), for \"cacti\"", 1, 1U << 20)
      .count(
          "nic.tech_nm", [](CicParams & c) -> auto& { return c.cacti.tech_nm; }, "nm",
          "technology node of the card, for nic.skc.access_ns = \"cacti\"", 1, 1000)
      .file(
          "nic.cacti_table", [](CicParams & c) -> auto& { return c.cacti.table; }, FileRole::kInput,
          "CACTI table (CSV) for nic.skc.access_ns = \"cacti\"; empty = the shipped one. The cache of live CACTI "
          "runs that `ibsec hwcost` keeps (~/.cache/ibsec/cacti/cacti_runs.csv) is read after it")
      .count("nic.prefetch.list_entries", &CicParams::prefetch_list_entries, "keys",
             "recently evicted keys the card remembers per process for prefetching; 0 = the prefetch buffer's size", 0,
             1U << 16)
      .custom("nic.clock_mhz", d.clock.mhz(), "MHz", "card clock: the look-up stages and the SKC run on it", read_clock)
      .duration("nic.key_memory_ns", &CicParams::key_memory_access, TimeUnit::kNs,
                "external key memory access per session key (first come, first served)")
      .count("nic.key_memory.requests_in_flight", &CicParams::key_memory_requests_in_flight, "requests",
             "key memory accesses in progress at once, each taking nic.key_memory_ns; 1 = the paper's single port", 1,
             1024)
      .count("nic.lookup.outstanding_misses", &CicParams::lookup_outstanding_misses, "packets",
             "packets a direction's look-up stage holds while their keys come (hits pass misses, each session stays "
             "in order); 1 = a miss blocks the stage",
             1, 1024)
      .flag("nic.lookup.stack_distances", &CicParams::stack_distances, "",
            "whether each card keeps an LRU stack of the keys it looks up, send and receive in the order made, and "
            "the result gives its stack distances (section lookup_stack_distances): the hit rate of a fully "
            "associative LRU SKC of every size on that look-up order (docs/sizing.md)")
      .custom("nic.lookup.shadow_policies", d.shadow_policies, "",
              "replacement policies (e.g. [\"fifo\", \"random\"]) for which each card feeds its look-ups, in the "
              "order made, to fully associative SKCs of every size from 1 to its own SKC's entries; the result "
              "gives their hit rates (section lookup_shadow_caches; docs/sizing.md). Empty: none",
              read_shadow_policies)
      .count(
          "nic.gcm.first_block_cycles", [](CicParams & c) -> auto& { return c.gcm.first_block_cycles; }, "cycles",
          "GCM latency of the first 128-bit block")
      .count(
          "nic.gcm.block_cycles", [](CicParams & c) -> auto& { return c.gcm.further_block_cycles; }, "cycles",
          "GCM cycles per further block (the length block counts as one)")
      .count(
          "nic.gcm.tag_cycles", [](CicParams & c) -> auto& { return c.gcm.tag_cycles; }, "cycles",
          "GCM cycles to produce or check the tag")
      .count(
          "nic.gcm.bytes_per_cycle", [](CicParams & c) -> auto& { return c.gcm.bytes_per_cycle; }, "bytes",
          "GCM datapath width: payload bytes an engine takes per cycle (16 = one AES block)", 1, 4096)
      .custom("nic.gcm.clock_mhz", 0.0, "MHz", "clock of the GCM engines; 0 = the card clock (nic.clock_mhz, 270)",
              read_gcm_clock)
      .count("nic.gcm.engines", &CicParams::gcm_engines, "engines",
             "GCM engines per direction; packets go to the engine free first and leave in order", 1, 64)
      .flag("nic.gcm.pipelined", &CicParams::gcm_pipelined, "", "whether a GCM unit overlaps consecutive packets")
      .count("nic.mtu_bytes", &CicParams::mtu_bytes, "bytes", "payload per packet; larger messages are segmented", 1)
      .count("nic.header_bytes", &CicParams::header_bytes, "bytes",
             "InfiniBand headers per packet: LRH 8 + BTH 12 + ICRC 4 + VCRC 2")
      .count("nic.security_bytes", &CicParams::security_bytes, "bytes",
             "added by security: key id 4 + sequence number 4 + GCM tag 16")
      .custom("nic.crypto.mode", d.functional_crypto ? "functional" : "timing", "",
              "timing (time only) or functional: real AES-GCM on synthetic payloads, keys wrapped in key memory, "
              "replay window; same timing (docs/crypto.md, \"In the card\")",
              read_crypto_mode)
      .custom("nic.crypto.key_bits", d.session_key_bytes * 8, "bits",
              "session key size in functional mode: 128 (AES-128) or 256 (AES-256)", read_key_bits)
      .count("nic.crypto.replay_window_packets", &CicParams::replay_window_packets, "packets",
             "sequence numbers the functional replay window of each session direction spans (RFC 4303: 64 by "
             "default; RFC 6479 for wider); a genuine packet reordered further behind is refused as too old "
             "(docs/crypto.md)",
             1, 1U << 20)
      .check(resolve_skc_access);
  return set;
}

}  // namespace

const ParameterSet<CicParams>& card_parameters() {
  static const ParameterSet<CicParams> set = declare();
  return set;
}

}  // namespace ibsec::nic
