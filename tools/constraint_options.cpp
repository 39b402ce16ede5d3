#include "tools/constraint_options.h"

namespace tapir {

void add_constraint_options(CLI::App& cmd, TrainOptions& o) {
  ConstraintConfig& c = o.config.constraint;
  auto* g = "Per-layer descent constraints";
  add_name_option(cmd, "--constraint", c.kind,
                  "Per-layer constraint (descent: f_l <= (1 - alpha_l) f_{l-1} for every layer l; "
                  "deep-supervision: ERM plus --ds-weight times each intermediate layer's loss)")
      ->group(g);
  cmd.add_option("--alpha", o.alpha, "Descent rate: one value, or one per layer (a,b,...)")
      ->group(g)
      ->capture_default_str();
  cmd.add_option("--dual-lr", c.dual_lr, "Multiplier step size (projected SGD)")
      ->group(g)
      ->capture_default_str();
  cmd.add_option(
         "--dual-batch", c.dual_batch,
         "Examples of a fresh batch for the dual step's constraints (0: the training batch)")
      ->group(g)
      ->capture_default_str();
  cmd.add_option("--dual-every", c.dual_every,
                 "Steps between dual steps (constraints averaged over them)")
      ->group(g)
      ->capture_default_str();
  cmd.add_flag("--detach-previous", c.detach_previous,
               "Hold (1 - alpha_l) f_{l-1} constant in the primal step")
      ->group(g);
  cmd.add_flag("--resilient", c.resilient,
               "Resilient relaxation: slacks u >= 0 with cost beta/2 u^2")
      ->group(g);
  cmd.add_option("--beta", c.beta, "Slack cost")->group(g)->capture_default_str();
  cmd.add_option("--slack-lr", c.slack_lr, "Slack step size")->group(g)->capture_default_str();
  cmd.add_option("--ds-weight", c.ds_weight,
                 "Deep supervision: the weight of each intermediate layer's loss")
      ->group(g)
      ->capture_default_str();
}

void finish_constraint_options(const TrainOptions& o, TrainConfig& config) {
  config.constraint.alpha = parse_double_list(o.alpha, "--alpha");
}

}  // namespace tapir
