#include "core/parameters.h"

#include <cmath>

namespace ibsec {
namespace {

using json = nlohmann::json;

// 2^64 as a double: every double at or above it is beyond any uint64_t.
constexpr double kTwoTo64 = 18446744073709551616.0;

uint64_t count_from_float(const std::string& key, double x, uint64_t max) {
  // Compare before converting: a cast of a double >= 2^64 is undefined (it
  // wrapped 2^64 to 0), and `max` itself may not be exactly representable.
  if (x >= kTwoTo64 || static_cast<uint64_t>(x) > max) {
    throw ConfigError(key, "must be at most " + std::to_string(max) + ", got " + json(x).dump());
  }
  return static_cast<uint64_t>(x);
}

std::string seconds_text(Tick ticks) { return json(static_cast<double>(ticks) * 1e-12).dump() + " s"; }

}  // namespace

Tick checked_ticks_from_ns(const std::string& key, double ns, bool positive) {
  if (!(ns >= 0.0) || !std::isfinite(ns)) throw ConfigError(key, "must be a time >= 0, got " + json(ns).dump());
  const double ticks = ns * static_cast<double>(kTicksPerNs);
  if (ticks > static_cast<double>(kMaxDuration)) {
    throw ConfigError(key, "is too long: at most " + seconds_text(kMaxDuration) +
                               " (the model counts picoseconds "
                               "in 64 bits), got " +
                               json(ns).dump() + " ns");
  }
  const Tick rounded = ticks_from_ns(ns);
  if (positive && rounded == 0) {
    throw ConfigError(key, "must be at least 1 ps (the model's resolution), got " + json(ns).dump() + " ns");
  }
  return rounded;
}

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

Tick ParameterValues::duration(const std::string& key, double ns_per_unit, bool positive) const {
  const double x = positive ? this->positive(key) : non_negative(key);
  return checked_ticks_from_ns(key, x * ns_per_unit, positive);
}

Clock ParameterValues::clock_mhz(const std::string& key) const {
  const double mhz = positive(key);
  constexpr double kFastestMhz = 1.0e6;   // a 1 ps period, the model's resolution
  constexpr double kSlowestMhz = 1.0e-6;  // a 1 s period
  if (mhz > kFastestMhz || mhz < kSlowestMhz) {
    throw ConfigError(
        key, "must be within 1e-06 to 1e+06 MHz (a period of 1 s down to the model's 1 ps), got " + at(key).dump());
  }
  return Clock::from_mhz(mhz);
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
