#include "tools/train_options.h"

#include "engine/error.h"
#include "tools/constraint_options.h"

namespace tapir {

void add_train_options(CLI::App& cmd, TrainOptions& o) {
  TrainConfig& c = o.config;
  cmd.allow_extras();
  cmd.add_option("--task", c.task, "Task to train on (see `tapir tasks list`)")
      ->capture_default_str();
  cmd.add_option("--opt", o.task_opts, "Task option as name=value (repeatable)");

  auto* m = "Model";
  cmd.add_option("--width", c.model.width, "Model width C")->group(m)->capture_default_str();
  cmd.add_option("--heads", c.model.heads, "Attention heads")->group(m)->capture_default_str();
  cmd.add_option("--layers", c.model.layers, "Transformer blocks")->group(m)->capture_default_str();
  cmd.add_option("--mlp-ratio", c.model.mlp_ratio, "MLP hidden width / C")
      ->group(m)
      ->capture_default_str();
  cmd.add_option("--mlp-act", c.model.mlp_act, "MLP activation: gelu | relu")
      ->group(m)
      ->capture_default_str();
  cmd.add_option("--context", c.model.context, "Position table size (0: the task's length)")
      ->group(m)
      ->capture_default_str();
  cmd.add_option("--init-std", c.model.init_std, "Std of the normal weight init")
      ->group(m)
      ->capture_default_str();

  auto* opt = "Optimizer";
  cmd.add_option("--optimizer", c.optimizer.name, "adamw | adam | sgd")
      ->group(opt)
      ->capture_default_str();
  cmd.add_option("--lr", c.schedule.base_lr, "Peak learning rate")->group(opt)->capture_default_str();
  cmd.add_option("--weight-decay", c.optimizer.weight_decay, "Weight decay (matrices only)")
      ->group(opt)
      ->capture_default_str();
  cmd.add_option("--beta1", c.optimizer.beta1, "Adam beta1")->group(opt)->capture_default_str();
  cmd.add_option("--beta2", c.optimizer.beta2, "Adam beta2")->group(opt)->capture_default_str();
  cmd.add_option("--eps", c.optimizer.eps, "Adam epsilon")->group(opt)->capture_default_str();
  cmd.add_option("--momentum", c.optimizer.momentum, "SGD momentum")
      ->group(opt)
      ->capture_default_str();
  cmd.add_flag("--nesterov", c.optimizer.nesterov, "SGD with Nesterov momentum")->group(opt);
  cmd.add_option("--schedule", o.schedule_kind, "LR schedule after warmup: constant | cosine | linear")
      ->group(opt)
      ->capture_default_str();
  cmd.add_option("--warmup", c.schedule.warmup, "Linear warmup steps")
      ->group(opt)
      ->capture_default_str();
  cmd.add_option("--min-lr-ratio", c.schedule.min_ratio, "Final LR / peak LR for cosine, linear")
      ->group(opt)
      ->capture_default_str();
  cmd.add_option("--clip", c.clip, "Global gradient-norm clip (0: off)")
      ->group(opt)
      ->capture_default_str();

  auto* loop = "Loop";
  cmd.add_option("--steps", c.steps, "Training steps")->group(loop)->capture_default_str();
  cmd.add_option("--batch", c.batch, "Batch size")->group(loop)->capture_default_str();
  cmd.add_option("--eval-every", c.eval_every, "Steps between evaluations and checkpoints")
      ->group(loop)
      ->capture_default_str();
  cmd.add_option("--eval-batch", c.eval_batch, "Examples per evaluation forward pass")
      ->group(loop)
      ->capture_default_str();
  cmd.add_option("--eval-limit", c.eval_limit, "Max examples per eval split (0: all)")
      ->group(loop)
      ->capture_default_str();
  cmd.add_option("--stop-at", c.stop_at, "Stop when test accuracy reaches this (0: never)")
      ->group(loop)
      ->capture_default_str();
  cmd.add_option("--seed", c.seed, "Seed for init and batch sampling")
      ->group(loop)
      ->capture_default_str();
  cmd.add_option("--threads", c.threads, "Threads for kernels and BLAS")
      ->group(loop)
      ->capture_default_str();
  add_constraint_options(cmd, o);
}

TrainConfig finish_train_options(CLI::App& cmd, TrainOptions& o) {
  TrainConfig c = o.config;
  for (const std::string& kv : o.task_opts) {
    const size_t eq = kv.find('=');
    TAPIR_CHECK(eq != std::string::npos && eq > 0, "--opt expects name=value, got '", kv, "'");
    c.task_options.set(kv.substr(0, eq), kv.substr(eq + 1));
  }
  // Unrecognised "--name value" or "--name=value" pairs are task options.
  const std::vector<std::string> extras = cmd.remaining();
  for (size_t i = 0; i < extras.size(); ++i) {
    const std::string& arg = extras[i];
    TAPIR_CHECK(arg.rfind("--", 0) == 0 && arg.size() > 2, "unexpected argument '", arg, "'");
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      c.task_options.set(arg.substr(2, eq - 2), arg.substr(eq + 1));
    } else {
      TAPIR_CHECK(i + 1 < extras.size(), "task option ", arg, " needs a value");
      c.task_options.set(arg.substr(2), extras[++i]);
    }
  }
  c.schedule.kind = parse_schedule_kind(o.schedule_kind);
  finish_constraint_options(o, c);
  c.validate();
  return c;
}

}  // namespace tapir
