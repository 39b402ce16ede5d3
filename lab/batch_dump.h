// `tapir dump`'s work once its flags are read (tools/cmd_dump.cpp): for one
// fixed batch, everything needed to cross-check tapir against another
// implementation: input tokens, targets and mask, the hidden state after
// the embeddings and after each block, logits, loss and every parameter's
// gradient, in one safetensors file, with the task's vocabulary in its
// metadata. Sits in lab/, on optim/model_run.h and autograd/.
#pragma once
#include <cstdint>
#include <string>

namespace tapir {

struct DumpOptions {
  std::string checkpoint;  // run folder or checkpoint file
  std::string out;         // the safetensors file written
  std::string split = "test";
  int64_t batch = 8;  // the first N examples of the split
  int threads = 1;
};

// Writes o.out from one forward and backward pass on the batch; the exit
// code (0).
int write_batch_dump(const DumpOptions& o);

}  // namespace tapir
