// The SKC access time of a card: given in ns, or "cacti": looked up for the
// SKC's geometry in the CACTI 7 table shipped with ibsec (or the user's cache
// of live CACTI runs). docs/hardware-cost.md.
#include "nic/skc_access.h"

#include <filesystem>

#include "core/errors.h"
#include "nic/cacti_table.h"

namespace ibsec::nic {
namespace {

std::vector<std::string> cacti_tables(const std::string& chosen) {
  std::string table = chosen;
  if (table.empty()) table = shipped_cacti_table();
  if (table.empty()) {
    throw ConfigError("nic.cacti_table",
                      "the shipped CACTI table (share/ibsec/cacti7_summary.csv) was not found "
                      "beside the engine; give its path");
  }
  std::vector<std::string> tables{table};
  const std::string cache = user_cacti_cache();
  if (!cache.empty() && std::filesystem::is_regular_file(cache)) tables.push_back(cache);
  return tables;
}

std::string tables_text(const std::vector<std::string>& files) {
  std::string text;
  for (const std::string& f : files) text += (text.empty() ? "" : " and ") + f;
  return text;
}

// What to run to compute a missing geometry, or to change for a rejected one.
std::string cacti_remedy(const CactiGeometry& g) {
  return "compute it with `CACTI_BIN=/path/to/cacti ibsec hwcost --skc " + std::to_string(g.capacity_bytes) +
         "B --ways " + std::to_string(g.assoc) + " --block " + std::to_string(g.block_bytes) + " --tech " +
         std::to_string(g.tech_nm) +
         " --pb 0` (it caches the result where the engine reads it), or give the "
         "access time in ns, e.g. nic.skc.access_ns=3.0";
}

// The CACTI access time of the card's SKC: capacity = SKC entries x block.
SkcAccessOrigin cacti_skc_access(const CicParams& card) {
  const uint32_t tech_nm = card.cacti.tech_nm;
  const uint32_t block_bytes = card.cacti.block_bytes;
  const std::string key = "nic.skc.access_ns";
  const CactiGeometry geometry{tech_nm, uint64_t{card.security.skc_entries} * block_bytes, block_bytes, card.skc.ways,
                               skc_structure(card.skc.ways)};
  const CactiTable table = CactiTable::read(cacti_tables(card.cacti.table), "nic.cacti_table");
  const CactiRow* row = table.find(geometry);
  const std::string asked = "\"cacti\" needs the CACTI access time of the SKC of " + card.security.name() + " (" +
                            std::to_string(card.security.skc_entries) + " entries x nic.skc.block_bytes " +
                            std::to_string(block_bytes) + " B), " + geometry.describe();
  if (row == nullptr) {
    throw ConfigError(key, asked + ", which " + tables_text(table.files()) + " does not have (it has " +
                               table.contents_near(geometry) +
                               "; figures are never interpolated): " + cacti_remedy(geometry));
  }
  if (!row->access_ns) {
    const std::string hint = geometry.assoc > 1 ? " (an N-way array needs at least 32 sets)" : "";
    throw ConfigError(key, asked + ", which CACTI rejects: " + row->rejection + " (" + row->source +
                               "); choose another size or nic.skc.ways" + hint + ", or give the access time in ns");
  }
  return {*row->access_ns, "CACTI 7: " + geometry.describe() + ", " + row->source};
}

}  // namespace

// nic.skc.access_ns: a number of ns, or "cacti" for the CACTI access time of
// the configured SKC (its entries come from nic.security).
void resolve_skc_access(const ParameterValues& values, CicParams& card) {
  const std::string key = "nic.skc.access_ns";
  const std::string unused = card.security.path == KeyPath::kCache
                                 ? ""
                                 : " (not used: nic.security = " + card.security.name() + " has no SKC)";
  if (!values.at(key).is_string()) {
    const double ns = values.non_negative(key);
    card.skc_access = checked_ticks_from_ns(key, ns, false);
    card.skc_access_origin = {ns, key + unused};
    return;
  }
  if (values.text(key) != "cacti") {
    throw ConfigError(key, "expected a time in ns or \"cacti\", got " + values.at(key).dump());
  }
  if (!unused.empty()) {
    card.skc_access = 0;
    card.skc_access_origin = {0.0, "cacti" + unused};
    return;
  }
  card.skc_access_origin = cacti_skc_access(card);
  card.skc_access = ticks_from_ns(card.skc_access_origin.ns);
}

}  // namespace ibsec::nic
