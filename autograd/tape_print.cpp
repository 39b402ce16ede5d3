// The tape's printout (autograd/tape_print.h).
#include "autograd/tape_print.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>

#include "engine/kernel_trace.h"

namespace tapir {

namespace {

struct Printout {
  std::FILE* out = nullptr;
  std::map<const TensorImpl*, std::string> names;
  std::map<const TensorImpl*, size_t> made_by;  // a node's output -> the node
  std::vector<std::vector<std::string>> forward_kernels;
};

thread_local Printout t_print;

// TAPIR_PRINT_TAPE: the first backward pass of the process (its main
// thread), on stderr. Read at start-up, so that the first op's kernels are
// noted too; a program's own print_next_backward later replaces it.
const bool g_environment_read = [] {
  const char* value = std::getenv("TAPIR_PRINT_TAPE");
  if (value != nullptr && *value != '\0' && std::strcmp(value, "0") != 0)
    print_next_backward(stderr);
  return true;
}();

// "autograd/ops_matmul.cpp" of the path the compiler was given.
std::string source_file(const char* path) {
  const std::string text(path);
  const size_t at = text.rfind("autograd/");
  return at == std::string::npos ? text : text.substr(at);
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
  return text.empty() ? "-" : text;
}

std::string described(const TensorImpl* impl) {
  const Tensor t(const_cast<TensorImpl*>(impl));
  return std::string(dtype_name(t.dtype())) + " " + t.shape().str();
}

std::string input_name(const TensorImpl* impl) {
  if (const auto it = t_print.made_by.find(impl); it != t_print.made_by.end())
    return "#" + std::to_string(it->second);
  if (const auto it = t_print.names.find(impl); it != t_print.names.end()) return it->second;
  return "leaf " + described(impl);
}

// The 2-norm of t's gradient (read on the host).
double grad_norm(const TensorImpl* impl) {
  if (impl->grad == nullptr) return 0;
  const Tensor g = to_host(grad_view(Tensor(const_cast<TensorImpl*>(impl))));
  double sum = 0;
  for (int64_t i = 0; i < g.numel(); ++i) sum += g.item(i) * g.item(i);
  return std::sqrt(sum);
}

}  // namespace

void print_next_backward(std::FILE* out,
                         std::vector<std::pair<const TensorImpl*, std::string>> names) {
  t_print = Printout();
  t_print.out = out;
  for (auto& [impl, name] : names) t_print.names[impl] = std::move(name);
  set_kernel_trace(true);
}

bool tape_printing() {
  return t_print.out != nullptr;
}

namespace detail {

void tape_print_recorded(const Node& node) {
  t_print.made_by[node.out] = tape().size() - 1;
  t_print.forward_kernels.push_back(take_kernels());
}

void tape_print_begin_backward() {
  std::FILE* out = t_print.out;
  const std::vector<Node>& nodes = tape().nodes();
  std::fprintf(out, "forward: %zu nodes, in the order the ops ran\n", nodes.size());
  for (size_t k = 0; k < nodes.size(); ++k) {
    const Node& n = nodes[k];
    std::vector<std::string> inputs, saved;
    for (int i = 0; i < n.n_in; ++i)
      if (n.in[i] != nullptr) inputs.push_back(input_name(n.in[i]));
    for (const TensorImpl* s : n.saved)
      if (s != nullptr) saved.push_back(described(s));
    std::fprintf(out, "  #%-3zu %-22s %-22s <- %s\n", k, n.op->name, described(n.out).c_str(),
                 joined(inputs).c_str());
    std::fprintf(out, "        %s; kernels: %s; saved: %s\n", source_file(n.op->file).c_str(),
                 joined(k < t_print.forward_kernels.size() ? t_print.forward_kernels[k]
                                                           : std::vector<std::string>{})
                     .c_str(),
                 joined(saved).c_str());
  }
  std::fprintf(out, "backward: the nodes in reverse, each adding into its inputs' gradients\n");
  take_kernels();  // the loss's seed
}

void tape_print_before_node(size_t k, const Node& node) {
  std::fprintf(t_print.out, "  #%-3zu %-22s |dL/dy| %.3g", k, node.op->name, grad_norm(node.out));
}

void tape_print_after_node() {
  std::fprintf(t_print.out, "; kernels: %s\n", joined(take_kernels()).c_str());
}

void tape_print_end_backward() {
  std::fflush(t_print.out);
  t_print = Printout();
  set_kernel_trace(false);
}

}  // namespace detail

}  // namespace tapir
