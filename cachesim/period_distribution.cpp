#include "cachesim/period_distribution.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>

#include "cachesim/data_line.h"
#include "core/bounded_input.h"
#include "core/errors.h"

namespace ibsec::cachesim {

namespace {

double standard_normal(Rng& rng) {  // Box-Muller; one of the pair is enough here
  const double u = 1.0 - rng.uniform01();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * rng.uniform01());
}

// Gamma(shape, 1) for shape >= 1 (Marsaglia and Tsang, 2000).
double gamma_at_least_one(double shape, Rng& rng) {
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = 0.0;
    double v = 0.0;
    do {
      x = standard_normal(rng);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = 1.0 - rng.uniform01();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

// The whole of `text` as one number, or nothing: "1.0abc" and "1.0 2.0" are not one number.
std::optional<double> whole_number(std::string_view text) {
  double value = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// One length a line, bounded like every side input (core/bounded_input.h).
std::vector<double> read_lengths(const std::string& path, const std::string& field) {
  LineReader in(path, field, "period file");
  std::vector<double> lengths;
  for (std::string line; in.next(line);) {
    const auto text = data_line(line);
    if (!text) continue;
    const auto value = whole_number(*text);
    if (!value || !std::isfinite(*value) || *value <= 0.0) {
      in.fail("expected one positive period length, got '" + text->substr(0, 40) + "'");
    }
    lengths.push_back(*value);
  }
  if (lengths.empty()) in.fail_file("no period lengths");
  return lengths;
}

std::vector<double> numbers(const std::string& text, const std::string& spec, const std::string& field,
                            size_t expected) {
  std::vector<double> values;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    const auto value = whole_number(item);
    if (!value || !std::isfinite(*value)) throw ConfigError(field, "'" + spec + "': '" + item + "' is not a number");
    values.push_back(*value);
  }
  if (values.size() != expected) {
    throw ConfigError(field, "'" + spec + "' takes " + std::to_string(expected) + " number(s) after the colon");
  }
  return values;
}

}  // namespace

PeriodDistribution::PeriodDistribution(Kind kind, std::vector<double> params, std::string spec)
    : kind_(kind), params_(std::move(params)), spec_(std::move(spec)) {
  const auto& p = params_;
  switch (kind_) {
    case Kind::kExponential:
      mean_ = p[0];
      break;
    case Kind::kLognormal:
      mean_ = std::exp(p[0] + p[1] * p[1] / 2.0);
      break;
    case Kind::kWeibull:
      mean_ = p[1] * std::tgamma(1.0 + 1.0 / p[0]);
      break;
    case Kind::kHyperexponential:
      mean_ = p[0] * p[1] + (1.0 - p[0]) * p[2];
      break;
    case Kind::kEmpirical: {
      double sum = 0.0;
      cumulative_.reserve(p.size());
      for (double v : p) cumulative_.push_back(sum += v);
      mean_ = sum / static_cast<double>(p.size());
      break;
    }
  }
}

PeriodDistribution PeriodDistribution::exponential(double mean) {
  return {Kind::kExponential, {mean}, "exp:" + std::to_string(mean)};
}

PeriodDistribution PeriodDistribution::parse(const std::string& spec, const std::string& field) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  const std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  const auto positive = [&](double v, const char* what) {
    if (!(v > 0.0)) throw ConfigError(field, "'" + spec + "': " + what + " must be positive");
  };
  if (kind == "empirical") return {Kind::kEmpirical, read_lengths(rest, field), spec};
  if (kind == "exp") {
    auto p = numbers(rest, spec, field, 1);
    positive(p[0], "the mean");
    return {Kind::kExponential, p, spec};
  }
  if (kind == "lognormal") {
    auto p = numbers(rest, spec, field, 2);
    positive(p[1], "sigma");
    return {Kind::kLognormal, p, spec};
  }
  if (kind == "weibull") {
    auto p = numbers(rest, spec, field, 2);
    positive(p[0], "the shape");
    positive(p[1], "the scale");
    return {Kind::kWeibull, p, spec};
  }
  if (kind == "hyperexp") {
    auto p = numbers(rest, spec, field, 3);
    if (!(p[0] > 0.0 && p[0] < 1.0)) throw ConfigError(field, "'" + spec + "': P must lie strictly between 0 and 1");
    positive(p[1], "MEAN1");
    positive(p[2], "MEAN2");
    return {Kind::kHyperexponential, p, spec};
  }
  throw ConfigError(field, "'" + spec + "': unknown law (exp, lognormal, weibull, hyperexp, empirical)");
}

double PeriodDistribution::sample(Rng& rng) const {
  const auto& p = params_;
  switch (kind_) {
    case Kind::kExponential:
      return rng.exponential(p[0]);
    case Kind::kLognormal:
      return std::exp(p[0] + p[1] * standard_normal(rng));
    case Kind::kWeibull:
      return p[1] * std::pow(-std::log1p(-rng.uniform01()), 1.0 / p[0]);
    case Kind::kHyperexponential:
      return rng.exponential(rng.uniform01() < p[0] ? p[1] : p[2]);
    case Kind::kEmpirical:
      return p[rng.below(p.size())];
  }
  return 0.0;
}

double PeriodDistribution::residual(Rng& rng) const {
  const auto& p = params_;
  double biased = 0.0;
  switch (kind_) {
    case Kind::kExponential:
      return rng.exponential(p[0]);
    case Kind::kLognormal:  // the length-biased lognormal(mu, s) is lognormal(mu + s^2, s)
      biased = std::exp(p[0] + p[1] * p[1] + p[1] * standard_normal(rng));
      break;
    case Kind::kWeibull:  // (L / scale)^shape of the length-biased law is Gamma(1 + 1/shape)
      biased = p[1] * std::pow(gamma_at_least_one(1.0 + 1.0 / p[0], rng), 1.0 / p[0]);
      break;
    case Kind::kHyperexponential: {  // a phase in proportion to P_i MEAN_i; its length-biased law is Gamma(2)
      const double first = p[0] * p[1] / (p[0] * p[1] + (1.0 - p[0]) * p[2]);
      const double mean = rng.uniform01() < first ? p[1] : p[2];
      biased = rng.exponential(mean) + rng.exponential(mean);
      break;
    }
    case Kind::kEmpirical: {
      const double target = rng.uniform01() * cumulative_.back();
      const auto at = std::upper_bound(cumulative_.begin(), cumulative_.end(), target) - cumulative_.begin();
      biased = p[std::min<size_t>(static_cast<size_t>(at), p.size() - 1)];
      break;
    }
  }
  return rng.uniform01() * biased;
}

}  // namespace ibsec::cachesim
