// Statistics. A component keeps its counts in a statistics group of its own:
// a struct deriving StatGroupOf<itself> whose members are Counters, each declared with
// its name, unit, description, how the counts of many instances (every card,
// every link) combine, and whether the run's result reports it. The group
// type may also list derived statistics (rates, means) computed from the
// combined counts. The assembly walks the groups of the cluster into the
// result; a counter added to a group is combined and reported without
// further code.
//
// Statistics are written as JSON: values flat under their names (easy for
// pandas and jq), units and descriptions beside them under "statistics_meta".
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/time.h"

namespace ibsec {

// One line of a result's statistics.
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

// num / den, or 0 when den is 0.
inline double ratio(double num, double den) { return den > 0.0 ? num / den : 0.0; }

// How a counter of many instances becomes one figure.
enum class Merge : uint8_t { kSum, kMax };
// Whether the result lists a counter, or only derived statistics use it.
enum class Shown : uint8_t { kReported, kInternal };

struct CounterInfo {
  const char* name;
  const char* unit;
  const char* description;
  Merge merge = Merge::kSum;
  Shown shown = Shown::kReported;
};

class StatGroup;

// A count kept by a component. Costs what a plain uint64_t costs.
class Counter {
 public:
  Counter(StatGroup& group, const CounterInfo& info);
  Counter(const Counter&) = delete;
  Counter& operator=(const Counter&) = delete;

  Counter& operator++() {
    ++value_;
    return *this;
  }
  Counter& operator+=(uint64_t n) {
    value_ += n;
    return *this;
  }
  // For counters that keep a maximum (Merge::kMax).
  void raise_to(uint64_t v) { value_ = std::max(value_, v); }
  void reset() { value_ = 0; }

  [[nodiscard]] uint64_t value() const { return value_; }
  operator uint64_t() const { return value_; }  // NOLINT(google-explicit-constructor): reads like the count it is
  // The count itself, for tracing it over time (sc_trace samples a reference).
  [[nodiscard]] const uint64_t& sampled() const { return value_; }

 private:
  uint64_t value_ = 0;
};

inline std::ostream& operator<<(std::ostream& out, const Counter& c) { return out << c.value(); }
template <typename BasicJson>
void to_json(BasicJson& j, const Counter& c) {
  j = c.value();
}

// The base of a component's statistics struct (through StatGroupOf). Not
// copyable: its counters register themselves with it where they are
// constructed. What each counter is (name, unit, ...) and where it lies in
// the group is kept once per type; an instance keeps only the pointer to its
// type's list, so thousands of links and cards cost one word each, and the
// counters can share a cache line with the component's hot state.
class StatGroup {
 public:
  StatGroup(const StatGroup&) = delete;
  StatGroup& operator=(const StatGroup&) = delete;

  [[nodiscard]] size_t size() const { return schema_->size(); }
  [[nodiscard]] const CounterInfo& info(size_t i) const { return (*schema_)[i].info; }
  [[nodiscard]] uint64_t value(size_t i) const;
  // The counter itself, to trace it over time; null for a gauge.
  [[nodiscard]] const Counter* counter(size_t i) const {
    return (*schema_)[i].gauge ? nullptr : static_cast<const Counter*>(source(i));
  }
  // Every counter's value by name, to keep after the component is gone.
  [[nodiscard]] std::map<std::string, uint64_t> snapshot() const {
    std::map<std::string, uint64_t> values;
    for (size_t i = 0; i < size(); ++i) values[info(i).name] = value(i);
    return values;
  }
  // Zeroes every counter (a cache simulation's warm-up ends).
  void reset();
  // A group type without derived statistics; types that have some hide this.
  static const std::vector<struct DerivedStatistic>& derived();

 protected:
  struct Declared {
    CounterInfo info;
    bool gauge;
    std::ptrdiff_t offset;  // of the Counter or Gauge from the group's start
  };
  explicit StatGroup(std::vector<Declared>* schema) : schema_(schema) {}
  ~StatGroup() = default;

 private:
  friend class Counter;
  friend class Gauge;
  // Every instance of a type declares the same counters in the same order,
  // as members, so at the same offsets, which rise in declaration order: the
  // first instance writes the type's schema as it is built, and the others
  // find each counter already declared.
  void add(const void* source, const CounterInfo& info, bool gauge) {
    const std::ptrdiff_t offset = static_cast<const char*>(source) - reinterpret_cast<const char*>(this);
    if (schema_->empty() || offset > schema_->back().offset) schema_->push_back({info, gauge, offset});
  }
  [[nodiscard]] const void* source(size_t i) const {
    return reinterpret_cast<const char*>(this) + (*schema_)[i].offset;
  }

  std::vector<Declared>* schema_;
};

// What a statistics struct derives from: `struct LinkStats : StatGroupOf<LinkStats>`.
template <typename Self>
class StatGroupOf : public StatGroup {
 protected:
  StatGroupOf() : StatGroup(&schema()) {}

 private:
  static std::vector<Declared>& schema() {
    static std::vector<Declared> declared;
    return declared;
  }
};

inline Counter::Counter(StatGroup& group, const CounterInfo& info) { group.add(this, info, false); }

// A figure read from the component's state when the result is written (what
// is still in a buffer at the end, say), not counted as the run goes. The
// component binds the reading once it is built: a const member function of
// its own, read through a plain function pointer (two words, where a
// std::function took four).
class Gauge {
 public:
  Gauge(StatGroup& group, const CounterInfo& info) { group.add(this, info, true); }
  Gauge(const Gauge&) = delete;
  Gauge& operator=(const Gauge&) = delete;
  // The gauge reads `(owner.*Read)()`; `owner` must outlive it (it owns it).
  template <auto Read, typename Owner>
  void read_from(const Owner& owner) {
    owner_ = &owner;
    read_ = [](const void* o) { return static_cast<uint64_t>((static_cast<const Owner*>(o)->*Read)()); };
  }
  [[nodiscard]] uint64_t read() const { return read_ == nullptr ? 0 : read_(owner_); }

 private:
  const void* owner_ = nullptr;
  uint64_t (*read_)(const void*) = nullptr;
};

inline uint64_t StatGroup::value(size_t i) const {
  return (*schema_)[i].gauge ? static_cast<const Gauge*>(source(i))->read()
                             : static_cast<const Counter*>(source(i))->value();
}

inline void StatGroup::reset() {
  for (size_t i = 0; i < size(); ++i) {
    if (!(*schema_)[i].gauge) const_cast<Counter*>(static_cast<const Counter*>(source(i)))->reset();
  }
}

// The counters of every instance of one group type, combined: what derived
// statistics are computed from.
class StatTotals {
 public:
  // `prototype` gives the counters' names when there are no instances.
  StatTotals(std::span<const StatGroup* const> instances, const StatGroup& prototype, Tick elapsed)
      : instances_(instances.size()), elapsed_(elapsed) {
    for (size_t i = 0; i < prototype.size(); ++i) totals_.push_back({prototype.info(i), 0, 0});
    for (const StatGroup* group : instances) {
      for (size_t i = 0; i < totals_.size(); ++i) {
        const uint64_t v = group->value(i);
        totals_[i].sum += v;
        totals_[i].max = std::max(totals_[i].max, v);
      }
    }
  }

  [[nodiscard]] uint64_t sum(std::string_view counter) const { return find(counter).sum; }
  [[nodiscard]] uint64_t max(std::string_view counter) const { return find(counter).max; }
  [[nodiscard]] size_t instances() const { return instances_; }
  // Simulated time of the run.
  [[nodiscard]] Tick elapsed() const { return elapsed_; }
  // A busy-time counter (ticks) as a share of every instance's whole run.
  [[nodiscard]] double busy_fraction(std::string_view busy_counter) const {
    return ratio(static_cast<double>(sum(busy_counter)),
                 static_cast<double>(instances_) * static_cast<double>(std::max<Tick>(elapsed_, 1)));
  }

  // A busy-time counter (ticks) as a share of the time of every server an
  // instance has (`servers_counter`: engines, memory slots, summed over instances).
  [[nodiscard]] double busy_fraction(std::string_view busy_counter, std::string_view servers_counter) const {
    return ratio(static_cast<double>(sum(busy_counter)),
                 static_cast<double>(sum(servers_counter)) * static_cast<double>(std::max<Tick>(elapsed_, 1)));
  }

  // The reported counters, combined as each declares.
  [[nodiscard]] std::vector<Statistic> reported() const { return counters(false); }
  // Every counter, internal ones too (the per-component tables list them all).
  [[nodiscard]] std::vector<Statistic> all_counters() const { return counters(true); }

 private:
  struct Total {
    CounterInfo info;
    uint64_t sum;
    uint64_t max;
  };
  [[nodiscard]] std::vector<Statistic> counters(bool with_internal) const {
    std::vector<Statistic> out;
    for (const Total& t : totals_) {
      if (!with_internal && t.info.shown == Shown::kInternal) continue;
      out.push_back({t.info.name, t.info.unit, t.info.description, t.info.merge == Merge::kMax ? t.max : t.sum});
    }
    return out;
  }
  [[nodiscard]] const Total& find(std::string_view counter) const {
    for (const Total& t : totals_) {
      if (counter == t.info.name) return t;
    }
    throw std::logic_error("no counter named " + std::string(counter));
  }

  std::vector<Total> totals_;
  size_t instances_;
  Tick elapsed_;
};

// A statistic computed from a group's combined counters.
struct DerivedStatistic {
  const char* name;
  const char* unit;
  const char* description;
  std::function<nlohmann::json(const StatTotals&)> value;
};

inline const std::vector<DerivedStatistic>& StatGroup::derived() {
  static const std::vector<DerivedStatistic> none;
  return none;
}

// The result lines of a group type G (deriving StatGroup, with a static
// `derived()` list): its reported counters, then its derived statistics.
// With no instances the counters report 0 (a card without a prefetch
// buffer still has "prefetches_used": 0).
template <typename G>
std::vector<Statistic> report(std::span<const G* const> instances, Tick elapsed) {
  const G prototype;
  std::vector<const StatGroup*> groups(instances.begin(), instances.end());
  const StatTotals totals(groups, prototype, elapsed);
  std::vector<Statistic> out = totals.reported();
  for (const DerivedStatistic& d : G::derived()) out.push_back({d.name, d.unit, d.description, d.value(totals)});
  return out;
}

}  // namespace ibsec
