// `ibsec-engine cachesim`: the synthetic ON/OFF look-up stream of §4.4 run
// against one key cache, or against several cards' caches (--cards,
// --card-sessions; cachesim/multi_card.h).
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/commands.h"
#include "cachesim/memory_estimate.h"
#include "cachesim/multi_card.h"
#include "cachesim/onoff_cachesim.h"
#include "core/errors.h"
#include "core/memory_estimate.h"
#include "core/parameters.h"
#include "core/size_parse.h"
#include "core/statistics.h"
#include "nic/replacement_policy.h"

namespace ibsec::apps {

namespace {

struct CachesimOptions {
  cachesim::CacheSimConfig sim;
  std::optional<uint32_t> entries;  // overrides size when given
  std::string size = "16KB";
  uint32_t entry_bytes = 16;
  int64_t warmup = -1;        // -1: a tenth of the measured look-ups
  std::string on_period;      // a PeriodDistribution spec; empty: exponential with --on-mean
  std::string off_period;     // likewise for OFF
  uint64_t cards = 1;         // cards with --keys sessions each
  std::string card_sessions;  // a file of per-card session counts; replaces --keys and --cards
  bool json = false;
  bool quiet = false;
  bool force = false;  // run even beyond the machine's memory
};

uint64_t total_sessions(const cachesim::MultiCardResult& r) {
  uint64_t sessions = 0;
  for (const auto& card : r.cards) sessions += card.sessions;
  return sessions;
}

nlohmann::ordered_json config_json(const CachesimOptions& o) {
  const auto& c = o.sim;
  nlohmann::ordered_json config = {{"keys", c.workload.keys},
                                   {"entries", c.cache.entries},
                                   {"entry_bytes", o.entry_bytes},
                                   {"ways", c.cache.ways},
                                   {"sets", c.cache.ways == 0 ? 1 : c.cache.entries / c.cache.ways},
                                   {"policy", c.cache.policy},
                                   {"on_mean", c.workload.on_mean},
                                   {"off_mean", c.workload.off_mean},
                                   {"access_rate", c.workload.access_rate},
                                   {"accesses", c.accesses},
                                   {"warmup", c.warmup},
                                   {"seed", c.workload.seed}};
  // Only when given, so that the exponential runs' output stays as it was.
  if (c.periods.on) config["on_period"] = c.periods.on->spec();
  if (c.periods.off) config["off_period"] = c.periods.off->spec();
  return config;
}

std::vector<Statistic> statistics(const cachesim::CacheSimResult& r, const std::string& hit_rate_description) {
  return {
      {"hit_rate", "fraction", hit_rate_description, r.stats.hit_rate()},
      {"accesses", "look-ups", "measured look-ups (after warm-up)", r.stats.lookups},
      {"hits", "look-ups", "measured look-ups found in the cache", r.stats.hits},
      {"misses", "look-ups", "measured look-ups not found (filled from external memory)", r.stats.misses},
      {"evictions", "keys", "valid keys displaced during measurement", r.stats.evictions},
      {"transitions", "events", "ON/OFF switches generated over the whole run", r.transitions},
  };
}

nlohmann::ordered_json result_json(const CachesimOptions& o, const cachesim::CacheSimResult& r) {
  nlohmann::ordered_json out;
  out["ibsec_version"] = IBSEC_VERSION;
  out["command"] = "cachesim";
  out["config"] = config_json(o);
  write_statistics(out, statistics(r, "hits / measured look-ups"));
  return out;
}

// The cards pooled, the spread of their hit rates, and one line per card.
nlohmann::ordered_json multi_card_json(const CachesimOptions& o, const cachesim::MultiCardResult& r) {
  nlohmann::ordered_json out;
  out["ibsec_version"] = IBSEC_VERSION;
  out["command"] = "cachesim";
  out["config"] = config_json(o);
  out["config"]["keys"] = total_sessions(r);
  out["config"]["cards"] = r.cards.size();
  if (!o.card_sessions.empty()) out["config"]["card_sessions"] = o.card_sessions;
  auto stats = statistics({r.pooled, r.transitions}, "hits / measured look-ups, all cards pooled");
  stats.push_back(
      {"card_hit_rate_mean", "fraction", "mean over cards of each card's hit rate", r.card_hit_rate_mean()});
  stats.push_back({"card_hit_rate_min", "fraction", "lowest card hit rate", r.card_hit_rate_min()});
  stats.push_back({"card_hit_rate_max", "fraction", "highest card hit rate", r.card_hit_rate_max()});
  write_statistics(out, stats);
  auto& cards = out["cards"] = nlohmann::ordered_json::array();
  for (const auto& card : r.cards) {
    cards.push_back({{"sessions", card.sessions},
                     {"accesses", card.result.stats.lookups},
                     {"hits", card.result.stats.hits},
                     {"hit_rate", card.result.stats.hit_rate()}});
  }
  return out;
}

// `keys`: the sessions of every card together.
void print_text(const CachesimOptions& o, const cachesim::CacheSimResult& r, uint64_t keys) {
  const auto& c = o.sim;
  std::printf("cachesim: %llu keys, %u entries (%s, %s), ON %.6g / OFF %.6g, %llu look-ups\n",
              static_cast<unsigned long long>(keys), c.cache.entries,
              c.cache.ways == 0 ? "fully associative" : (std::to_string(c.cache.ways) + "-way").c_str(),
              c.cache.policy.c_str(), c.workload.on_mean, c.workload.off_mean,
              static_cast<unsigned long long>(c.accesses));
  std::printf("hit rate %.6f  (hits %llu, misses %llu, evictions %llu)\n", r.stats.hit_rate(),
              static_cast<unsigned long long>(r.stats.hits), static_cast<unsigned long long>(r.stats.misses),
              static_cast<unsigned long long>(r.stats.evictions));
}

void print_cards(const cachesim::MultiCardResult& r) {
  uint64_t low = UINT64_MAX;
  uint64_t high = 0;
  for (const auto& card : r.cards) {
    low = std::min(low, card.sessions);
    high = std::max(high, card.sessions);
  }
  std::printf("%zu cards, %llu to %llu sessions each: card hit rate mean %.6f, min %.6f, max %.6f\n", r.cards.size(),
              static_cast<unsigned long long>(low), static_cast<unsigned long long>(high), r.card_hit_rate_mean(),
              r.card_hit_rate_min(), r.card_hit_rate_max());
}

// What the run will allocate, checked against the machine's memory before anything is (unless --force);
// returns the session count of each card: the file's, or --cards cards of --keys sessions (none for one card).
std::vector<uint64_t> check_memory_and_cards(const CachesimOptions& o) {
  const auto& c = o.sim;
  const uint64_t available = o.force ? UINT64_MAX : machine_memory_bytes();
  cachesim::CardsShape shape{
      .cards = o.cards, .largest_card_keys = c.workload.keys, .entries_option = o.entries ? "entries" : "size"};
  std::vector<uint64_t> from_file;
  if (!o.card_sessions.empty()) {
    from_file = cachesim::read_card_sessions(o.card_sessions, "card_sessions", available / cachesim::kBytesPerCard);
    shape.cards = from_file.size();
    shape.largest_card_keys = *std::ranges::max_element(from_file);
    shape.keys_option = shape.cards_option = "card_sessions";
  } else if (o.cards == 0) {
    throw ConfigError("cards", "at least one card is needed");
  }
  check_memory(cachesim::estimate_memory(c, shape), available);
  if (!from_file.empty()) return from_file;
  return o.cards == 1 ? std::vector<uint64_t>{} : std::vector<uint64_t>(o.cards, c.workload.keys);
}

void run(CachesimOptions& o) {
  auto& c = o.sim;
  if (!o.on_period.empty()) c.periods.on = cachesim::PeriodDistribution::parse(o.on_period, "on_period");
  if (!o.off_period.empty()) c.periods.off = cachesim::PeriodDistribution::parse(o.off_period, "off_period");
  c.workload = cachesim::with_means(c.workload, c.periods);
  c.cache.entries = o.entries ? *o.entries : nic::entries_for_capacity(parse_size_bytes(o.size, "size"), o.entry_bytes);
  c.cache.seed = c.workload.seed;
  c.warmup = o.warmup >= 0 ? static_cast<uint64_t>(o.warmup) : c.accesses / 10;
  cachesim::validate(c.workload);
  const std::vector<uint64_t> sessions_per_card = check_memory_and_cards(o);
  cachesim::ProgressFn progress;
  const auto start = std::chrono::steady_clock::now();
  if (!o.quiet && isatty(STDERR_FILENO)) {
    progress = [](uint64_t done, uint64_t total) {
      std::fprintf(stderr, "\rcachesim: %.1fM / %.1fM look-ups (%.0f%%)", done / 1e6, total / 1e6,
                   100.0 * static_cast<double>(done) / static_cast<double>(total));
    };
  }
  std::optional<cachesim::MultiCardResult> cards;
  cachesim::CacheSimResult result;
  if (sessions_per_card.empty()) {
    result = cachesim::run_cachesim(c, progress);
  } else {
    cards = cachesim::run_cards(c, sessions_per_card, progress);
    result = {cards->pooled, cards->transitions};
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (progress) std::fprintf(stderr, "\n");
  if (!o.quiet) {
    std::fprintf(stderr, "cachesim: %.3f s wall, %.1f M look-ups/s\n", seconds,
                 static_cast<double>(c.warmup + c.accesses) / seconds / 1e6);
  }
  if (o.json) {
    std::cout << (cards ? multi_card_json(o, *cards) : result_json(o, result)).dump(2) << "\n";
  } else {
    print_text(o, result, cards ? total_sessions(*cards) : c.workload.keys);
    if (cards) print_cards(*cards);
  }
}

}  // namespace

std::string policy_names() {
  std::string names;
  for (const std::string& name : nic::PolicyRegistry::names()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

// Unsigned options are digits only, read in decimal and within 64 bits: CLI11 would otherwise read -1 as
// 2^64 - 1, 010 as octal 8, and 2^64 as 2^64 - 1. Leading zeros are dropped (010 is ten).
const CLI::Validator kWholeNumber(
    [](std::string& text) -> std::string {
      if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
        return "must be a whole number >= 0, got '" + text + "'";
      }
      const std::string digits = text.substr(std::min(text.find_first_not_of('0'), text.size() - 1));
      static const std::string kMax = std::to_string(UINT64_MAX);
      if (digits.size() > kMax.size() || (digits.size() == kMax.size() && digits > kMax)) {
        return "must be a whole number from 0 to " + kMax + ", got '" + text + "'";
      }
      text = digits;
      return {};
    },
    "WHOLE>=0");

namespace {

// The options of `cachesim` as it registers them with CLI11 and as `ibsec-engine params --command cachesim` lists
// them: each key's default, unit and description are written once, here, and read by the Python package.
class CachesimParameters {
 public:
  explicit CachesimParameters(CLI::App* cmd) : cmd_(cmd) {}

  // An option whose default is the value the bound variable starts with.
  template <typename T>
  CLI::Option* add(const std::string& key, T& variable, const std::string& unit, const std::string& description) {
    listed_.push_back({key, nlohmann::json(variable), unit, description});
    return cmd_->add_option(cachesim_flag(key), variable, shown(unit, description))->capture_default_str();
  }

  // An option with no value of its own when absent (derived from another, or replaced by one): listed with a
  // null default, which its description explains.
  template <typename T>
  CLI::Option* add_unset(const std::string& key, T& variable, const std::string& unit, const std::string& description,
                         const std::string& file = {}) {
    listed_.push_back({key, nullptr, unit, description, file});
    return cmd_->add_option(cachesim_flag(key), variable, shown(unit, description));
  }

  const std::vector<ParameterInfo>& listed() const { return listed_; }

 private:
  static std::string shown(const std::string& unit, const std::string& description) {
    return unit.empty() ? description : description + " [" + unit + "]";
  }

  CLI::App* cmd_;
  std::vector<ParameterInfo> listed_;
};

std::vector<ParameterInfo> add_cachesim_options(CLI::App* cmd, CachesimOptions& o) {
  CachesimParameters p(cmd);
  auto* keys = p.add("keys", o.sim.workload.keys, "sessions", "session keys (ON/OFF sessions) per card")
                   ->transform(kWholeNumber);
  auto* cards = p.add("cards", o.cards, "cards",
                      "cards, each with --keys sessions and its own cache; the look-ups (--accesses, --warmup) are "
                      "shared among the cards in proportion to their sessions")
                    ->transform(kWholeNumber);
  p.add_unset("card_sessions", o.card_sessions, "",
              "file of per-card session counts, one whole number a line ('#' comments): one card each, instead of "
              "--cards and --keys (default: none)",
              "input")
      ->excludes(keys)
      ->excludes(cards);
  auto* entries = p.add_unset("entries", o.entries, "entries", "cache size in entries (default: from --size)")
                      ->transform(kWholeNumber);
  p.add("size", o.size, "bytes", "cache size, e.g. 2KB, 16KB")->excludes(entries);
  p.add("entry_bytes", o.entry_bytes, "bytes", "bytes per entry (one 128-bit key = 16)")->transform(kWholeNumber);
  p.add("ways", o.sim.cache.ways, "ways", "associativity; 0 = fully associative")->transform(kWholeNumber);
  p.add("policy", o.sim.cache.policy, "", "replacement policy: " + policy_names());
  auto* on_mean = p.add("on_mean", o.sim.workload.on_mean, "ms", "mean ON duration (exponential)");
  auto* off_mean = p.add("off_mean", o.sim.workload.off_mean, "ms", "mean OFF duration (exponential)");
  p.add_unset("on_period", o.on_period, "ms",
              "law of the ON lengths instead of exponential: exp:MEAN, lognormal:MU,SIGMA, weibull:SHAPE,SCALE, "
              "hyperexp:P,MEAN1,MEAN2, empirical:FILE (default: exponential with --on-mean)")
      ->excludes(on_mean);
  p.add_unset("off_period", o.off_period, "ms",
              "law of the OFF lengths, as --on-period (default: exponential with --off-mean)")
      ->excludes(off_mean);
  p.add("access_rate", o.sim.workload.access_rate, "look-ups/ms", "look-ups per ms while a session is ON");
  p.add("accesses", o.sim.accesses, "look-ups", "measured look-ups")->transform(kWholeNumber);
  p.add_unset("warmup", o.warmup, "look-ups", "look-ups before measuring (default: a tenth of --accesses)")
      ->transform(kWholeNumber);
  p.add("seed", o.sim.workload.seed, "", "random seed")->transform(kWholeNumber);
  return p.listed();
}

}  // namespace

std::string cachesim_flag(const std::string& key) {
  std::string option = "--" + key;
  std::replace(option.begin(), option.end(), '_', '-');
  return option;
}

std::vector<ParameterInfo> cachesim_parameters() {
  CLI::App scratch;  // the options are registered as `cachesim` registers them, and only listed
  CachesimOptions defaults;
  return add_cachesim_options(&scratch, defaults);
}

void add_cachesim_command(CLI::App& app) {
  auto options = std::make_shared<CachesimOptions>();
  auto* cmd = app.add_subcommand("cachesim", "synthetic ON/OFF session-key look-ups against one key cache (paper 4.4)");
  add_cachesim_options(cmd, *options);
  cmd->add_flag("--json", options->json, "print the result as JSON");
  cmd->add_flag("--quiet", options->quiet, "no progress or timing on stderr");
  cmd->add_flag("--force", options->force,
                "run even if the estimated memory exceeds the machine's (the estimate is refused otherwise)");
  cmd->callback([options] { run(*options); });
}

}  // namespace ibsec::apps
