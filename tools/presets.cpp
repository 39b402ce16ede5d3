#include "tools/presets.h"

#include "base/error.h"
#include "base/json.h"

namespace tapir {

namespace {

// The reference: trainLmAf.py's Hyperparameters (nSteps 20000, nStepsWarmup
// 2000, nStepsCooldown 10000, lrSchedule "trap") and the models and
// functions of its published runs (data/lm-afs/README.md).
std::vector<PresetFlag> lm_afs(const PresetSteps& s) {
  const int64_t n = s.steps, search = s.search_steps > 0 ? s.search_steps : s.steps;
  const auto share = [](int64_t steps, int64_t num, int64_t den) {
    return std::to_string(steps * num / den);
  };
  return {
      // The model (its GPT: nLayers, nHeads, dimEmb, tieEmbeddings, ...).
      {"--layers", "4", "nLayers 4"},
      {"--heads", "4", "nHeads 4"},
      {"--width", "256", "dimEmb 256"},
      {"--pos", "rope", "RotaryEmbedding, base 10000, on each head's q and k"},
      {"--norm", "rms", "nn.RMSNorm before attention and MLP"},
      {"--qk-norm", "", "q, k = norm(q), norm(k)"},
      {"--no-bias", "", "CastedLinear(bias=False)"},
      {"--tie-embeddings", "", "tieEmbeddings True"},
      {"--zero-init-proj", "", "projOut and the MLP's output weights zeroed"},
      // The weights' optimizer and schedule.
      {"--optimizer", "adam", "torch Adam"},
      {"--lr", "6e-4", "lr 0.0006"},
      {"--beta1", "0.8", "adamB1 0.8"},
      {"--beta2", "0.95", "adamB2 0.95"},
      {"--weight-decay", "0", "wtDecay 0"},
      {"--clip", "0", "gradientClipping 0"},
      {"--schedule", "trapezoid", "lrSchedule trap"},
      {"--warmup", share(n, 1, 10), "nStepsWarmup 2000 of 20000"},
      {"--decay", share(n, 1, 2), "nStepsCooldown 10000 of 20000"},
      {"--min-lr-ratio", "0", "the trapezoid ends at 0"},
      // The learned functions: the MLP's (when learned) and the attention
      // input function, identity in the baseline ("gelu;att-linear").
      {"--spline-knots", "64", "afNAnchors 64"},
      {"--spline-range", "-15,15", "afRange 15"},
      {"--spline-extrapolate", "constant", "constant outside the knots"},
      {"--spline-init", "const:0.01", "afInit 0.01"},
      s.search ? PresetFlag{"--attn-fn", "spline", "att-spline: x + f(a norm(x) + b) before Q/K/V"}
               : PresetFlag{"--attn-fn", "identity", "att-linear: x + a norm(x) + b before Q/K/V"},
      // Stage I (a search's flags; other commands do not have them).
      {"--models", "20", "20 models in the published runs"},
      {"--stagger", "continue", "staggeredStarts 2: delayed schedules, no restarts"},
      {"--arch-grad", "mean", "the functions' gradient averaged over the active models"},
      {"--arch-split", "train", "no held-out data for the functions"},
      {"--arch-optimizer", "adam", "afLr > 0: Adam"},
      {"--arch-lr", "0.1", "afLr 0.1"},
      {"--arch-beta1", "0.99", "afAdamB1 0.99"},
      {"--arch-beta2", "0.999", "afAdamB2 0.999"},
      {"--arch-schedule", "trapezoid", "the weights' trapezoid"},
      {"--arch-warmup", share(search, 1, 10), "2000 of 20000"},
      {"--arch-decay", share(search, 1, 2), "10000 of 20000"},
      {"--arch-min-lr-ratio", "0", "ends at 0"},
      {"--smoothness", "0", "no smoothness term"},
      {"--amplitude", "0", "no bound on the values"},
  };
}

}  // namespace

std::vector<std::string> preset_names() {
  return {"lm-afs"};
}

std::vector<PresetFlag> preset_flags(const std::string& name, const PresetSteps& steps) {
  if (name == "lm-afs") return lm_afs(steps);
  fail("unknown preset ", tapir::quoted(name), " (known: lm-afs)");
}

std::vector<PresetFlag> apply_flags(CLI::App& cmd, const std::vector<PresetFlag>& flags) {
  std::vector<PresetFlag> applied;
  for (const PresetFlag& f : flags) {
    CLI::Option* option = cmd.get_option_no_throw(f.flag);
    if (option == nullptr || option->count() > 0) continue;
    // A flag without a value is recorded as CLI11 records it when given on
    // the command line ("false" for a negated one such as --no-bias).
    option->add_result(f.value.empty() ? option->get_flag_value(f.flag.substr(2), "") : f.value);
    option->run_callback();
    applied.push_back(f);
  }
  return applied;
}

std::vector<PresetFlag> apply_preset(CLI::App& cmd, const std::string& name,
                                     const PresetSteps& steps) {
  return apply_flags(cmd, preset_flags(name, steps));
}

std::string preset_note(const std::string& name, const std::vector<PresetFlag>& applied) {
  if (applied.empty()) return "";
  std::string flags;
  for (const PresetFlag& f : applied)
    flags += (flags.empty() ? "" : " ") + f.flag + (f.value.empty() ? "" : " " + f.value);
  return name + ": using " + flags + " (a flag you give overrides its value)";
}

bool apply_preset_task_options(const std::string& name, const std::string& task,
                               TaskOptions& options) {
  if (name != "lm-afs" || options.has("arch-frac")) return false;
  TaskOptions probe = options;
  make_task(task, probe);
  if (!probe.asked("arch-frac")) return false;
  options.set("arch-frac", "0");
  return true;
}

}  // namespace tapir
