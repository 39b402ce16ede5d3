// Module: a node of the model tree with named parameters.
//
// A Parameter owns its values and gradient (a HeapTensor outside the step
// arena) and carries a stable dotted name ("blocks.0.attn.qkv.weight") that
// checkpoints, optimizer state and docs/model.md use. Children register under
// a name, so parameter names are the path through the tree.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "engine/tensor.h"

namespace tapir {

struct Parameter {
  std::string name;     // full dotted name, set when collected through parameters()
  HeapTensor value;     // values and gradient buffer
  bool decay = true;    // receives weight decay (false for biases, norms, embeddings)
  bool frozen = false;  // excluded from training (no gradient is kept)

  Tensor tensor() const { return value.view(); }
  // Trained and holding a gradient buffer: what clipping and the sums over
  // ranks of data-parallel training read.
  bool has_gradient() const { return !frozen && tensor().has_grad(); }
  // A frozen parameter keeps its values but records no gradient.
  void set_frozen(bool on) {
    frozen = on;
    value.view().set_requires_grad(!on);
  }
};

class Module {
 public:
  virtual ~Module() = default;
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // Every parameter of this module and its children, depth first in
  // registration order, with full dotted names.
  std::vector<Parameter*> parameters();
  Parameter* find_parameter(const std::string& name);
  int64_t parameter_count();  // number of scalar values

  void set_training(bool on);
  bool training() const { return training_; }

  // Moves every parameter (values and gradient buffers, in place: handles
  // stay valid) and buffer of this module and its children to `device`.
  void to_device(Device device);

 protected:
  // Moves a module's own non-parameter tensors (fixed tables); the default has none.
  virtual void move_buffers(Device /*device*/) {}
  // Registers a parameter owned by this module (zero-initialised f32).
  Parameter& add_parameter(const std::string& local_name, const Shape& shape, bool decay);
  // Registers a child; the child must outlive this module (usually a member).
  void add_child(const std::string& local_name, Module& child);

 private:
  void collect(const std::string& prefix, std::vector<Parameter*>& out);

  struct Owned {
    std::string local_name;
    std::unique_ptr<Parameter> param;
  };
  std::vector<Owned> params_;
  std::vector<std::pair<std::string, Module*>> children_;
  bool training_ = true;
};

}  // namespace tapir
