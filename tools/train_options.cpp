#include "tools/train_options.h"

#include <set>

#include "base/error.h"
#include "base/json.h"
#include "optim/recommend.h"
#include "tools/constraint_options.h"
#include "tools/presets.h"

namespace tapir {

namespace {

void add_reference_model_options(CLI::App& cmd, ModelConfig& c);

// The model's shape and kinds of layers (group "Model").
void add_model_options(CLI::App& cmd, TrainConfig& c) {
  auto* m = "Model";
  cmd.add_option("--width", c.model.width, "Model width C")->group(m)->capture_default_str();
  cmd.add_option("--heads", c.model.heads, "Attention heads")->group(m)->capture_default_str();
  cmd.add_option("--layers", c.model.layers, "Transformer blocks")->group(m)->capture_default_str();
  cmd.add_option("--mlp-ratio", c.model.mlp_ratio, "MLP hidden width / C")
      ->group(m)
      ->capture_default_str();
  add_name_option(cmd, "--mlp-act", c.model.mlp_act, "MLP activation")->group(m);
  add_name_option(cmd, "--attn", c.model.attn, "Attention")->group(m);
  add_name_option(
      cmd, "--attn-fn", c.model.attn_fn,
      "Attention input function a + f(g a + b) of the normalised input a, before Q/K/V: f "
      "identity or spline")
      ->group(m);
  add_name_option(cmd, "--pos", c.model.pos, "Positions")->group(m);
  cmd.add_option("--context", c.model.context, "Position table size (0: the task's length)")
      ->group(m)
      ->capture_default_str();
  cmd.add_option("--init-std", c.model.init_std, "Std of the normal weight init")
      ->group(m)
      ->capture_default_str();
  add_reference_model_options(cmd, c.model);
}

// The options of the authors' model: rotary positions' base, norms, biases,
// tied embeddings, zero-initialised projections (group "Model").
void add_reference_model_options(CLI::App& cmd, ModelConfig& c) {
  auto* m = "Model";
  cmd.add_option("--rope-base", c.rope_base, "Rotary positions: base of the angles")
      ->group(m)
      ->capture_default_str();
  add_name_option(cmd, "--norm", c.norm, "Norm of the blocks and the readout")->group(m);
  cmd.add_flag("--qk-norm", c.qk_norm, "RMSNorm of each head's q and k before the scores")
      ->group(m);
  cmd.add_flag("!--no-bias", c.bias, "No biases in the Linear layers and LayerNorms")->group(m);
  cmd.add_flag("--tie-embeddings", c.tie_embeddings, "The head reuses the token embeddings")
      ->group(m);
  cmd.add_flag("--zero-init-proj", c.zero_init_proj, "attn.proj and mlp.proj weights start at 0")
      ->group(m);
}

// The attention input function's spline (--attn-fn spline), in the group
// "Learned nonlinearities".
void add_attn_fn_options(CLI::App& cmd, TrainOptions& o) {
  auto* sp = "Learned nonlinearities";
  SplineConfig& fs = o.config.model.attn_fn_spline;
  o.attn_fn_grid = SplineGridOptions("attn-fn", fs.grid);
  cmd.add_option("--attn-fn-knots", o.attn_fn_grid.knots, "Attention function: number of knots")
      ->group(sp)
      ->capture_default_str();
  cmd.add_option("--attn-fn-range", o.attn_fn_grid.range, "Attention function: knot range LO,HI")
      ->group(sp)
      ->capture_default_str();
  cmd.add_option("--attn-fn-extrapolate", o.attn_fn_grid.extrapolate,
                 "Attention function: linear | constant")
      ->group(sp)
      ->capture_default_str();
  cmd.add_option("--attn-fn-init", fs.init, "Attention function: gelu | identity | const:C")
      ->group(sp)
      ->capture_default_str();
  add_name_option(cmd, "--attn-fn-scope", fs.scope,
                  "Attention function: one per block (layer) or one for all")
      ->group(sp);
}

// The splines' grids and the architecture files (group "Learned
// nonlinearities").
void add_spline_options(CLI::App& cmd, TrainOptions& o) {
  TrainConfig& c = o.config;
  auto* sp = "Learned nonlinearities";
  o.mlp_grid = SplineGridOptions("spline", c.model.mlp_spline.grid);
  o.attn_grid = SplineGridOptions("attn-spline", c.model.attn_spline.grid);
  SplineConfig& ms = c.model.mlp_spline;
  cmd.add_option("--spline-knots", o.mlp_grid.knots, "MLP spline: number of knots")
      ->group(sp)
      ->capture_default_str();
  cmd.add_option("--spline-range", o.mlp_grid.range, "MLP spline: knot range LO,HI")
      ->group(sp)
      ->capture_default_str();
  cmd.add_option("--spline-extrapolate", o.mlp_grid.extrapolate, "MLP spline: linear | constant")
      ->group(sp)
      ->capture_default_str();
  cmd.add_option("--spline-init", ms.init, "MLP spline: gelu | identity | const:C")
      ->group(sp)
      ->capture_default_str();
  add_name_option(cmd, "--spline-scope", ms.scope,
                  "MLP spline: one per block (layer) or one for all")
      ->group(sp);
  SplineConfig& as = c.model.attn_spline;
  cmd.add_option("--attn-spline-knots", o.attn_grid.knots, "Attention spline: number of knots")
      ->group(sp)
      ->capture_default_str();
  cmd.add_option("--attn-spline-range", o.attn_grid.range, "Attention spline: range LO,HI")
      ->group(sp)
      ->capture_default_str();
  cmd.add_option("--attn-spline-extrapolate", o.attn_grid.extrapolate,
                 "Attention spline: linear | constant")
      ->group(sp)
      ->capture_default_str();
  add_name_option(cmd, "--attn-spline-scope", as.scope, "Attention spline: layer or shared")
      ->group(sp);
  cmd.add_flag("--score-per-head", c.model.score_per_head, "score-spline: one spline per head")
      ->group(sp);
  add_attn_fn_options(cmd, o);
  cmd.add_option("--arch", c.arch_file, "Architecture file of learned functions to use")->group(sp);
  cmd.add_option("--mlp-poly", o.mlp_poly,
                 "Poly file (tapir arch fit-poly): its polynomials as the MLP activation")
      ->group(sp);
  cmd.add_flag("--arch-trainable", c.arch_trainable,
               "Keep training the --arch functions (default: frozen)")
      ->group(sp);
}

// Optimizer, learning-rate schedule and clipping (group "Optimizer").
void add_optimizer_options(CLI::App& cmd, TrainConfig& c) {
  auto* opt = "Optimizer";
  add_name_option(cmd, "--optimizer", c.optimizer.kind, "Optimizer")->group(opt);
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
  add_name_option(cmd, "--schedule", c.schedule.kind, "LR schedule after warmup")->group(opt);
  cmd.add_option("--warmup", c.schedule.warmup, "Linear warmup steps")
      ->group(opt)
      ->capture_default_str();
  cmd.add_option("--decay", c.schedule.decay,
                 "Steps of the trapezoid's final linear decay (--schedule trapezoid)")
      ->group(opt)
      ->capture_default_str();
  cmd.add_option("--min-lr-ratio", c.schedule.min_ratio,
                 "Final LR / peak LR for cosine, linear, trapezoid")
      ->group(opt)
      ->capture_default_str();
  cmd.add_option("--clip", c.clip, "Global gradient-norm clip (0: off)")
      ->group(opt)
      ->capture_default_str();
}

// Steps, batches, evaluations, seed, threads and device (group "Loop").
void add_loop_options(CLI::App& cmd, TrainConfig& c) {
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
  add_name_option(cmd, "--train-on", c.train_on,
                  "Training data: all of D (the train and arch splits) or the train split alone")
      ->group(loop);
  add_name_option(cmd, "--train-noise", c.train_noise,
                  "Noise-augmented training: noise on the token embeddings at every step, as "
                  "`tapir robust` adds it (with --train-gamma)")
      ->group(loop);
  cmd.add_option("--train-gamma", c.train_gamma,
                 "Strength of --train-noise, in units of the embedding table's RMS")
      ->group(loop)
      ->capture_default_str();
  cmd.add_flag("--shuffle-labels", c.shuffle_labels,
               "Train on random labels: each batch's targets shuffled among its rows (in a "
               "search, the arch batches' too); a control for what a search learns from the task")
      ->group(loop);
  add_name_option(cmd, "--eval-on", c.eval_on,
                  "What evaluations score: the task's splits (test first) or the held-out arch "
                  "split alone (needs --train-on train; how --tune scores a setting)")
      ->group(loop);
  add_threads_option(cmd, c.threads)->group(loop);
  add_device_option(cmd, c.device, "Where to train")->group(loop);
}

}  // namespace

void add_train_options(CLI::App& cmd, TrainOptions& o) {
  TrainConfig& c = o.config;
  cmd.allow_extras();
  cmd.add_option("--task", c.task,
                 "Task to train on (see `tapir tasks list`; `tapir tasks show NAME` lists the "
                 "settings it recommends, used for the flags you do not give)")
      ->capture_default_str();
  cmd.add_option("--opt", o.task_opts, "Task option as name=value (repeatable)");
  cmd.add_option("--preset", o.preset,
                 "A named setup for the flags you do not give: lm-afs (the authors' model, "
                 "optimizer, schedules and search protocol, idiap/lm-afs)")
      ->check(CLI::IsMember(preset_names()));
  add_model_options(cmd, c);
  add_spline_options(cmd, o);
  add_optimizer_options(cmd, c);
  add_loop_options(cmd, c);
  add_constraint_options(cmd, o);
}

void note_defaults_unlike_train(CLI::App& cmd) {
  CLI::App reference;
  TrainOptions defaults;
  add_train_options(reference, defaults);
  for (const CLI::Option* ref : reference.get_options()) {
    CLI::Option* opt = cmd.get_option_no_throw(ref->get_name());
    if (opt == nullptr || opt->get_default_str() == ref->get_default_str()) continue;
    opt->description(opt->get_description() + " [train's default: " + ref->get_default_str() + "]");
  }
}

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

void check_resume_flags(const CLI::App& cmd, const std::set<std::string>& allowed,
                        const std::string& saved, const std::string& allowed_text) {
  for (const CLI::Option* option : cmd.get_options()) {
    const std::string name = option->get_name();
    TAPIR_CHECK(option->count() == 0 || name == "--resume" || allowed.count(name),
                "--resume continues ", saved, " says, so ", name,
                " cannot be given with it (allowed: ", allowed_text, ")");
  }
  const std::vector<std::string> extras = extra_arguments(cmd);
  TAPIR_CHECK(extras.empty(), "--resume continues ", saved, " says, so '",
              extras.empty() ? "" : extras.front(), "' cannot be given with it");
}

void set_task_options(const std::vector<std::string>& opts, const std::vector<std::string>& extras,
                      TaskOptions& into) {
  std::set<std::string> given;  // each option once: a second value would silently win
  const auto set = [&](const std::string& name, const std::string& value) {
    TAPIR_CHECK(given.insert(name).second, "task option ", quoted(name),
                " is given twice (as --opt name=value or --name value); give it once");
    // An unset shell variable ("--opt tokenizer=$TOK") is no value.
    TAPIR_CHECK(!value.empty(), "task option ", quoted(name),
                " has an empty value; give it a value (name=value) or leave it out");
    into.set(name, value);
  };
  for (const std::string& kv : opts) {
    const size_t eq = kv.find('=');
    TAPIR_CHECK(eq != std::string::npos && eq > 0, "--opt expects name=value, got ", quoted(kv));
    set(kv.substr(0, eq), kv.substr(eq + 1));
  }
  for (size_t i = 0; i < extras.size(); ++i) {
    const std::string& arg = extras[i];
    TAPIR_CHECK(arg.rfind("--", 0) == 0 && arg.size() > 2, "unexpected argument ", quoted(arg));
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      set(arg.substr(2, eq - 2), arg.substr(eq + 1));
    } else {
      TAPIR_CHECK(i + 1 < extras.size(), "task option ", quoted(arg), " needs a value");
      set(arg.substr(2), extras[++i]);
    }
  }
}

TrainConfig finish_train_options(CLI::App& cmd, TrainOptions& o) {
  if (!o.preset.empty()) {  // a command may have applied it already (search: with its steps)
    const std::vector<PresetFlag> applied = apply_preset(cmd, o.preset, {o.config.steps, 0});
    if (!applied.empty()) o.preset_note = preset_note(o.preset, applied);
  }
  TrainConfig c = o.config;
  c.model.mlp_spline.grid = o.mlp_grid.grid();
  c.model.attn_spline.grid = o.attn_grid.grid();
  c.model.attn_fn_spline.grid = o.attn_fn_grid.grid();
  // Unrecognised "--name value" or "--name=value" pairs are task options.
  set_task_options(o.task_opts, extra_arguments(cmd), c.task_options);
  finish_constraint_options(o, c);
  if (!o.mlp_poly.empty()) {
    TAPIR_CHECK(cmd.count("--mlp-act") == 0 || c.model.mlp_act == MlpAct::poly,
                "--mlp-poly makes the MLP activation a polynomial; it cannot be combined with "
                "--mlp-act ",
                name_of(c.model.mlp_act));
    c.model.mlp_act = MlpAct::poly;
    c.model.mlp_poly = poly_functions(load_poly_file(o.mlp_poly));
  } else if (c.model.mlp_act != MlpAct::poly) {
    c.model.mlp_poly.clear();  // a variant of a polynomial base that changes the activation
  }
  c.validate();
  return c;
}

std::function<bool(const std::string&)> given_on(const CLI::App& cmd) {
  return [&cmd](const std::string& flag) { return cmd.get_option(flag)->count() > 0; };
}

std::vector<TaskSetting> recommend_unless_given(const CLI::App& cmd, TrainConfig& c) {
  std::vector<TaskSetting> applied = apply_recommended(c, given_on(cmd));
  c.validate();
  return applied;
}

std::string recommended_note(const std::string& task, const std::vector<TaskSetting>& applied) {
  if (applied.empty()) return "";
  return task + ": using the task's recommended " + format_settings(applied) +
         " (a flag you give overrides its value)";
}

std::string settings_note(const TrainOptions& o, const std::string& task,
                          const std::vector<TaskSetting>& applied) {
  const std::string recommended = recommended_note(task, applied);
  if (o.preset_note.empty() || recommended.empty()) return o.preset_note + recommended;
  return o.preset_note + "\n" + recommended;
}

}  // namespace tapir
