// CACTI 7 figures by cache geometry, read from CSV tables: the table shipped
// with ibsec (analytics/ibsec/data/cacti7_summary.csv, installed as
// share/ibsec/cacti7_summary.csv) and the cache of live CACTI runs that
// `ibsec hwcost` keeps (same columns). Only exact geometries are answered:
// figures are never interpolated, and a geometry CACTI rejected keeps its
// reason so that the user learns why.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ibsec::nic {

struct CactiGeometry {
  uint32_t tech_nm = 45;
  uint64_t capacity_bytes = 0;
  uint32_t block_bytes = 32;
  uint32_t assoc = 0;     // 0 = fully associative
  std::string structure;  // the table's label, e.g. "SKC fully-assoc cache"

  bool operator==(const CactiGeometry&) const = default;
  auto operator<=>(const CactiGeometry&) const = default;
  // "a 16 KB fully associative array of 32 B blocks at 45 nm ('SKC fully-assoc cache')"
  [[nodiscard]] std::string describe() const;
};

// The table's label of a session key cache with this associativity.
std::string skc_structure(uint32_t ways);

struct CactiRow {
  CactiGeometry geometry;
  std::optional<double> access_ns;  // empty when CACTI rejected the geometry
  std::string rejection;            // CACTI's error text when it did
  std::string source;               // the file the row came from
};

class CactiTable {
 public:
  // Reads each file in order; a row of a geometry already read is ignored
  // (the first file wins). Errors name `field` and the file and line.
  static CactiTable read(const std::vector<std::string>& paths, const std::string& field);

  [[nodiscard]] const CactiRow* find(const CactiGeometry& geometry) const;
  // Capacities the tables hold for this structure and node, e.g. "2 KB, 4 KB (32 B blocks)".
  [[nodiscard]] std::string contents_near(const CactiGeometry& geometry) const;
  [[nodiscard]] const std::vector<std::string>& files() const { return files_; }

 private:
  void read_file(const std::string& path, const std::string& field);

  std::vector<CactiRow> rows_;
  std::set<CactiGeometry> geometries_;  // of rows_: a later row of the same geometry is ignored
  std::vector<std::string> files_;
};

// The shipped table: ../share/ibsec/ beside the executable when installed,
// else the source tree's copy. Empty when neither exists.
std::string shipped_cacti_table();
// ${XDG_CACHE_HOME:-~/.cache}/ibsec/cacti/cacti_runs.csv (it may not exist).
std::string user_cacti_cache();

}  // namespace ibsec::nic
