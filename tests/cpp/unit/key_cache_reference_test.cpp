// KeyCache against straightforward reference models (lists and arrays
// scanned linearly) on long random sequences, for every geometry and policy.
#include <gtest/gtest.h>

#include <algorithm>
#include <list>
#include <random>
#include <string>
#include <vector>

#include "core/random.h"
#include "nic/key_cache.h"

namespace ibsec::nic {
namespace {

// One set of a reference cache: ways held in an array, filled lowest first.
struct RefWay {
  uint64_t key = UINT64_MAX;
  uint64_t count = 0;
  uint64_t last_use = 0;
  uint64_t filled_at = 0;
};

class ReferenceCache {
 public:
  ReferenceCache(uint32_t entries, uint32_t ways, std::string policy, uint64_t seed, std::vector<SessionKeyId> future)
      : ways_(ways == 0 ? entries : ways),
        sets_(entries / ways_),
        table_(sets_, std::vector<RefWay>(ways_)),
        policy_(std::move(policy)),
        rng_(seed),
        future_(std::move(future)) {}

  bool access(uint64_t key) {
    ++clock_;
    auto& set = table_[key % sets_];
    for (auto& way : set) {
      if (way.key == key) {
        ++way.count;
        way.last_use = clock_;
        ++cursor_;
        return true;
      }
    }
    auto free = std::find_if(set.begin(), set.end(), [](const RefWay& w) { return w.key == UINT64_MAX; });
    RefWay& target = free != set.end() ? *free : set[victim(set)];
    target = {key, 1, clock_, clock_};
    ++cursor_;
    return false;
  }

 private:
  size_t victim(const std::vector<RefWay>& set) {
    if (policy_ == "random") return rng_.below(ways_);
    auto pick = [&](auto better) {
      size_t best = 0;
      for (size_t i = 1; i < set.size(); ++i)
        if (better(set[i], set[best])) best = i;
      return best;
    };
    if (policy_ == "lru") return pick([](const RefWay& a, const RefWay& b) { return a.last_use < b.last_use; });
    if (policy_ == "fifo") return pick([](const RefWay& a, const RefWay& b) { return a.filled_at < b.filled_at; });
    if (policy_ == "lfu") {
      return pick([](const RefWay& a, const RefWay& b) {
        return a.count < b.count || (a.count == b.count && a.last_use < b.last_use);
      });
    }
    // opt: farthest next use; keys never used again are farthest of all.
    auto next_use = [&](uint64_t key) {
      for (size_t i = cursor_ + 1; i < future_.size(); ++i)
        if (future_[i].value() == key) return i;
      return SIZE_MAX;
    };
    size_t best = 0;
    size_t best_next = next_use(set[0].key);
    for (size_t i = 1; i < set.size(); ++i) {
      const size_t n = next_use(set[i].key);
      if (n > best_next) best = i, best_next = n;
    }
    return best;
  }

  uint32_t ways_;
  uint32_t sets_;
  std::vector<std::vector<RefWay>> table_;
  std::string policy_;
  Rng rng_;
  std::vector<SessionKeyId> future_;
  uint64_t clock_ = 0;
  size_t cursor_ = 0;
};

std::vector<SessionKeyId> skewed_sequence(size_t length, uint64_t distinct, uint32_t seed) {
  // A mix of a hot working set and a uniform tail, so hits and misses both occur.
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<uint64_t> all(0, distinct - 1);
  std::uniform_int_distribution<uint64_t> hot(0, std::max<uint64_t>(1, distinct / 8) - 1);
  std::bernoulli_distribution use_hot(0.7);
  std::vector<SessionKeyId> seq(length);
  for (auto& k : seq) k = SessionKeyId(use_hot(gen) ? hot(gen) * 7 + 3 : all(gen) * 7 + 3);
  return seq;
}

struct Case {
  uint32_t entries;
  uint32_t ways;
  std::string policy;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.policy << ", " << c.entries << " entries, " << c.ways << " ways";
}

class KeyCacheMatchesReference : public ::testing::TestWithParam<Case> {};

TEST_P(KeyCacheMatchesReference, HitMissSequenceIsIdentical) {
  const Case& c = GetParam();
  const size_t length = c.policy == "opt" ? 6'000 : 60'000;
  for (uint64_t distinct : {uint64_t{c.entries} * 2, uint64_t{c.entries} * 10 + 1}) {
    const auto seq = skewed_sequence(length, distinct, 17 + c.entries + c.ways);
    KeyCache cache({c.entries, c.ways, c.policy, 99}, seq);
    ReferenceCache ref(c.entries, c.ways, c.policy, 99, seq);
    uint64_t hits = 0;
    for (size_t i = 0; i < seq.size(); ++i) {
      const bool expected = ref.access(seq[i].value());
      const auto got = cache.access(seq[i]);
      ASSERT_EQ(got.hit, expected) << "access " << i << " key " << seq[i].value();
      hits += expected;
    }
    EXPECT_EQ(cache.stats().hits, hits);
    EXPECT_EQ(cache.stats().lookups, seq.size());
    EXPECT_EQ(cache.stats().hits + cache.stats().misses, seq.size());
    EXPECT_EQ(cache.stats().misses, cache.stats().fills);
    EXPECT_EQ(cache.stats().evictions, cache.stats().fills - cache.size());
    EXPECT_GT(hits, 0u);
    EXPECT_LT(hits, seq.size());
  }
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const char* policy : {"lru", "fifo", "random", "lfu", "opt"}) {
    for (uint32_t entries : {1u, 8u, 64u, 96u, 512u}) {
      for (uint32_t ways : {0u, 1u, 2u, 4u, 8u, 16u, 32u}) {
        if (ways > entries || (ways != 0 && entries % ways != 0)) continue;
        cases.push_back({entries, ways, policy});
      }
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllGeometries, KeyCacheMatchesReference, ::testing::ValuesIn(all_cases()),
                         [](const auto& info) {
                           const Case& c = info.param;
                           return c.policy + "_" + std::to_string(c.entries) + "e_" +
                                  (c.ways == 0 ? std::string("fa") : std::to_string(c.ways) + "w");
                         });

TEST(OptPolicy, HitRateIsAtLeastEveryOtherPolicys) {
  for (uint32_t ways : {0u, 1u, 4u, 16u}) {
    const auto seq = skewed_sequence(40'000, 1500, 5 + ways);
    KeyCache opt({256, ways, "opt", 1}, seq);
    for (const auto& k : seq) opt.access(k);
    for (const char* policy : {"lru", "fifo", "random", "lfu"}) {
      KeyCache other({256, ways, policy, 1});
      for (const auto& k : seq) other.access(k);
      EXPECT_GE(opt.stats().hits, other.stats().hits) << policy << " ways " << ways;
    }
  }
}

TEST(OptPolicy, RejectsAccessesThatDepartFromItsSequence) {
  const std::vector<SessionKeyId> seq = {SessionKeyId(1), SessionKeyId(2)};
  KeyCache cache({2, 0, "opt", 1}, seq);
  cache.access(SessionKeyId(1));
  EXPECT_THROW(cache.access(SessionKeyId(3)), std::logic_error);
}

}  // namespace
}  // namespace ibsec::nic
