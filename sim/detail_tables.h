// Per-component statistics (sim.detail): besides the cluster-wide figures of
// the result, one table row per link, per switch or per card, written as CSV
// beside the result file. The columns are the components' own statistics
// groups (every counter, internal ones too, with the derived figures the
// group type declares, computed over that one component), so a counter added
// to a group appears in its table without further code. Rows name their
// component as docs/topology.md does (node i, switch s port p).
//
// Off by default; when off nothing here runs and the model counts nothing
// more than it always does.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/statistics.h"

namespace ibsec {
class CommandFiles;  // core/atomic_file.h
}  // namespace ibsec

namespace ibsec::sim {

// Which tables a run writes (the value of sim.detail).
struct DetailLevel {
  bool links = false;
  bool switches = false;
  bool cards = false;

  [[nodiscard]] bool any() const { return links || switches || cards; }
  // none, links, switches, cards or all; ConfigError naming `key` otherwise.
  static DetailLevel parse(const std::string& text, const std::string& key);
  [[nodiscard]] std::string name() const;
};

// One table: columns with units and descriptions, one row per component.
class DetailTable {
 public:
  explicit DetailTable(std::string name) : name_(std::move(name)) {}

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] size_t rows() const { return rows_.size(); }
  // The first row fixes the columns; every later one must have the same names in the same order.
  void add_row(const std::vector<Statistic>& cells);
  // A header of column names, then one line per row (text quoted, null as an empty field).
  void write_csv(std::ostream& out) const;
  // What the result says about the table: its file, rows, and each column's unit and description.
  [[nodiscard]] nlohmann::ordered_json describe(const std::string& file) const;

 private:
  struct Column {
    std::string name;
    std::string unit;
    std::string description;
  };
  std::string name_;
  std::vector<Column> columns_;
  std::vector<std::vector<nlohmann::json>> rows_;
};

// Where table `name` of a run whose result goes to `result_path` is written:
// the result's path without ".json", then ".<name>.csv" (run.json -> run.links.csv).
std::string detail_table_path(const std::string& result_path, const std::string& name);
// The names of the tables `level` asks for, in the order they are written.
std::vector<std::string> detail_table_names(const DetailLevel& level);
// Adds the tables `level` asks for to a run's outputs, checked with all the
// others before the run; refuses tables when the result goes to standard
// output (they have nowhere to go).
void add_detail_outputs(const DetailLevel& level, const std::string& result_path, CommandFiles& files);

// Every counter of `instances` (of one group type; a card's GCM units, say)
// combined as each counter declares, then the derived figures of the type
// computed over them (unless `with_derived` is false). `prefix` is put
// before counter names that do not already start with it, so that a table
// holding several groups names each column once ("busy" of the key memory
// becomes "key_memory_busy").
template <typename G>
void append_group(std::vector<Statistic>& row, const std::vector<const G*>& instances, Tick elapsed,
                  const std::string& prefix = "", bool with_derived = true) {
  const G prototype;
  const std::vector<const StatGroup*> groups(instances.begin(), instances.end());
  const StatTotals totals(groups, prototype, elapsed);
  for (Statistic& s : totals.all_counters()) {
    if (!s.name.starts_with(prefix)) s.name = prefix + s.name;
    row.push_back(std::move(s));
  }
  if (!with_derived) return;
  for (const DerivedStatistic& d : G::derived()) row.push_back({d.name, d.unit, d.description, d.value(totals)});
}

}  // namespace ibsec::sim
