// Run parameters: each component declares its own beside it, binding a key
// (with unit and description) to a field of its params struct, whose initial
// value is the default. The assembly (sim/config) merges the layers of a run
// into ParameterValues and has each component's ParameterSet read its part,
// so a key, its default and its check are each written once.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/time.h"

namespace ibsec {

struct ParameterInfo {
  std::string key;
  nlohmann::json default_value;
  std::string unit;
  std::string description;
  // For a file name: "input" (the run reads it: its content decides the
  // result) or "output" (the run writes it); empty for anything else.
  std::string file = {};
};

enum class FileRole { kInput, kOutput };

using ParameterTable = std::map<std::string, nlohmann::json>;

// The values of a run's parameters by key, with typed reads that name the
// key when a value does not fit.
class ParameterValues {
 public:
  ParameterValues() = default;
  explicit ParameterValues(ParameterTable table) : table_(std::move(table)) {}

  [[nodiscard]] const nlohmann::json& at(const std::string& key) const;
  [[nodiscard]] const ParameterTable& table() const { return table_; }
  // The values of `infos` only, each from here or else its default.
  [[nodiscard]] ParameterValues subset(const std::vector<ParameterInfo>& infos) const;

  [[nodiscard]] uint64_t count(const std::string& key, uint64_t max = UINT32_MAX) const;
  [[nodiscard]] double number(const std::string& key) const;
  [[nodiscard]] double non_negative(const std::string& key) const;
  [[nodiscard]] double positive(const std::string& key) const;
  [[nodiscard]] double fraction(const std::string& key) const;  // a probability, 0..1
  [[nodiscard]] std::string text(const std::string& key) const;
  [[nodiscard]] bool flag(const std::string& key) const;
  [[nodiscard]] std::vector<std::string> texts(const std::string& key) const;  // a string or a list of them
  // A duration given in units of `ns_per_unit` ns, in ticks: refused if it
  // does not fit the model's time (kMaxDuration) or, when `positive`, if it
  // rounds to no time at all.
  [[nodiscard]] Tick duration(const std::string& key, double ns_per_unit, bool positive) const;
  // A clock given in MHz: its period must be at least one tick and at most a second.
  [[nodiscard]] Clock clock_mhz(const std::string& key) const;
  template <typename T>
  [[nodiscard]] std::vector<T> list(const std::string& key) const;  // a number or a list of them

 private:
  ParameterTable table_;
};

// The longest duration a parameter may give: simulated times are sums of
// durations in 64-bit picoseconds, so each stays far below 2^64 ps.
inline constexpr Tick kMaxDuration = Tick{1'000'000} * 1'000'000 * 1'000'000;  // 10^18 ps, about 11.6 days
// A duration in ns as ticks; ConfigError naming `key` if it is negative, not
// finite, beyond kMaxDuration, or (when `positive`) shorter than a tick.
Tick checked_ticks_from_ns(const std::string& key, double ns, bool positive);

// What a number parameter must be.
enum class Bound { kAny, kNonNegative, kPositive, kFraction };
// The unit of a time parameter in the configuration; the model keeps ticks.
enum class TimeUnit { kNs, kUs, kMs };

// The parameters of one component, bound to the fields of its params struct
// `P`. A field is a data member pointer (&P::x) or a callable returning a
// reference into P (for nested fields).
template <typename P>
class ParameterSet {
 public:
  using Read = std::function<void(const ParameterValues&, const std::string& key, P&)>;
  using Check = std::function<void(const ParameterValues&, P&)>;

  explicit ParameterSet(P defaults = P{}) : defaults_(std::move(defaults)) {}

  // A whole number in [min, max] (max defaults to the field type's largest).
  template <typename Field>
  ParameterSet& count(std::string key, Field field, std::string unit, std::string description, uint64_t min = 0,
                      uint64_t max = kFieldMax) {
    using T = FieldType<Field>;
    const uint64_t top = std::min<uint64_t>(max, std::numeric_limits<T>::max());
    return add(std::move(key), nlohmann::json(field_of(field, defaults_)), std::move(unit), std::move(description),
               [field, min, top](const ParameterValues& v, const std::string& k, P& p) {
                 const uint64_t n = v.count(k, top);
                 if (n < min)
                   throw ConfigError(k, "must be at least " + std::to_string(min) + ", got " + v.at(k).dump());
                 field_of(field, p) = static_cast<T>(n);
               });
  }
  template <typename Field>
  ParameterSet& number(std::string key, Field field, std::string unit, std::string description,
                       Bound bound = Bound::kNonNegative) {
    return add(std::move(key), nlohmann::json(field_of(field, defaults_)), std::move(unit), std::move(description),
               [field, bound](const ParameterValues& v, const std::string& k, P& p) {
                 field_of(field, p) = bounded(v, k, bound);
               });
  }
  // A duration given in `unit`, kept in ticks.
  template <typename Field>
  ParameterSet& duration(std::string key, Field field, TimeUnit unit, std::string description,
                         Bound bound = Bound::kNonNegative) {
    const double default_in_unit = ns_from_ticks(field_of(field, defaults_)) / ns_per(unit);
    return add(std::move(key), nlohmann::json(default_in_unit), unit_name(unit), std::move(description),
               [field, unit, bound](const ParameterValues& v, const std::string& k, P& p) {
                 field_of(field, p) = v.duration(k, ns_per(unit), bound == Bound::kPositive);
               });
  }
  template <typename Field>
  ParameterSet& text(std::string key, Field field, std::string unit, std::string description) {
    return add(std::move(key), nlohmann::json(field_of(field, defaults_)), std::move(unit), std::move(description),
               [field](const ParameterValues& v, const std::string& k, P& p) { field_of(field, p) = v.text(k); });
  }
  template <typename Field>
  ParameterSet& flag(std::string key, Field field, std::string unit, std::string description) {
    return add(std::move(key), nlohmann::json(field_of(field, defaults_)), std::move(unit), std::move(description),
               [field](const ParameterValues& v, const std::string& k, P& p) { field_of(field, p) = v.flag(k); });
  }
  // A list of numbers (one number is a list of one).
  template <typename Field>
  ParameterSet& list(std::string key, Field field, std::string unit, std::string description) {
    using T = typename FieldType<Field>::value_type;
    return add(std::move(key), nlohmann::json(field_of(field, defaults_)), std::move(unit), std::move(description),
               [field](const ParameterValues& v, const std::string& k, P& p) { field_of(field, p) = v.list<T>(k); });
  }
  // A list of strings (one string is a list of one).
  template <typename Field>
  ParameterSet& texts(std::string key, Field field, std::string unit, std::string description) {
    return add(std::move(key), nlohmann::json(field_of(field, defaults_)), std::move(unit), std::move(description),
               [field](const ParameterValues& v, const std::string& k, P& p) { field_of(field, p) = v.texts(k); });
  }
  // A file name (a list of them for a list field), read or written by the run.
  template <typename Field>
  ParameterSet& file(std::string key, Field field, FileRole role, std::string description) {
    if constexpr (std::is_same_v<FieldType<Field>, std::string>) {
      text(std::move(key), field, "path", std::move(description));
    } else {
      texts(std::move(key), field, "paths", std::move(description));
    }
    infos_.back().file = role == FileRole::kInput ? "input" : "output";
    return *this;
  }
  // Anything else: its default as written in a configuration, and how to read it.
  ParameterSet& custom(std::string key, nlohmann::json default_value, std::string unit, std::string description,
                       Read read) {
    return add(std::move(key), std::move(default_value), std::move(unit), std::move(description), std::move(read));
  }
  // A check (or derivation) over several fields, run after they are all read.
  ParameterSet& check(Check check) {
    checks_.push_back(std::move(check));
    return *this;
  }

  [[nodiscard]] const std::vector<ParameterInfo>& infos() const { return infos_; }
  [[nodiscard]] const P& defaults() const { return defaults_; }

  // Reads every parameter of the set into `into`, then runs the checks.
  void read(const ParameterValues& values, P& into) const {
    for (size_t i = 0; i < infos_.size(); ++i) reads_[i](values, infos_[i].key, into);
    for (const Check& check : checks_) check(values, into);
  }
  [[nodiscard]] P read(const ParameterValues& values) const {
    P params = defaults_;
    read(values, params);
    return params;
  }

 private:
  static constexpr uint64_t kFieldMax = std::numeric_limits<uint64_t>::max();

  template <typename Field>
  using FieldType = std::remove_cvref_t<std::invoke_result_t<Field, P&>>;

  template <typename Field>
  static decltype(auto) field_of(Field field, P& params) {
    return std::invoke(field, params);
  }

  static double bounded(const ParameterValues& v, const std::string& key, Bound bound) {
    switch (bound) {
      case Bound::kAny:
        return v.number(key);
      case Bound::kNonNegative:
        return v.non_negative(key);
      case Bound::kPositive:
        return v.positive(key);
      case Bound::kFraction:
        return v.fraction(key);
    }
    return v.number(key);
  }
  static double ns_per(TimeUnit unit) {
    switch (unit) {
      case TimeUnit::kNs:
        return 1.0;
      case TimeUnit::kUs:
        return 1.0e3;
      case TimeUnit::kMs:
        return 1.0e6;
    }
    return 1.0;
  }
  static std::string unit_name(TimeUnit unit) {
    switch (unit) {
      case TimeUnit::kNs:
        return "ns";
      case TimeUnit::kUs:
        return "us";
      case TimeUnit::kMs:
        return "ms";
    }
    return "";
  }

  ParameterSet& add(std::string key, nlohmann::json default_value, std::string unit, std::string description,
                    Read read) {
    infos_.push_back({std::move(key), std::move(default_value), std::move(unit), std::move(description)});
    reads_.push_back(std::move(read));
    return *this;
  }

  P defaults_;
  std::vector<ParameterInfo> infos_;
  std::vector<Read> reads_;
  std::vector<Check> checks_;
};

template <typename T>
std::vector<T> ParameterValues::list(const std::string& key) const {
  const nlohmann::json& v = at(key);
  std::vector<T> out;
  const nlohmann::json items = v.is_array() ? v : nlohmann::json::array({v});
  for (const auto& item : items) {
    const bool whole = item.is_number_unsigned() || (item.is_number_integer() && item.template get<int64_t>() >= 0);
    if (!item.is_number() || (std::is_unsigned_v<T> && !whole)) {
      throw ConfigError(key, std::string("expected a list of ") +
                                 (std::is_unsigned_v<T> ? "whole numbers >= 0" : "numbers") + ", got " + v.dump());
    }
    out.push_back(item.template get<T>());
  }
  return out;
}

}  // namespace ibsec
