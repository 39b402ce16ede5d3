#include "autograd/tape.h"

#include "autograd/tape_print.h"
#include "engine/workspace.h"

namespace tapir {

namespace {
thread_local bool g_grad_enabled = true;
}

Tape& tape() {
  thread_local Tape t;
  return t;
}

bool grad_enabled() {
  return g_grad_enabled;
}

NoGrad::NoGrad() : previous_(g_grad_enabled) {
  g_grad_enabled = false;
}
NoGrad::~NoGrad() {
  g_grad_enabled = previous_;
}

std::vector<const OpInfo*>& op_registry() {
  static std::vector<const OpInfo*> registry;
  return registry;
}

bool needs_grad(std::initializer_list<Tensor> inputs) {
  if (!g_grad_enabled) return false;
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

Node& record(const OpInfo& op, Tensor out, std::initializer_list<Tensor> inputs) {
  TAPIR_CHECK(static_cast<int>(inputs.size()) <= kMaxNodeInputs, "op ", op.name, " has ",
              inputs.size(), " inputs; a node holds at most ", kMaxNodeInputs);
  Node node;
  node.op = &op;
  node.out = out.impl();
  for (const Tensor& t : inputs) node.in[node.n_in++] = t.impl();
  out.set_requires_grad(true);
  Node& recorded = tape().record(node);
  if (tape_printing()) detail::tape_print_recorded(recorded);
  return recorded;
}

void backward(Tensor loss) {
  TAPIR_CHECK(loss.numel() == 1, "backward needs a loss with one element, got ", loss.describe());
  TAPIR_CHECK(loss.requires_grad(),
              "backward: the loss does not depend on any tensor that "
              "requires a gradient");
  const bool printing = tape_printing();
  if (printing) detail::tape_print_begin_backward();
  ensure_grad(loss);
  fill(grad_view(loss), 1.0);  // d loss / d loss, wherever the loss lives
  const auto& nodes = tape().nodes();
  for (size_t k = nodes.size(); k-- > 0;) {
    const Node& node = nodes[k];
    if (printing) detail::tape_print_before_node(k, node);
    if (node.out->grad == nullptr) {  // no gradient reached this node
      if (printing) detail::tape_print_after_node();
      continue;
    }
    node.op->backward(node);
    if (printing) detail::tape_print_after_node();
    // Every consumer of this output ran before (later on the tape), and no
    // earlier node reads it: its gradient is dead, and its memory can hold
    // another one.
    recycle_grad(node.output());
  }
  tape().clear();
  if (printing) detail::tape_print_end_backward();
}

void reset_step() {
  tape().clear();
  step_arena().reset();
  device_arena().reset();
}

}  // namespace tapir
