#include "tools/presets.h"

#include "base/error.h"
#include "base/json.h"
#include "tools/protocols.h"

namespace tapir {

namespace {

// The reference: trainLmAf.py's Hyperparameters and the models and
// functions of its published runs (data/lm-afs/README.md): its model and
// optimizer, the authors' protocol (tools/protocols.h: Stage I, the
// functions' and the weights' trapezoids, the spline grid), and the
// settings of the published runs that the protocol leaves to the command.
std::vector<PresetFlag> lm_afs(const PresetSteps& s) {
  std::vector<PresetFlag> flags = {
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
      // The weights' optimizer.
      {"--optimizer", "adam", "torch Adam"},
      {"--lr", "6e-4", "lr 0.0006"},
      {"--beta1", "0.8", "adamB1 0.8"},
      {"--beta2", "0.95", "adamB2 0.95"},
      {"--weight-decay", "0", "wtDecay 0"},
      {"--clip", "0", "gradientClipping 0"},
  };
  // The authors' protocol, its Stage I flags too: a command without them
  // (train, compare) skips them, and its spline grid holds wherever a
  // spline is learned.
  for (PresetFlag& f : protocol_flags("authors", ProtocolStage::search, s))
    flags.push_back(std::move(f));
  const std::vector<PresetFlag> more = {
      // The attention input function, identity in the baseline
      // ("gelu;att-linear"), learned by a search.
      s.search ? PresetFlag{"--attn-fn", "spline",
                            "att-spline: a + f(g a + b) of a = norm(x), before Q/K/V"}
               : PresetFlag{"--attn-fn", "identity", "att-linear: x + a norm(x) + b before Q/K/V"},
      {"--models", "20", "20 models in the published runs"},
      {"--arch-optimizer", "adam", "afLr > 0: Adam"},
      {"--arch-lr", "0.1", "afLr 0.1"},
      {"--arch-beta1", "0.99", "afAdamB1 0.99"},
      {"--arch-beta2", "0.999", "afAdamB2 0.999"},
      {"--smoothness", "0", "no smoothness term"},
      {"--amplitude", "0", "no bound on the values"},
  };
  flags.insert(flags.end(), more.begin(), more.end());
  return flags;
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
  if (name != "lm-afs") return false;
  ProtocolRecord set;  // the authors' protocol's: nothing held out
  return apply_protocol_task_options("authors", task, options, set);
}

}  // namespace tapir
