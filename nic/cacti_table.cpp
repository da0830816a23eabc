#include "nic/cacti_table.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "core/bounded_input.h"
#include "core/errors.h"
#include "core/user_cache.h"

namespace ibsec::nic {
namespace {

namespace fs = std::filesystem;

constexpr const char* kRejected = "rejected: ";
const std::vector<std::string> kNeededColumns{"tech_nm",   "capacity_bytes", "block_bytes", "assoc",
                                              "access_ns", "status",         "structure"};

std::string bytes_text(uint64_t n) {
  return n % 1024 == 0 ? std::to_string(n / 1024) + " KB" : std::to_string(n) + " B";
}

// One CSV record (RFC 4180 quoting, as Python's csv module writes it).
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted) throw std::invalid_argument("unterminated quoted field");
  return fields;
}

uint64_t whole_number(const std::string& text, const std::string& column) {
  size_t used = 0;
  const unsigned long long value = std::stoull(text, &used);
  if (used != text.size() || text.empty() || text[0] == '-') {
    throw std::invalid_argument(column + " must be a whole number, got '" + text + "'");
  }
  return value;
}

double number(const std::string& text, const std::string& column) {
  size_t used = 0;
  const double value = std::stod(text, &used);
  if (used != text.size()) throw std::invalid_argument(column + " must be a number, got '" + text + "'");
  return value;
}

CactiRow parse_row(const std::map<std::string, std::string>& cell, const std::string& source) {
  CactiRow row;
  row.geometry.tech_nm = static_cast<uint32_t>(whole_number(cell.at("tech_nm"), "tech_nm"));
  row.geometry.capacity_bytes = whole_number(cell.at("capacity_bytes"), "capacity_bytes");
  row.geometry.block_bytes = static_cast<uint32_t>(whole_number(cell.at("block_bytes"), "block_bytes"));
  row.geometry.assoc = static_cast<uint32_t>(whole_number(cell.at("assoc"), "assoc"));
  row.geometry.structure = cell.at("structure");
  row.source = source;
  const std::string& status = cell.at("status");
  if (status.rfind(kRejected, 0) == 0) {
    row.rejection = status.substr(std::string(kRejected).size());
  } else if (status == "ok") {
    row.access_ns = number(cell.at("access_ns"), "access_ns");
  } else {
    throw std::invalid_argument("status must be 'ok' or 'rejected: <reason>', got '" + status + "'");
  }
  return row;
}

std::string strip_cr(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

fs::path executable_dir() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::path() : self.parent_path();
}

}  // namespace

std::string CactiGeometry::describe() const {
  const std::string ways = assoc == 0   ? "fully associative"
                           : assoc == 1 ? "direct-mapped"
                                        : std::to_string(assoc) + "-way";
  return "a " + bytes_text(capacity_bytes) + " " + ways + " array of " + std::to_string(block_bytes) + " B blocks at " +
         std::to_string(tech_nm) + " nm ('" + structure + "')";
}

std::string skc_structure(uint32_t ways) {
  if (ways == 0) return "SKC fully-assoc cache";
  if (ways == 1) return "SKC direct-mapped cache";
  return "SKC " + std::to_string(ways) + "-way cache";
}

CactiTable CactiTable::read(const std::vector<std::string>& paths, const std::string& field) {
  CactiTable table;
  for (const std::string& path : paths) table.read_file(path, field);
  return table;
}

// Bounded like every side input (core/bounded_input.h).
void CactiTable::read_file(const std::string& path, const std::string& field) {
  LineReader in(path, field, "CACTI table");
  files_.push_back(path);
  std::string line;
  if (!in.next(line)) in.fail_file("is empty, not a CACTI table");
  const std::vector<std::string> header = split_csv(strip_cr(line));
  for (const std::string& column : kNeededColumns) {
    if (std::find(header.begin(), header.end(), column) == header.end()) {
      in.fail_file("is not a CACTI table: it has no '" + column + "' column");
    }
  }
  while (in.next(line)) {
    if (strip_cr(line).empty()) continue;
    try {
      const std::vector<std::string> values = split_csv(strip_cr(line));
      if (values.size() != header.size()) {
        throw std::invalid_argument(std::to_string(values.size()) + " fields, the header has " +
                                    std::to_string(header.size()));
      }
      std::map<std::string, std::string> cell;
      for (size_t i = 0; i < header.size(); ++i) cell[header[i]] = values[i];
      CactiRow row = parse_row(cell, path);
      if (geometries_.insert(row.geometry).second) rows_.push_back(std::move(row));
    } catch (const std::logic_error& e) {  // invalid_argument, out_of_range
      in.fail(e.what());
    }
  }
}

const CactiRow* CactiTable::find(const CactiGeometry& geometry) const {
  const auto it = std::find_if(rows_.begin(), rows_.end(), [&](const CactiRow& r) { return r.geometry == geometry; });
  return it == rows_.end() ? nullptr : &*it;
}

std::string CactiTable::contents_near(const CactiGeometry& geometry) const {
  std::set<uint32_t> techs;
  std::map<uint32_t, std::set<uint64_t>> capacities_by_block;
  for (const CactiRow& row : rows_) {
    if (row.geometry.structure != geometry.structure || !row.access_ns) continue;
    techs.insert(row.geometry.tech_nm);
    if (row.geometry.tech_nm == geometry.tech_nm) {
      capacities_by_block[row.geometry.block_bytes].insert(row.geometry.capacity_bytes);
    }
  }
  if (techs.empty()) return "no '" + geometry.structure + "' rows";
  std::string text;
  for (const auto& [block, capacities] : capacities_by_block) {
    if (!text.empty()) text += "; ";
    std::string sizes;
    for (const uint64_t capacity : capacities) sizes += (sizes.empty() ? "" : ", ") + bytes_text(capacity);
    text += sizes + " of " + std::to_string(block) + " B blocks";
  }
  std::string nodes;
  for (const uint32_t tech : techs) nodes += (nodes.empty() ? "" : ", ") + std::to_string(tech) + " nm";
  return (text.empty() ? std::string("nothing") : text) + " at " + std::to_string(geometry.tech_nm) +
         " nm; technologies " + nodes;
}

std::string shipped_cacti_table() {
  const fs::path installed = executable_dir() / ".." / "share" / "ibsec" / "cacti7_summary.csv";
  if (fs::is_regular_file(installed)) return fs::weakly_canonical(installed).string();
  // A build-tree program (build/ibsec-engine, build/tests/cpp/...) finds the checkout it was built in by
  // looking upwards, not by a path compiled in: two checkouts of one commit then build identical engines,
  // whose digests let them share result stores.
  constexpr int kLevelsUp = 4;
  fs::path folder = executable_dir();
  for (int level = 0; level < kLevelsUp && folder.has_parent_path(); ++level, folder = folder.parent_path()) {
    const fs::path source_tree = folder / ".." / "analytics" / "ibsec" / "data" / "cacti7_summary.csv";
    if (fs::is_regular_file(source_tree)) return fs::weakly_canonical(source_tree).string();
  }
  return {};
}

std::string user_cacti_cache() {
  const std::optional<fs::path> folder = user_cache_folder();
  return folder ? (*folder / "cacti" / "cacti_runs.csv").string() : std::string();
}

}  // namespace ibsec::nic
