#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "cachesim/onoff_cachesim.h"
#include "cachesim/period_distribution.h"
#include "cachesim/renewal_generator.h"
#include "core/errors.h"

namespace ibsec::cachesim {
namespace {

std::string field_of_parse(const std::string& spec) {
  try {
    (void)PeriodDistribution::parse(spec, "on_period");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(PeriodDistribution, MeansOfEachLaw) {
  EXPECT_DOUBLE_EQ(PeriodDistribution::parse("exp:2.5", "f").mean(), 2.5);
  EXPECT_NEAR(PeriodDistribution::parse("lognormal:0,1", "f").mean(), std::exp(0.5), 1e-12);
  EXPECT_NEAR(PeriodDistribution::parse("weibull:0.5,2", "f").mean(), 2.0 * std::tgamma(3.0), 1e-12);
  EXPECT_NEAR(PeriodDistribution::parse("hyperexp:0.25,1,5", "f").mean(), 0.25 + 0.75 * 5, 1e-12);
}

TEST(PeriodDistribution, SamplesAndResidualsHaveTheirMeans) {
  // A length's mean is E[L]; the residual from a random time has mean E[L^2] / (2 E[L]).
  struct Case {
    const char* spec;
    double second_moment;
  };
  const Case cases[] = {{"exp:2", 8.0},
                        {"lognormal:0,0.8", std::exp(2 * 0.64)},
                        {"weibull:0.7,1.5", 1.5 * 1.5 * std::tgamma(1 + 2 / 0.7)},
                        {"hyperexp:0.3,0.5,4", 0.3 * 2 * 0.25 + 0.7 * 2 * 16}};
  for (const auto& c : cases) {
    const auto law = PeriodDistribution::parse(c.spec, "f");
    Rng rng(11);
    double sum = 0.0;
    double residual = 0.0;
    constexpr int kSamples = 400000;
    for (int i = 0; i < kSamples; ++i) {
      sum += law.sample(rng);
      residual += law.residual(rng);
    }
    EXPECT_NEAR(sum / kSamples, law.mean(), 0.02 * law.mean()) << c.spec;
    const double expected = c.second_moment / (2 * law.mean());
    EXPECT_NEAR(residual / kSamples, expected, 0.03 * expected) << c.spec;
  }
}

TEST(PeriodDistribution, EmpiricalResamplesTheFile) {
  const std::string path = ::testing::TempDir() + "periods.txt";
  {
    std::ofstream out(path);
    out << "# lengths\n1\n3\n";
  }
  const auto law = PeriodDistribution::parse("empirical:" + path, "f");
  EXPECT_DOUBLE_EQ(law.mean(), 2.0);
  Rng rng(3);
  double residual = 0.0;
  for (int i = 0; i < 200000; ++i) residual += law.residual(rng);
  EXPECT_NEAR(residual / 200000, (1.0 + 9.0) / (2 * 4.0), 0.01);  // E[L^2] / (2 E[L]) = 5 / 4
  std::remove(path.c_str());
}

TEST(PeriodDistribution, BadSpecsNameTheProblem) {
  EXPECT_NE(field_of_parse("gamma:1").find("unknown law"), std::string::npos);
  EXPECT_NE(field_of_parse("exp:-1").find("positive"), std::string::npos);
  EXPECT_NE(field_of_parse("lognormal:1").find("takes 2"), std::string::npos);
  EXPECT_NE(field_of_parse("hyperexp:1.5,1,2").find("strictly between"), std::string::npos);
  EXPECT_NE(field_of_parse("exp:1x").find("not a number"), std::string::npos);
  EXPECT_NE(field_of_parse("empirical:/no/such/file").find("cannot open"), std::string::npos);
}

TEST(RenewalOnOffGenerator, FractionOnIsTheDutyCycleForNonExponentialPeriods) {
  // Insensitivity: each session is ON on_mean / (on_mean + off_mean) of the time whatever the laws.
  PeriodLaws laws{PeriodDistribution::parse("lognormal:0,1", "on"), PeriodDistribution::parse("weibull:0.6,5", "off")};
  const OnOffParams params = with_means({2000, 1.0, 1.0, 1.0, 5}, laws);
  const double duty = params.on_mean / (params.on_mean + params.off_mean);
  RenewalOnOffGenerator gen(params, laws);
  double sum = 0;
  uint64_t samples = 0;
  uint64_t last = gen.transitions();
  for (int i = 0; i < 400000; ++i) {
    gen.next();
    if (gen.transitions() != last) {  // sampled at switches, not look-ups (which favour busy moments)
      sum += static_cast<double>(gen.sessions_on());
      ++samples;
      last = gen.transitions();
    }
  }
  EXPECT_NEAR(sum / static_cast<double>(samples) / 2000.0, duty, 0.01);
}

TEST(RenewalOnOffGenerator, ExponentialLawsGiveTheJumpChainsHitRate) {
  // The same exponential traffic through both generators: equal hit rates within noise.
  CacheSimConfig c;
  c.workload = {4000, 0.08, 1.52, 100.0, 9};
  c.cache = {256, 0, "lru", 1};
  c.accesses = 2'000'000;
  c.warmup = 200'000;
  const double jump_chain = run_cachesim(c).stats.hit_rate();
  c.periods.on = PeriodDistribution::parse("exp:0.08", "on");
  c.periods.off = PeriodDistribution::parse("exp:1.52", "off");
  EXPECT_NEAR(run_cachesim(c).stats.hit_rate(), jump_chain, 0.005);
}

TEST(RenewalOnOffGenerator, ColdStartCeilingHoldsForAnyOnLaw) {
  // ON sessions fit, keys never survive OFF: a hit iff not the first look-up of an ON period. With Poisson
  // look-ups in an ON period of length L, P(at least one) = 1 - E[exp(-r L)], so the hit rate is
  // 1 - (1 - E[exp(-r L)]) / (r E[L]). For a hyperexponential ON law E[exp(-r L)] = sum p_i / (1 + r m_i).
  CacheSimConfig c;
  c.periods.on = PeriodDistribution::parse("hyperexp:0.5,0.02,0.14", "on");  // mean 0.08, like LU
  c.workload = with_means({4000, 1.0, 1.52, 100.0, 9}, c.periods);
  c.cache = {256, 0, "lru", 1};
  c.accesses = 2'000'000;
  c.warmup = 200'000;
  const double none = 0.5 / (1 + 100 * 0.02) + 0.5 / (1 + 100 * 0.14);
  EXPECT_NEAR(run_cachesim(c).stats.hit_rate(), 1.0 - (1.0 - none) / (100 * 0.08), 0.01);
}

}  // namespace
}  // namespace ibsec::cachesim
