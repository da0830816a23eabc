#include "cachesim/onoff_generator.h"

#include <cmath>
#include <string>
#include <utility>

#include "core/errors.h"

namespace ibsec::cachesim {

void validate(const OnOffParams& params) {
  if (params.keys == 0) throw ConfigError("keys", "at least one session key is needed");
  if (params.keys > UINT32_MAX) throw ConfigError("keys", "at most 2^32-1 session keys are supported");
  const auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
  if (!positive(params.on_mean)) {
    throw ConfigError("on_mean", "mean ON duration must be a positive number, got " + std::to_string(params.on_mean));
  }
  if (!positive(params.off_mean)) {
    throw ConfigError("off_mean",
                      "mean OFF duration must be a positive number, got " + std::to_string(params.off_mean));
  }
  if (!positive(params.access_rate)) {
    throw ConfigError("access_rate",
                      "look-up rate while ON must be a positive number, got " + std::to_string(params.access_rate));
  }
}

OnOffGenerator::OnOffGenerator(const OnOffParams& params)
    : access_rate_((validate(params), params.access_rate)),
      off_rate_(1.0 / params.on_mean),
      on_rate_(1.0 / params.off_mean),
      rng_(params.seed) {
  const auto n = static_cast<uint32_t>(params.keys);
  members_.resize(n);
  position_.resize(n);
  for (uint32_t k = 0; k < n; ++k) members_[k] = position_[k] = k;
  const double p_on = on_rate_ / (on_rate_ + off_rate_);
  for (uint32_t k = 0; k < n; ++k) {
    if (rng_.uniform01() < p_on) switch_one(on_count_, n - on_count_, true);
  }
}

// Moves a uniformly chosen member of the range [position_lo, position_lo +
// count) across the ON/OFF boundary.
void OnOffGenerator::switch_one(uint64_t position_lo, uint64_t count, bool to_on) {
  const uint64_t pick = position_lo + rng_.below(count);
  const uint64_t boundary = to_on ? on_count_ : on_count_ - 1;
  const uint32_t a = members_[pick];
  const uint32_t b = members_[boundary];
  std::swap(members_[pick], members_[boundary]);
  position_[a] = static_cast<uint32_t>(boundary);
  position_[b] = static_cast<uint32_t>(pick);
  on_count_ += to_on ? 1 : -1;
}

SessionKeyId OnOffGenerator::next() {
  const auto n = static_cast<double>(members_.size());
  for (;;) {
    const auto k = static_cast<double>(on_count_);
    const double access = k * access_rate_;
    const double leave_on = k * off_rate_;
    const double total = access + leave_on + (n - k) * on_rate_;
    const double u = rng_.uniform01() * total;
    if (u < access) return SessionKeyId(members_[rng_.below(on_count_)]);
    ++transitions_;
    if (u < access + leave_on) {
      switch_one(0, on_count_, false);
    } else if (on_count_ < members_.size()) {  // guards a rounding of u up to total
      switch_one(on_count_, members_.size() - on_count_, true);
    }
  }
}

}  // namespace ibsec::cachesim
