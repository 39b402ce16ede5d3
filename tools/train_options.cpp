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
  cmd.add_option("--mlp-act", c.model.mlp_act, "MLP activation: gelu | relu | spline")
      ->group(m)
      ->capture_default_str();
  cmd.add_option("--attn", c.model.attn, "Attention: softmax | score-spline | feature-spline")
      ->group(m)
      ->capture_default_str();
  cmd.add_option("--pos", c.model.pos, "Positions: learned | sinusoidal | none | alibi")
      ->group(m)
      ->capture_default_str();
  cmd.add_option("--context", c.model.context, "Position table size (0: the task's length)")
      ->group(m)
      ->capture_default_str();
  cmd.add_option("--init-std", c.model.init_std, "Std of the normal weight init")
      ->group(m)
      ->capture_default_str();

  auto* sp = "Learned nonlinearities";
  SplineConfig& ms = c.model.mlp_spline;
  cmd.add_option("--spline-knots", ms.knots, "MLP spline: number of knots")
      ->group(sp)
      ->capture_default_str();
  cmd.add_option("--spline-range", o.spline_range, "MLP spline: knot range LO,HI")
      ->group(sp)
      ->capture_default_str();
  cmd.add_option("--spline-extrapolate", ms.extrapolate, "MLP spline: linear | constant")
      ->group(sp)
      ->capture_default_str();
  cmd.add_option("--spline-init", ms.init, "MLP spline: gelu | identity | const:C")
      ->group(sp)
      ->capture_default_str();
  cmd.add_option("--spline-scope", ms.scope, "MLP spline: layer (one per block) | shared")
      ->group(sp)
      ->capture_default_str();
  SplineConfig& as = c.model.attn_spline;
  cmd.add_option("--attn-spline-knots", as.knots, "Attention spline: number of knots")
      ->group(sp)
      ->capture_default_str();
  cmd.add_option("--attn-spline-range", o.attn_spline_range, "Attention spline: range LO,HI")
      ->group(sp)
      ->capture_default_str();
  cmd.add_option("--attn-spline-extrapolate", as.extrapolate, "Attention spline: linear | constant")
      ->group(sp)
      ->capture_default_str();
  cmd.add_option("--attn-spline-scope", as.scope, "Attention spline: layer | shared")
      ->group(sp)
      ->capture_default_str();
  cmd.add_flag("--score-per-head", c.model.score_per_head, "score-spline: one spline per head")
      ->group(sp);
  cmd.add_option("--arch", c.arch_file, "Architecture file of learned functions to use")->group(sp);
  cmd.add_flag("--arch-trainable", c.arch_trainable,
               "Keep training the --arch functions (default: frozen)")
      ->group(sp);

  auto* opt = "Optimizer";
  cmd.add_option("--optimizer", c.optimizer.name, "adamw | adam | sgd")
      ->group(opt)
      ->capture_default_str();
  cmd.add_option("--lr", c.schedule.base_lr, "Peak learning rate")
      ->group(opt)
      ->capture_default_str();
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
  cmd.add_option("--schedule", o.schedule_kind,
                 "LR schedule after warmup: constant | cosine | linear")
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
  cmd.add_option("--device", c.device, "Where to train: cpu or cuda")
      ->group(loop)
      ->capture_default_str();
  add_constraint_options(cmd, o);
}

namespace {

// "LO,HI" -> lo and hi.
void parse_range(const char* flag, const std::string& text, double& lo, double& hi) {
  const size_t comma = text.find(',');
  bool ok = comma != std::string::npos;
  if (ok) {
    try {
      size_t used_lo = 0, used_hi = 0;
      const std::string a = text.substr(0, comma), b = text.substr(comma + 1);
      lo = std::stod(a, &used_lo);
      hi = std::stod(b, &used_hi);
      ok = used_lo == a.size() && used_hi == b.size();
    } catch (const std::exception&) {
      ok = false;
    }
  }
  TAPIR_CHECK(ok, flag, " expects LO,HI (two numbers), got '", text, "'");
}

}  // namespace

std::vector<std::string> extra_arguments(const CLI::App& cmd) {
  // CLI11 hands unknown arguments of a subcommand up to the top-level app
  // (fallthrough), so they are collected from every level.
  std::vector<std::string> extras;
  for (const CLI::App* app = &cmd; app != nullptr; app = app->get_parent()) {
    const std::vector<std::string> more = app->remaining();
    extras.insert(extras.end(), more.begin(), more.end());
  }
  return extras;
}

void set_task_options(const std::vector<std::string>& opts, const std::vector<std::string>& extras,
                      TaskOptions& into) {
  for (const std::string& kv : opts) {
    const size_t eq = kv.find('=');
    TAPIR_CHECK(eq != std::string::npos && eq > 0, "--opt expects name=value, got '", kv, "'");
    into.set(kv.substr(0, eq), kv.substr(eq + 1));
  }
  for (size_t i = 0; i < extras.size(); ++i) {
    const std::string& arg = extras[i];
    TAPIR_CHECK(arg.rfind("--", 0) == 0 && arg.size() > 2, "unexpected argument '", arg, "'");
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      into.set(arg.substr(2, eq - 2), arg.substr(eq + 1));
    } else {
      TAPIR_CHECK(i + 1 < extras.size(), "task option ", arg, " needs a value");
      into.set(arg.substr(2), extras[++i]);
    }
  }
}

TrainConfig finish_train_options(CLI::App& cmd, TrainOptions& o) {
  TrainConfig c = o.config;
  parse_range("--spline-range", o.spline_range, c.model.mlp_spline.lo, c.model.mlp_spline.hi);
  parse_range("--attn-spline-range", o.attn_spline_range, c.model.attn_spline.lo,
              c.model.attn_spline.hi);
  // Unrecognised "--name value" or "--name=value" pairs are task options.
  set_task_options(o.task_opts, extra_arguments(cmd), c.task_options);
  c.schedule.kind = parse_schedule_kind(o.schedule_kind);
  finish_constraint_options(o, c);
  c.validate();
  require_device(parse_device(c.device));  // before any run folder is made
  return c;
}

}  // namespace tapir
