// The learned functions a Stage I search's models share (optim/search.h):
// their knot values on the host, their optimizer, and the D_arch gradient
// that each step gathers from the models. A model leaves its gradient in a
// slot of its own, so models may compute theirs concurrently; the slots are
// then added in model order, so the sum never depends on which thread (or
// which rank, optim/search_ranks.h) computed which model.
#pragma once
#include <memory>
#include <vector>

#include "nn/module.h"
#include "nn/spline.h"
#include "nn/transformer.h"
#include "optim/optimizer.h"
#include "optim/search_config.h"

namespace tapir {

// A model's copies of the learned functions, in the order the shared
// functions keep them.
std::vector<Spline*> splines_of(Transformer& model);

// A model's D_arch gradient, one vector per shared function.
using ArchGradient = std::vector<std::vector<float>>;

class SharedFunctions {
 public:
  // Copies of `initial` (one model's splines as it initialised them: every
  // model initialises them identically from the config), their optimizer
  // as `config` says, and a gradient slot for each of `models` models.
  SharedFunctions(const std::vector<Spline*>& initial, int models, const SearchConfig& config);

  std::vector<Parameter*> parameters() const;
  Optimizer& optimizer() { return *optimizer_; }
  // The functions' current values into a model's copies of them.
  void copy_into(const std::vector<Spline*>& splines) const;
  // The largest |knot value| of any function.
  double knot_abs_max() const;

  // A step of the functions: zero_grad; take_gradient of every active
  // model (concurrently, or on the ranks that own them); add_gradient of
  // each in model order; update.
  void zero_grad();
  // Moves the gradient a backward pass left in `splines` (model m's copies)
  // into m's slot, read on the host; touches nothing else.
  void take_gradient(int model, const std::vector<Spline*>& splines);
  ArchGradient& gradient(int model) { return gradients_[static_cast<size_t>(model)]; }
  void add_gradient(int model);  // model m's slot into the functions' gradient
  // With the gradients of `models` (> 0) models added: their mean if the
  // config asks for it, plus the smoothness penalty's gradient; one step of
  // the optimizer at learning rate `lr`; then the amplitude bound.
  void update(int models, double lr);

 private:
  void add_smoothness_gradient();

  std::vector<std::unique_ptr<Parameter>> values_;
  std::unique_ptr<Optimizer> optimizer_;
  std::vector<ArchGradient> gradients_;  // one slot per model
  ArchGrad combine_;
  double smoothness_, amplitude_;
};

}  // namespace tapir
