// The law of one session's ON (or OFF) period lengths in the ON/OFF cache
// simulation: exponential (the paper's model and the default), lognormal,
// Weibull, two-phase hyperexponential, or empirical (resampling measured
// lengths, e.g. the periods `ibsec analytic fit` writes). Written as text,
// the same way as analytics/ibsec/models/renewal.py:
//   exp:MEAN  lognormal:MU,SIGMA  weibull:SHAPE,SCALE  hyperexp:P,MEAN1,MEAN2
//   empirical:FILE (one length a line, `#` comments)
// Lengths are in the simulation's time unit (ms); MU and SIGMA are of the
// natural log of the length.
#pragma once

#include <string>
#include <vector>

#include "core/random.h"

namespace ibsec::cachesim {

class PeriodDistribution {
 public:
  enum class Kind { kExponential, kLognormal, kWeibull, kHyperexponential, kEmpirical };

  static PeriodDistribution exponential(double mean);
  // Throws ConfigError naming `field` (and the file and line for empirical).
  static PeriodDistribution parse(const std::string& spec, const std::string& field);

  [[nodiscard]] Kind kind() const { return kind_; }
  [[nodiscard]] double mean() const { return mean_; }
  [[nodiscard]] const std::string& spec() const { return spec_; }

  // A period length.
  double sample(Rng& rng) const;
  // What is left of a period seen from a time-stationary point: U times a
  // length-biased length (the equilibrium law), so that sessions start in
  // the stationary state of their alternating renewal process.
  double residual(Rng& rng) const;

 private:
  PeriodDistribution(Kind kind, std::vector<double> params, std::string spec);

  Kind kind_;
  std::vector<double> params_;      // by kind: see the file comment; empirical: the lengths
  std::vector<double> cumulative_;  // empirical: running sums of the lengths, for length-biased picks
  double mean_ = 0.0;
  std::string spec_;
};

}  // namespace ibsec::cachesim
