// The tape made visible: a printout of one backward pass. First the nodes in
// forward (tape) order: each op's name, output, inputs (an earlier node, a
// named parameter, or a leaf such as the batch), the file that defines the
// op, the kernels its forward called and the tensors it saved for backward.
// Then the backward walk in reverse: each node's incoming gradient norm
// |dL/dy| and the kernels its backward called. `tapir train --print-tape`
// prints the first step's tape; TAPIR_PRINT_TAPE=1 in the environment
// prints the first backward pass of any program (the examples' too) to
// stderr. docs/engine.md's walk of a modadd step is this printout.
#pragma once
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "autograd/tape.h"

namespace tapir {

// Prints the next backward pass on the calling thread to `out` (then stops).
// `names` gives leaves their names (a model's parameters).
void print_next_backward(std::FILE* out,
                         std::vector<std::pair<const TensorImpl*, std::string>> names = {});
// Whether a printout is pending or running on the calling thread; set by
// print_next_backward, or once per process by TAPIR_PRINT_TAPE.
bool tape_printing();

namespace detail {
// Called, while tape_printing(), by record() for the node it appended, and
// by backward() around each node's backward and at its end.
void tape_print_recorded(const Node& node);
void tape_print_begin_backward();
void tape_print_before_node(size_t k, const Node& node);
void tape_print_after_node();
void tape_print_end_backward();
}  // namespace detail

}  // namespace tapir
