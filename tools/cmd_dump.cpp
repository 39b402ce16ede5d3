// `tapir dump`: for one fixed batch, everything needed to cross-check tapir
// against another implementation: input tokens, targets and mask, the
// hidden state after the embeddings and after each block, logits, loss and
// every parameter's gradient, in one safetensors file, with the task's
// vocabulary in its metadata (lab/batch_dump.h).
#include <memory>

#include "lab/batch_dump.h"
#include "tools/commands.h"
#include "tools/options.h"

namespace tapir {

Command add_dump_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("dump", "Write one batch's logits, loss and gradients");
  auto o = std::make_shared<DumpOptions>();
  cmd->add_option("--checkpoint", o->checkpoint, "Run folder or checkpoint file")->required();
  cmd->add_option("--out", o->out, "Output safetensors file")->required();
  cmd->add_option("--split", o->split, "Split the batch comes from")->capture_default_str();
  cmd->add_option("--batch", o->batch, "Examples: the first N of the split")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  add_threads_option(*cmd, o->threads);
  return {cmd, [o]() { return write_batch_dump(*o); }};
}

}  // namespace tapir
