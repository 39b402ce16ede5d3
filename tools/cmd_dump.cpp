// `tapir dump`: for one fixed batch, everything needed to cross-check tapir
// against another implementation: input tokens, targets and mask, logits,
// loss and every parameter's gradient, in one safetensors file.
#include <cstdio>

#include "autograd/ops.h"
#include "base/file_io.h"
#include "engine/safetensors.h"
#include "engine/threads.h"
#include "optim/batch.h"
#include "optim/model_run.h"
#include "optim/run_folder.h"
#include "optim/task_loss.h"
#include "tools/commands.h"
#include "tools/options.h"

namespace tapir {

Command add_dump_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("dump", "Write one batch's logits, loss and gradients");
  struct Options {
    std::string checkpoint, out, split = "test";
    int64_t batch = 8;
    int threads = 1;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("--checkpoint", o->checkpoint, "Run folder or checkpoint file")->required();
  cmd->add_option("--out", o->out, "Output safetensors file")->required();
  cmd->add_option("--split", o->split, "Split the batch comes from")->capture_default_str();
  cmd->add_option("--batch", o->batch, "Examples: the first N of the split")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  add_threads_option(*cmd, o->threads);
  return {cmd, [o]() {
            set_num_threads(o->threads);
            const ModelRun run = open_run(o->checkpoint);
            refuse_output_over_inputs(o->out, run_input_files(o->checkpoint, run.config.arch_file));
            const Task& task = *run.task;
            Batch batch;
            const int64_t n = std::min(o->batch, task.eval_size(o->split));
            task.eval_batch(o->split, 0, n, batch);
            const BatchTensors t = to_tensors(batch);
            std::vector<Parameter*> params = run.model->parameters();
            for (Parameter* p : params) p->value.zero_grad();
            Tensor logits = run.model->forward(t.inputs);
            Tensor loss = task_loss(logits, t.targets, t.mask);
            backward(loss);
            // A regression task's frames are f32 "inputs"; a token task's ids i32 "tokens".
            std::vector<SafeTensorWrite> writes = {
                {task.is_regression() ? "inputs" : "tokens", t.inputs.dtype(),
                 t.inputs.shape().vec(), t.inputs.raw()},
                {"targets", t.targets.dtype(), t.targets.shape().vec(), t.targets.raw()},
                {"mask", DType::f32, t.mask.shape().vec(), t.mask.raw()},
                {"logits", DType::f32, logits.shape().vec(), logits.raw()},
                {"loss", DType::f32, {}, loss.raw()}};
            for (Parameter* p : params)
              writes.push_back({"grad." + p->name, DType::f32, p->tensor().shape().vec(),
                                p->tensor().raw_grad()});
            save_safetensors(o->out, writes,
                             {{"format", "tapir.dump.v1"},
                              {"checkpoint", o->checkpoint},
                              {"split", o->split},
                              {"loss", std::to_string(loss.item())}});
            std::printf("wrote %s: %lld examples, loss %.6f, %zu gradients\n", o->out.c_str(),
                        static_cast<long long>(n), loss.item(), params.size());
            reset_step();
            return 0;
          }};
}

}  // namespace tapir
