// `tapir dump` (lab/batch_dump.h).
#include "lab/batch_dump.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "autograd/ops.h"
#include "base/file_io.h"
#include "base/json.h"
#include "engine/safetensors.h"
#include "engine/threads.h"
#include "optim/batch.h"
#include "optim/model_run.h"
#include "optim/run_folder.h"
#include "optim/task_loss.h"

namespace tapir {

int write_batch_dump(const DumpOptions& o) {
  set_num_threads(o.threads);
  const ModelRun run = open_run(o.checkpoint);
  refuse_output_over_inputs(o.out, run_input_files(o.checkpoint, run.config.arch_file));
  const Task& task = *run.task;
  Batch batch;
  const int64_t n = std::min(o.batch, task.eval_size(o.split));
  task.eval_batch(o.split, 0, n, batch);
  const BatchTensors t = to_tensors(batch);
  std::vector<Parameter*> params = run.model->parameters();
  for (Parameter* p : params) p->value.zero_grad();
  std::vector<Tensor> hidden;
  Tensor logits = run.model->forward(t.inputs, &hidden);
  Tensor loss = task_loss(logits, t.targets, t.mask);
  backward(loss);
  // A regression task's frames are f32 "inputs"; a token task's ids i32 "tokens".
  std::vector<SafeTensorWrite> writes = {
      {task.is_regression() ? "inputs" : "tokens", t.inputs.dtype(), t.inputs.shape().vec(),
       t.inputs.raw()},
      {"targets", t.targets.dtype(), t.targets.shape().vec(), t.targets.raw()},
      {"mask", DType::f32, t.mask.shape().vec(), t.mask.raw()},
      {"logits", DType::f32, logits.shape().vec(), logits.raw()},
      {"loss", DType::f32, {}, loss.raw()}};
  for (size_t l = 0; l < hidden.size(); ++l)
    writes.push_back(
        {"hidden." + std::to_string(l), DType::f32, hidden[l].shape().vec(), hidden[l].raw()});
  for (Parameter* p : params)
    writes.push_back(
        {"grad." + p->name, DType::f32, p->tensor().shape().vec(), p->tensor().raw_grad()});
  std::vector<std::pair<std::string, std::string>> metadata = {
      {"format", "tapir.dump.v1"},
      {"checkpoint", o.checkpoint},
      {"split", o.split},
      {"loss", std::to_string(loss.item())}};
  if (!task.is_regression()) {
    Json vocab = Json::array();
    for (const std::string& name : task.vocab().names) vocab.push_back(Json(name));
    metadata.push_back({"vocab", to_json(vocab)});
  }
  save_safetensors(o.out, writes, metadata);
  std::printf("wrote %s: %lld examples, loss %.6f, %zu hidden states, %zu gradients%s\n",
              o.out.c_str(), static_cast<long long>(n), loss.item(), hidden.size(), params.size(),
              task.is_regression() ? "" : ", the vocabulary");
  reset_step();
  return 0;
}

}  // namespace tapir
