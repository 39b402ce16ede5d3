// Which kernels ran: the names TAPIR_KERNEL (engine/dispatch.h) calls,
// noted on the calling thread while a tape printout is being made
// (autograd/tape_print.h) and never otherwise: one thread-local test per
// kernel call. Below autograd, beside the dispatch.
#pragma once
#include <string>
#include <vector>

namespace tapir {

namespace detail {
extern thread_local bool t_kernel_trace;
void note_kernel(const char* name);
}  // namespace detail

// Starts (on) or stops noting on the calling thread; stopping forgets.
void set_kernel_trace(bool on);
inline bool kernel_trace_on() {
  return detail::t_kernel_trace;
}
// The kernels noted since the last take, each once, in the order first
// called, without their type argument ("gemm", not "gemm<T>").
std::vector<std::string> take_kernels();

}  // namespace tapir
