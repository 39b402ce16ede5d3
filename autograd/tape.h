// The tape: reverse-mode autodiff as a flat list of nodes.
//
// Every differentiable op (autograd/ops_*.cpp) computes its output with a
// kernel and, when grad mode is on and an input requires a gradient, appends a
// Node: which op (its OpInfo, holding the backward function), the input and
// output tensors, and whatever the backward needs (saved tensors, attributes).
// Nodes are appended in execution order, so the tape is already topologically
// sorted: backward() walks it in reverse, no graph search, no recursion.
//
// Backward functions accumulate (+=) into their inputs' gradient buffers,
// which are allocated (zeroed) in the step arena on first use and given back
// to it once the node that made the tensor has run its backward; parameters
// (HeapTensors made with a grad buffer) keep theirs across steps.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "engine/tensor.h"

namespace tapir {

struct Node;
using BackwardFn = void (*)(const Node&);

// One per differentiable op, defined next to its forward and backward with
// TAPIR_REGISTER_OP; the registry lets the gradcheck test prove that every
// op has an entry.
struct OpInfo {
  const char* name;
  BackwardFn backward;
  const char* file = "";  // the source file that registers it (the tape's printout)
};

constexpr int kMaxNodeInputs = 4;

struct Node {
  const OpInfo* op = nullptr;
  TensorImpl* out = nullptr;
  TensorImpl* in[kMaxNodeInputs] = {};
  int n_in = 0;
  TensorImpl* saved[2] = {};  // tensors the forward kept for backward
  double f[4] = {};           // float attributes (eps, scalars)
  int64_t i[4] = {};          // integer attributes (axis, flags)

  Tensor input(int k) const { return Tensor(in[k]); }
  Tensor output() const { return Tensor(out); }
  Tensor saved_tensor(int k) const { return Tensor(saved[k]); }
};

class Tape {
 public:
  Node& record(const Node& node) {
    nodes_.push_back(node);
    return nodes_.back();
  }
  void clear() { nodes_.clear(); }  // keeps capacity: no malloc next step
  size_t size() const { return nodes_.size(); }
  const std::vector<Node>& nodes() const { return nodes_; }

 private:
  std::vector<Node> nodes_;
};

// The calling thread's tape. The tape, the step arenas (engine/workspace.h)
// and the grad mode are per thread, so that threads can each build and step a
// model of their own (the models of a search, engine/threads.h's
// parallel_tasks); a kernel's parallel_for chunks never touch them.
Tape& tape();

// Grad mode (per thread): on by default; NoGrad turns recording off in a
// scope (evaluation).
bool grad_enabled();
class NoGrad {
 public:
  NoGrad();
  ~NoGrad();
  NoGrad(const NoGrad&) = delete;
  NoGrad& operator=(const NoGrad&) = delete;

 private:
  bool previous_;
};

// Seeds d(loss)/d(loss) = 1 (loss must hold one element), walks the tape in
// reverse calling each node's backward, then clears the tape. Activation
// tensors stay readable until reset_step(); the gradient of an op's output
// is given back to the arena (recycle_grad) as soon as that op's backward
// has used it, so only the gradients of leaves (parameters, and tensors that
// no op made) can be read after backward.
void backward(Tensor loss);

// Ends a step: clears the tape and frees every temporary in the step arena.
// Tensor handles from the step are invalid afterwards.
void reset_step();

// --- helpers for op implementations ------------------------------------------

// True when grad mode is on and any defined input requires a gradient.
bool needs_grad(std::initializer_list<Tensor> inputs);

// Appends a node for `out` computed from `inputs` and marks out as requiring
// a gradient. Call only when needs_grad(inputs) was true.
Node& record(const OpInfo& op, Tensor out, std::initializer_list<Tensor> inputs);

// Gradient buffer of t to accumulate into, or null if t needs no gradient.
template <typename T>
T* grad_for(Tensor t) {
  if (!t.defined() || !t.requires_grad()) return nullptr;
  return static_cast<T*>(ensure_grad(t));
}

// The same for a backward that can overwrite the buffer: when *fresh the
// buffer was just allocated, uninitialised, and every element must be
// written (for a GEMM: beta = 0); otherwise it is added to, as with
// grad_for.
template <typename T>
T* grad_for_write(Tensor t, bool* fresh) {
  *fresh = false;
  if (!t.defined() || !t.requires_grad()) return nullptr;
  return static_cast<T*>(ensure_grad_for_write(t, fresh));
}

std::vector<const OpInfo*>& op_registry();
struct OpRegistrar {
  explicit OpRegistrar(const OpInfo& op) { op_registry().push_back(&op); }
};

#define TAPIR_REGISTER_OP(var, name, backward_fn)         \
  const ::tapir::OpInfo var{name, backward_fn, __FILE__}; \
  static const ::tapir::OpRegistrar var##_registrar(var)

}  // namespace tapir
