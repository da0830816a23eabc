// Statistics are declared once, with name, unit and description, and written
// as JSON: values flat under their names (easy for pandas and jq) and the
// units and descriptions beside them under "statistics_meta".
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ibsec {

struct Statistic {
  std::string name;
  std::string unit;
  std::string description;
  nlohmann::json value;
};

inline void write_statistics(nlohmann::ordered_json& out, const std::vector<Statistic>& stats) {
  nlohmann::ordered_json meta = nlohmann::ordered_json::object();
  for (const auto& s : stats) {
    out[s.name] = s.value;
    meta[s.name] = {{"unit", s.unit}, {"description", s.description}};
  }
  out["statistics_meta"] = meta;
}

}  // namespace ibsec
