#include "sim/detail_tables.h"

#include <stdexcept>

#include "core/atomic_file.h"
#include "core/errors.h"

namespace ibsec::sim {
namespace {

// A CSV field: numbers as JSON writes them, text quoted when it must be, null empty.
std::string csv_field(const nlohmann::json& value) {
  if (value.is_null()) return "";
  if (!value.is_string()) return value.dump();
  const std::string text = value.get<std::string>();
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace

DetailLevel DetailLevel::parse(const std::string& text, const std::string& key) {
  if (text == "none") return {};
  if (text == "links") return {.links = true};
  if (text == "switches") return {.switches = true};
  if (text == "cards") return {.cards = true};
  if (text == "all") return {.links = true, .switches = true, .cards = true};
  throw ConfigError(key, "expected none, links, switches, cards or all, got '" + text + "'");
}

std::string DetailLevel::name() const {
  if (links && switches && cards) return "all";
  if (links) return "links";
  if (switches) return "switches";
  if (cards) return "cards";
  return "none";
}

void DetailTable::add_row(const std::vector<Statistic>& cells) {
  if (columns_.empty()) {
    for (const Statistic& s : cells) columns_.push_back({s.name, s.unit, s.description});
  }
  if (cells.size() != columns_.size()) throw std::logic_error("table " + name_ + ": a row of another shape");
  std::vector<nlohmann::json> row;
  row.reserve(cells.size());
  for (size_t i = 0; i < cells.size(); ++i) {
    if (cells[i].name != columns_[i].name) {
      throw std::logic_error("table " + name_ + ": column " + cells[i].name + " where " + columns_[i].name +
                             " was expected");
    }
    row.push_back(cells[i].value);
  }
  rows_.push_back(std::move(row));
}

void DetailTable::write_csv(std::ostream& out) const {
  for (size_t i = 0; i < columns_.size(); ++i) out << (i == 0 ? "" : ",") << columns_[i].name;
  out << '\n';
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size(); ++i) out << (i == 0 ? "" : ",") << csv_field(row[i]);
    out << '\n';
  }
}

nlohmann::ordered_json DetailTable::describe(const std::string& file) const {
  nlohmann::ordered_json columns = nlohmann::ordered_json::object();
  for (const Column& c : columns_) columns[c.name] = {{"unit", c.unit}, {"description", c.description}};
  return {{"file", file}, {"rows", rows_.size()}, {"columns", columns}};
}

std::string detail_table_path(const std::string& result_path, const std::string& name) {
  std::string stem = result_path;
  if (stem.ends_with(".json")) stem.resize(stem.size() - 5);
  return stem + "." + name + ".csv";
}

std::vector<std::string> detail_table_names(const DetailLevel& level) {
  std::vector<std::string> names;
  if (level.links) names.emplace_back("links");
  if (level.switches) names.emplace_back("switches");
  if (level.cards) names.emplace_back("cards");
  return names;
}

void add_detail_outputs(const DetailLevel& level, const std::string& result_path, CommandFiles& files) {
  if (!level.any()) return;
  if (result_path == "-") {
    throw ConfigError("sim.detail", "the tables are written beside the result file: give --out FILE");
  }
  for (const std::string& name : detail_table_names(level)) {
    files.output(detail_table_path(result_path, name), "sim.detail (" + name + " table)");
  }
}

}  // namespace ibsec::sim
