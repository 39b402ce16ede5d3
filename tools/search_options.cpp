// The search flags (tools/search_options.h).
#include "tools/search_options.h"

#include "tools/options.h"

namespace tapir {

namespace {

// The mode --stagger TEXT names: the bare flag (and `stagger = true` in a
// --config file, as the flag was written there before it took a value) is
// reinit, `false` off.
Stagger stagger_named(const std::string& text) {
  if (text.empty() || text == "true") return Stagger::reinit;
  if (text == "false") return Stagger::off;
  return parse_option("--stagger", text,
                      [](const std::string& t) { return parse_name<Stagger>(t); });
}

// --stagger alone means reinit (what the bare flag meant before it took a
// value); --stagger off|reinit|continue names the mode.
void add_stagger_flag(CLI::App& cmd, SearchConfig& s, const char* group) {
  cmd.add_option_function<std::string>(
         "--stagger", [&s](const std::string& text) { s.stagger = stagger_named(text); },
         "Staggered starts (default off): model m starts at step m*N/M (N = --steps); reinit "
         "(the flag alone): re-initialised after N steps; continue: trains to the end of the "
         "search (the authors' code): " +
             names_of<Stagger>())
      // No default_str: CLI11 hands it to the callback when the flag comes alone.
      ->expected(0, 1)
      ->type_name("[NAME]")
      ->group(group);
}

// The functions' optimizer and learning-rate schedule.
void add_arch_optimizer_flags(CLI::App& cmd, SearchConfig& s, const char* g) {
  add_name_option(cmd, "--arch-optimizer", s.arch_optimizer.kind, "Optimizer of the functions")
      ->group(g);
  cmd.add_option("--arch-lr", s.arch_lr, "Learning rate of the functions")
      ->group(g)
      ->capture_default_str();
  cmd.add_option("--arch-beta1", s.arch_optimizer.beta1, "Their Adam beta1")
      ->group(g)
      ->capture_default_str();
  cmd.add_option("--arch-beta2", s.arch_optimizer.beta2, "Their Adam beta2")
      ->group(g)
      ->capture_default_str();
  add_name_option(cmd, "--arch-schedule", s.arch_schedule.kind,
                  "Their LR schedule over the search's steps (trapezoid: the authors')")
      ->group(g);
  cmd.add_option("--arch-warmup", s.arch_schedule.warmup, "Their linear warmup steps")
      ->group(g)
      ->capture_default_str();
  cmd.add_option("--arch-decay", s.arch_schedule.decay,
                 "Steps of their final linear decay (--arch-schedule trapezoid)")
      ->group(g)
      ->capture_default_str();
  cmd.add_option("--arch-min-lr-ratio", s.arch_schedule.min_ratio,
                 "Their final LR / --arch-lr (cosine, linear, trapezoid)")
      ->group(g)
      ->capture_default_str();
}

}  // namespace

void add_search_flags(CLI::App& cmd, SearchConfig& s) {
  const char* g = "Search";
  cmd.add_option("--models", s.models, "Models sharing the functions (M)")
      ->group(g)
      ->capture_default_str();
  cmd.add_option("--search-steps", s.steps, "Steps of the search (0: --steps, one lifetime)")
      ->group(g)
      ->capture_default_str();
  add_stagger_flag(cmd, s, g);
  add_arch_optimizer_flags(cmd, s, g);
  add_name_option(cmd, "--arch-grad", s.arch_grad, "Combine the models' D_arch gradients")
      ->group(g);
  add_name_option(cmd, "--arch-split", s.arch_split,
                  "Split of the D_arch batches (train: the weights' own data, as the authors' "
                  "code)")
      ->group(g);
  cmd.add_option("--smoothness", s.smoothness, "Penalty on squared second differences of knots")
      ->group(g)
      ->capture_default_str();
  cmd.add_option("--amplitude", s.amplitude, "Bound |knot value| after each step (0: none)")
      ->group(g)
      ->capture_default_str();
  cmd.add_option("--arch-batch", s.arch_batch, "D_arch batch size (0: --batch)")
      ->group(g)
      ->capture_default_str();
  cmd.add_option("--snapshot-every", s.snapshot_every, "Save the functions every N steps")
      ->group(g)
      ->capture_default_str();
}

}  // namespace tapir
