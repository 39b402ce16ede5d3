#include "optim/constraints.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "base/json_fields.h"

namespace tapir {

double ConstraintConfig::alpha_at(int64_t layer) const {
  return alpha.size() == 1 ? alpha[0] : alpha[static_cast<size_t>(layer - 1)];
}

void ConstraintConfig::validate(int64_t layers) const {
  // The numbers are checked with or without a constraint: a bad value given
  // for one is a mistake either way.
  TAPIR_CHECK(!alpha.empty(), "alpha: expected one rate or one per layer, got none");
  for (double a : alpha)
    TAPIR_CHECK(std::isfinite(a) && a >= 0 && a < 1, "alpha: each rate must be in [0, 1), got ", a);
  TAPIR_CHECK(std::isfinite(dual_lr) && dual_lr > 0, "dual-lr must be positive, got ", dual_lr);
  TAPIR_CHECK(dual_batch >= 0, "dual-batch must be 0 (the training batch) or positive, got ",
              dual_batch);
  TAPIR_CHECK(dual_every >= 1, "dual-every must be at least 1, got ", dual_every);
  TAPIR_CHECK(std::isfinite(beta) && beta > 0, "beta must be positive, got ", beta);
  TAPIR_CHECK(std::isfinite(slack_lr) && slack_lr > 0, "slack-lr must be positive, got ", slack_lr);
  TAPIR_CHECK(std::isfinite(ds_weight) && ds_weight > 0, "ds-weight must be positive, got ",
              ds_weight);
  if (!enabled()) return;
  TAPIR_CHECK(layers >= 1, "constraint ", name_of(kind), " needs at least one layer");
  TAPIR_CHECK(alpha.size() == 1 || static_cast<int64_t>(alpha.size()) == layers,
              "alpha: expected one rate or one per layer (", layers, "), got ", alpha.size());
}

Json ConstraintConfig::to_json() const {
  return fields_to_json(*this);
}

ConstraintConfig ConstraintConfig::from_json(const Json& j) {
  ConstraintConfig c;
  fields_from_json(j, c);
  return c;
}

std::vector<double> deep_supervision_weights(int64_t layers, double ds_weight) {
  std::vector<double> w(static_cast<size_t>(layers) + 1, ds_weight);
  w.front() = 0.0;
  w.back() = 1.0;
  return w;
}

std::vector<double> descent_constraints(const std::vector<double>& f, const ConstraintConfig& c) {
  TAPIR_CHECK(f.size() >= 2, "descent constraints need the losses of at least two layers");
  std::vector<double> s(f.size() - 1);
  for (size_t l = 1; l < f.size(); ++l)
    s[l - 1] = f[l] - (1.0 - c.alpha_at(static_cast<int64_t>(l))) * f[l - 1];
  return s;
}

std::vector<double> lagrangian_weights(const std::vector<double>& lambda,
                                       const ConstraintConfig& c) {
  const size_t L = lambda.size();
  std::vector<double> w(L + 1, 0.0);
  w[L] = 1.0;
  for (size_t l = 1; l <= L; ++l) {
    w[l] += lambda[l - 1];
    if (!c.detach_previous) w[l - 1] -= lambda[l - 1] * (1.0 - c.alpha_at(static_cast<int64_t>(l)));
  }
  return w;
}

void dual_step(std::vector<double>& lambda, const std::vector<double>& s,
               const std::vector<double>& slack, double eta) {
  TAPIR_CHECK(s.size() == lambda.size() && (slack.empty() || slack.size() == lambda.size()),
              "dual step: ", lambda.size(), " multipliers but ", s.size(), " constraints and ",
              slack.size(), " slacks");
  for (size_t l = 0; l < lambda.size(); ++l)
    lambda[l] = std::max(0.0, lambda[l] + eta * (s[l] - (slack.empty() ? 0.0 : slack[l])));
}

void slack_step(std::vector<double>& slack, const std::vector<double>& lambda, double beta,
                double eta_u) {
  TAPIR_CHECK(slack.size() == lambda.size(), "slack step: ", slack.size(), " slacks but ",
              lambda.size(), " multipliers");
  for (size_t l = 0; l < slack.size(); ++l)
    slack[l] = std::max(0.0, slack[l] - eta_u * (beta * slack[l] - lambda[l]));
}

}  // namespace tapir
