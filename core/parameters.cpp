#include "core/parameters.h"

#include <cmath>

namespace ibsec {
namespace {

using json = nlohmann::json;

uint64_t count_from_float(const std::string& key, double x, uint64_t max) {
  if (x > static_cast<double>(max)) throw ConfigError(key, "must be at most " + std::to_string(max));
  return static_cast<uint64_t>(x);
}

}  // namespace

const json& ParameterValues::at(const std::string& key) const {
  const auto it = table_.find(key);
  if (it == table_.end()) throw ConfigError(key, "has no value (internal: the parameter was not declared)");
  return it->second;
}

ParameterValues ParameterValues::subset(const std::vector<ParameterInfo>& infos) const {
  ParameterTable own;
  for (const ParameterInfo& info : infos) {
    const auto it = table_.find(info.key);
    own[info.key] = it != table_.end() ? it->second : info.default_value;
  }
  return ParameterValues(std::move(own));
}

uint64_t ParameterValues::count(const std::string& key, uint64_t max) const {
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

double ParameterValues::number(const std::string& key) const {
  const json& v = at(key);
  if (!v.is_number()) throw ConfigError(key, "expected a number, got " + v.dump());
  return v.get<double>();
}

double ParameterValues::non_negative(const std::string& key) const {
  const double x = number(key);
  if (!(x >= 0.0) || !std::isfinite(x)) throw ConfigError(key, "must be >= 0, got " + at(key).dump());
  return x;
}

double ParameterValues::positive(const std::string& key) const {
  const double x = number(key);
  if (!(x > 0.0) || !std::isfinite(x)) throw ConfigError(key, "must be > 0, got " + at(key).dump());
  return x;
}

double ParameterValues::fraction(const std::string& key) const {
  const double x = non_negative(key);
  if (x > 1.0) throw ConfigError(key, "is a probability: must be at most 1, got " + at(key).dump());
  return x;
}

std::string ParameterValues::text(const std::string& key) const {
  const json& v = at(key);
  if (!v.is_string()) throw ConfigError(key, "expected a string, got " + v.dump());
  return v.get<std::string>();
}

bool ParameterValues::flag(const std::string& key) const {
  const json& v = at(key);
  if (!v.is_boolean()) throw ConfigError(key, "expected true or false, got " + v.dump());
  return v.get<bool>();
}

std::vector<std::string> ParameterValues::texts(const std::string& key) const {
  const json& v = at(key);
  std::vector<std::string> out;
  for (const auto& item : v.is_array() ? v : json::array({v})) {
    if (!item.is_string()) throw ConfigError(key, "expected a list of strings, got " + v.dump());
    out.push_back(item.get<std::string>());
  }
  return out;
}

}  // namespace ibsec
