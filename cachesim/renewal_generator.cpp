#include "cachesim/renewal_generator.h"

#include <limits>
#include <utility>

namespace ibsec::cachesim {

namespace {

PeriodDistribution law(const std::optional<PeriodDistribution>& given, double mean) {
  return given ? *given : PeriodDistribution::exponential(mean);
}

}  // namespace

OnOffParams with_means(OnOffParams params, const PeriodLaws& laws) {
  if (laws.on) params.on_mean = laws.on->mean();
  if (laws.off) params.off_mean = laws.off->mean();
  return params;
}

RenewalOnOffGenerator::RenewalOnOffGenerator(const OnOffParams& params, const PeriodLaws& laws)
    : on_((validate(params), law(laws.on, params.on_mean))),
      off_(law(laws.off, params.off_mean)),
      access_rate_(params.access_rate),
      rng_(params.seed) {
  const auto n = static_cast<uint32_t>(params.keys);
  members_.resize(n);
  position_.resize(n);
  for (uint32_t k = 0; k < n; ++k) members_[k] = position_[k] = k;
  const double p_on = on_.mean() / (on_.mean() + off_.mean());
  for (uint32_t k = 0; k < n; ++k) {
    if (rng_.uniform01() < p_on) flip(k);
    schedule(k, is_on(k) ? on_.residual(rng_) : off_.residual(rng_));
  }
}

// Moves `key` across the ON/OFF boundary of members_ by a swap with the
// member on the boundary.
void RenewalOnOffGenerator::flip(uint32_t key) {
  const bool was_on = is_on(key);
  const uint64_t boundary = was_on ? on_count_ - 1 : on_count_;
  const uint32_t other = members_[boundary];
  std::swap(members_[position_[key]], members_[boundary]);
  position_[other] = position_[key];
  position_[key] = static_cast<uint32_t>(boundary);
  on_count_ = was_on ? on_count_ - 1 : on_count_ + 1;
}

void RenewalOnOffGenerator::schedule(uint32_t key, double length) { switches_.emplace(now_ + length, key); }

SessionKeyId RenewalOnOffGenerator::next() {
  for (;;) {
    const double lookup = on_count_ == 0
                              ? std::numeric_limits<double>::infinity()
                              : now_ + rng_.exponential(1.0 / (static_cast<double>(on_count_) * access_rate_));
    const auto [at, key] = switches_.top();
    if (lookup <= at) {
      now_ = lookup;
      return SessionKeyId(members_[rng_.below(on_count_)]);
    }
    // The session switches first; the look-up drawn is discarded, which the
    // memorylessness of the Poisson look-ups allows.
    now_ = at;
    switches_.pop();
    flip(key);
    ++transitions_;
    schedule(key, is_on(key) ? on_.sample(rng_) : off_.sample(rng_));
  }
}

}  // namespace ibsec::cachesim
