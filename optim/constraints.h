// Per-layer descent constraints (Porras-Valenzuela, Hadou, Ribeiro, ICML
// 2026): the configuration and the arithmetic of primal-dual training, kept
// apart from the training loop (optim/constrained_trainer.h) so that tests can
// check it against hand-computed values. docs/constraints.md describes the
// method as implemented.
//
// With f_l the task loss read out from layer l (l = 0 the embeddings) and
// alpha_l the descent rate of layer l, the constraints are
//   s_l = f_l - (1 - alpha_l) f_{l-1} <= 0,   l = 1..L,
// the Lagrangian is f_L + sum_l lambda_l s_l, and after each primal step
//   resilient: u_l <- max(0, u_l - eta_u (beta u_l - lambda_l))
//   always:    lambda_l <- max(0, lambda_l + eta (s_l - u_l))
// (u = 0 without the resilient relaxation). With detach_previous the primal
// step holds the right-hand side (1 - alpha_l) f_{l-1} constant: a constraint
// then only pushes layer l's loss down and never pushes layer l-1's up (the
// plain Lagrangian rewards a worse earlier layer; docs/constraints.md shows
// how much). Vectors are indexed from 0:
// s[l-1], lambda[l-1], u[l-1] and alpha[l-1] belong to layer l; losses f[l]
// to layer l.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/names.h"

namespace tapir {

// Training without constraints, with the per-layer descent constraints, or
// with deep supervision: the baseline the paper's reviewers asked for, ERM
// plus every intermediate layer's loss at a fixed weight,
//   f_L + ds_weight * (f_1 + ... + f_{L-1}),
// with no multipliers and no dual step.
enum class ConstraintKind { none, descent, deep_supervision };
template <>
struct Names<ConstraintKind> {
  static constexpr const char* what = "constraint kind";
  static constexpr std::pair<ConstraintKind, const char*> table[] = {
      {ConstraintKind::none, "none"},
      {ConstraintKind::descent, "descent"},
      {ConstraintKind::deep_supervision, "deep-supervision"}};
};

struct ConstraintConfig {
  ConstraintKind kind = ConstraintKind::none;
  std::vector<double> alpha = {0.05};  // one rate for every layer, or one per layer
  double dual_lr = 0.01;               // eta, plain projected SGD on the multipliers
  int64_t dual_batch = 0;  // examples for the dual step's constraint values (0: the training batch)
  int64_t dual_every = 1;  // steps between dual steps
  bool resilient = false;  // slack u_l >= 0 with cost (beta / 2) u_l^2
  double beta = 1.0;
  double slack_lr = 0.01;        // eta_u
  bool detach_previous = false;  // no gradient through (1 - alpha_l) f_{l-1}
  double ds_weight = 0.1;        // deep supervision: each intermediate layer's weight

  // Whether the run trains on per-layer losses (descent or deep supervision).
  bool enabled() const { return kind != ConstraintKind::none; }
  bool descent() const { return kind == ConstraintKind::descent; }
  // alpha_l for layer l = 1..L.
  double alpha_at(int64_t layer) const;
  // One-line error naming the bad field; `layers` is the model's L.
  void validate(int64_t layers) const;
  Json to_json() const;
  static ConstraintConfig from_json(const Json& j);
  // The JSON fields, in the order written (base/json_fields.h).
  template <class Self, class Fields>
  static void fields(Self& c, Fields& f) {
    f.required("kind", c.kind);
    f.required("alpha", c.alpha);
    f.required("dual_lr", c.dual_lr);
    f.required("dual_batch", c.dual_batch);
    f.required("dual_every", c.dual_every);
    f.required("resilient", c.resilient);
    f.required("beta", c.beta);
    f.required("slack_lr", c.slack_lr);
    f.optional("detach_previous", c.detach_previous);  // older configs lack it
    f.optional("ds_weight", c.ds_weight);              // and this
  }
};

// s_l = f_l - (1 - alpha_l) f_{l-1} for l = 1..L, from f_0..f_L.
std::vector<double> descent_constraints(const std::vector<double>& f, const ConstraintConfig& c);

// The weights w_0..w_L of the losses in the primal step's gradient: with
// f_L + sum_l lambda_l s_l = sum_l w_l f_l,
//   w_l = [l == L] + lambda_l - lambda_{l+1} (1 - alpha_{l+1})
// (lambda_0 = lambda_{L+1} = 0); with detach_previous the last term is held
// constant, so w_l = [l == L] + lambda_l.
// Deep supervision's weights w_0..w_L: 0 for the embeddings, ds_weight for
// layers 1..L-1, 1 for layer L.
std::vector<double> deep_supervision_weights(int64_t layers, double ds_weight);
std::vector<double> lagrangian_weights(const std::vector<double>& lambda,
                                       const ConstraintConfig& c);

// lambda_l <- max(0, lambda_l + eta (s_l - u_l)); `slack` may be empty (u = 0).
void dual_step(std::vector<double>& lambda, const std::vector<double>& s,
               const std::vector<double>& slack, double eta);

// u_l <- max(0, u_l - eta_u (beta u_l - lambda_l)): a gradient step on the
// slack's part of the Lagrangian, (beta / 2) u_l^2 - lambda_l u_l.
void slack_step(std::vector<double>& slack, const std::vector<double>& lambda, double beta,
                double eta_u);

}  // namespace tapir
