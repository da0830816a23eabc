#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cachesim/onoff_cachesim.h"
#include "cachesim/onoff_generator.h"
#include "core/errors.h"

namespace ibsec::cachesim {
namespace {

TEST(OnOffGenerator, SameSeedSameSequenceOtherSeedOther) {
  OnOffParams p{500, 1.0, 4.0, 50.0, 7};
  OnOffGenerator a(p), b(p);
  p.seed = 8;
  OnOffGenerator c(p);
  int differ = 0;
  for (int i = 0; i < 10000; ++i) {
    const auto x = a.next();
    ASSERT_EQ(x, b.next());
    differ += (x != c.next());
  }
  EXPECT_GT(differ, 9000);
}

TEST(OnOffGenerator, FractionOnMatchesLambdaOverLambdaPlusMu) {
  // ON 1, OFF 3: each session is ON a quarter of the time. Sampled at look-ups
  // the count is biased towards busy moments, so sample at every event via
  // the transition counter instead: average ON count over switch events.
  OnOffGenerator gen({2000, 1.0, 3.0, 1.0, 3});
  double sum = 0;
  uint64_t samples = 0;
  uint64_t last = gen.transitions();
  for (int i = 0; i < 400000; ++i) {
    gen.next();
    if (gen.transitions() != last) {
      sum += static_cast<double>(gen.sessions_on());
      ++samples;
      last = gen.transitions();
    }
  }
  // Transition events happen at total rate k*mu + (n-k)*lambda, which for
  // mu = 3*lambda weights states; the stationary count still concentrates at
  // n*q = 500 with sd ~19, so the sampled mean is within a few percent.
  EXPECT_NEAR(sum / static_cast<double>(samples), 500.0, 25.0);
}

TEST(OnOffGenerator, LookupsPerOnPeriodAverageRateTimesOnMean) {
  // With r * on_mean = 20, a session emits 20 look-ups per ON period on
  // average, and every period ends with one ON->OFF switch; so look-ups per
  // ON->OFF switch converge to 20 (the OFF->ON switches are the other half).
  OnOffGenerator gen({300, 2.0, 6.0, 10.0, 11});
  const int lookups = 2'000'000;
  for (int i = 0; i < lookups; ++i) gen.next();
  const double per_period = lookups / (static_cast<double>(gen.transitions()) / 2.0);
  EXPECT_NEAR(per_period, 20.0, 0.5);
}

TEST(OnOffGenerator, LookupsSpreadEvenlyOverSessions) {
  const uint64_t n = 50;
  // A low look-up rate keeps ON periods short, so per-key counts are close
  // to Poisson (sd ~2 %) rather than dominated by a few long bursts.
  OnOffGenerator gen({n, 1.0, 1.0, 2.0, 5});
  std::vector<int> count(n);
  const int total = 500000;
  for (int i = 0; i < total; ++i) ++count[gen.next().value()];
  for (uint64_t key = 0; key < n; ++key) EXPECT_NEAR(count[key], total / n, total / n * 0.1) << key;
}

TEST(OnOffGenerator, RejectsBadParametersNamingTheField) {
  const auto field_of = [](OnOffParams p) {
    try {
      OnOffGenerator gen(p);
    } catch (const ConfigError& e) {
      return e.field();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(field_of({0, 1, 1, 1, 1}), "keys");
  EXPECT_EQ(field_of({10, 0, 1, 1, 1}), "on_mean");
  EXPECT_EQ(field_of({10, 1, -2, 1, 1}), "off_mean");
  EXPECT_EQ(field_of({10, 1, NAN, 1, 1}), "off_mean");
  EXPECT_EQ(field_of({10, 1, 1, 0, 1}), "access_rate");
}

TEST(CacheSim, AllKeysFitGivesPerfectHitRateAfterWarmup) {
  CacheSimConfig c;
  c.workload = {64, 1.0, 5.0, 20.0, 1};
  c.cache = {64, 0, "lru", 1};
  c.accesses = 100000;
  c.warmup = 20000;
  EXPECT_DOUBLE_EQ(run_cachesim(c).stats.hit_rate(), 1.0);
}

TEST(CacheSim, AlwaysOnSessionsGiveIndependentUniformHitRate) {
  // OFF periods vanishingly short: every session is always ON and look-ups
  // are independent and uniform over n keys, for which LRU, FIFO and random
  // replacement all hit with probability x/n.
  for (const char* policy : {"lru", "fifo", "random"}) {
    CacheSimConfig c;
    c.workload = {1000, 1e6, 1e-6, 1.0, 2};
    c.cache = {100, 0, policy, 1};
    c.accesses = 400000;
    c.warmup = 10000;
    EXPECT_NEAR(run_cachesim(c).stats.hit_rate(), 0.1, 0.004) << policy;
  }
}

TEST(CacheSim, OptBoundsLruOnOnOffTraffic) {
  CacheSimConfig c;
  c.workload = {2000, 1.0, 9.0, 20.0, 4};
  c.cache = {128, 0, "lru", 1};
  c.accesses = 100000;
  c.warmup = 10000;
  const double lru = run_cachesim(c).stats.hit_rate();
  c.cache.policy = "opt";
  EXPECT_GT(run_cachesim(c).stats.hit_rate(), lru);
}

}  // namespace
}  // namespace ibsec::cachesim

namespace ibsec::cachesim {
namespace {

// Two regimes with closed forms (docs/markov-model.md):
// - the ON sessions fit in the cache but every key is evicted during its OFF
//   period: each ON period with at least one look-up misses exactly once.
//   Look-ups per period are geometric with mean m = r * on_mean, so the hit
//   rate is 1 - P(>=1) / m = 1 - 1 / (1 + m).
// - far more sessions ON (n q) than entries x: look-ups are close to uniform
//   over the ON set and LRU hits with probability x / (n q).
TEST(CacheSimClosedForm, ColdStartOfEveryOnPeriod) {
  CacheSimConfig c;
  c.workload = {4000, 0.08, 1.52, 100.0, 9};  // duty 0.05: ~200 ON for 256 entries; m = 8
  c.cache = {256, 0, "lru", 1};
  c.accesses = 2'000'000;
  c.warmup = 200'000;
  EXPECT_NEAR(run_cachesim(c).stats.hit_rate(), 1.0 - 1.0 / 9.0, 0.01);
}

TEST(CacheSimClosedForm, OverloadedCacheHitsEntriesOverActiveSessions) {
  CacheSimConfig c;
  c.workload = {8000, 8.0, 24.0, 100.0, 9};  // duty 0.25: ~2000 ON
  c.cache = {256, 0, "lru", 1};
  c.accesses = 2'000'000;
  c.warmup = 200'000;
  EXPECT_NEAR(run_cachesim(c).stats.hit_rate(), 256.0 / 2000.0, 0.005);
}

}  // namespace
}  // namespace ibsec::cachesim
