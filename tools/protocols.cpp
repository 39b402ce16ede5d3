#include "tools/protocols.h"

#include <algorithm>

#include "base/error.h"
#include "base/json.h"

namespace tapir {

namespace {

std::string share(int64_t steps, int64_t num, int64_t den) {
  return std::to_string(steps * num / den);
}

// A trapezoid's decay: its share, and at least the one step a trapezoid
// needs (a run of 1 step decays over it).
std::string decay_share(int64_t steps, int64_t num, int64_t den) {
  return std::to_string(std::max<int64_t>(steps * num / den, 1));
}

// The weights' trapezoid of the authors' code (trainLmAf.py: lrSchedule
// "trap", nStepsWarmup 2000 and nStepsCooldown 10000 of nSteps 20000, to 0),
// over a run of `steps`.
std::vector<PresetFlag> weights_trapezoid(int64_t steps) {
  return {
      {"--schedule", "trapezoid", "trainLmAf.py:62 lrSchedule \"trap\", :790-797"},
      {"--warmup", share(steps, 1, 10), "trainLmAf.py:59-60 nStepsWarmup 2000 of nSteps 20000"},
      {"--decay", decay_share(steps, 1, 2), "trainLmAf.py:61 nStepsCooldown 10000 of 20000"},
      {"--min-lr-ratio", "0", "trainLmAf.py:796 (nSteps - step) / nStepsCooldown: 0 at the end"},
  };
}

// Stage I as the authors' code runs it: their grid and start, the functions'
// gradient from the weights' own batches averaged over the active models,
// staggered models trained to the end, the functions' Adam stepped on the
// weights' trapezoid. What the measured claims of docs/experiments.md call
// "the authors' protocol" (scripts/experiments/common.sh authors_arms).
std::vector<PresetFlag> authors_search(int64_t search_steps) {
  return {
      {"--spline-knots", "64", "trainLmAf.py:76 afNAnchors 64"},
      {"--spline-range", "-15,15", "trainLmAf.py:75 afRange 15"},
      {"--spline-extrapolate", "constant", "activationFunctions.py: constant outside the knots"},
      {"--spline-init", "const:0.01", "trainLmAf.py:77 afInit 0.01"},
      {"--arch-split", "train", "trainLmAf.py:852-854 one backward of the training batch"},
      {"--arch-grad", "mean", "trainLmAf.py:864-865 grad /= nModelsTrained"},
      {"--stagger", "continue", "trainLmAf.py:65 staggeredStarts 2, :751-752, :888-891"},
      {"--arch-schedule", "trapezoid",
       "trainLmAf.py:813 getLrFactor for every optimizer, :885-886"},
      {"--arch-warmup", share(search_steps, 1, 10), "trainLmAf.py:60 nStepsWarmup 2000 of 20000"},
      {"--arch-decay", decay_share(search_steps, 1, 2),
       "trainLmAf.py:61 nStepsCooldown 10000 of 20000"},
      {"--arch-min-lr-ratio", "0", "trainLmAf.py:796 0 at the end"},
  };
}

// Stage I as the ICLR paper states it (Teney et al.): held-out
// D_arch, M = 8 models, the functions updated on the summed D_arch loss
// simultaneously with the weights, no staggering; the grid a reviewer
// quotes ("122 points equally spaced between [-20, 20]").
std::vector<PresetFlag> paper_search() {
  return {
      {"--spline-knots", "122", "a review of Teney et al.: \"122 points equally spaced\""},
      {"--spline-range", "-20,20", "a review of Teney et al.: \"between [-20, 20]\""},
      {"--arch-split", "arch", "Teney et al., Stage I: D_arch held out of D_wts"},
      {"--arch-grad", "sum", "Teney et al., Stage I: the summed D_arch loss"},
      {"--stagger", "off", "Teney et al., Stage I: all M models from the start"},
      {"--models", "8", "Teney et al., Stage I: M = 8 on the algorithmic tasks"},
  };
}

}  // namespace

std::vector<std::string> protocol_names() {
  return {"tapir", "paper", "authors"};
}

std::vector<PresetFlag> protocol_flags(const std::string& name, ProtocolStage stage,
                                       const PresetSteps& steps) {
  const int64_t search_steps = steps.search_steps > 0 ? steps.search_steps : steps.steps;
  if (name == "tapir") return {};
  if (name == "paper")
    return stage == ProtocolStage::search ? paper_search() : std::vector<PresetFlag>{};
  if (name == "authors") {
    std::vector<PresetFlag> flags;
    if (stage == ProtocolStage::search) flags = authors_search(search_steps);
    for (PresetFlag& f : weights_trapezoid(steps.steps)) flags.push_back(std::move(f));
    return flags;
  }
  fail("unknown protocol ", quoted(name), " (known: tapir, paper, authors)");
}

std::vector<std::pair<std::string, std::string>> protocol_task_options(const std::string& name) {
  if (name == "authors") return {{"arch-frac", "0"}};
  return {};
}

ProtocolRecord apply_protocol(CLI::App& cmd, const std::string& name, ProtocolStage stage,
                              const PresetSteps& steps) {
  ProtocolRecord record;
  record.name = name;
  for (const PresetFlag& f : apply_flags(cmd, protocol_flags(name, stage, steps)))
    record.flags.push_back(f.flag + (f.value.empty() ? "" : " " + f.value));
  return record;
}

bool apply_protocol_task_options(const std::string& name, const std::string& task,
                                 TaskOptions& options, ProtocolRecord& record,
                                 const std::string& flag) {
  bool set = false;
  for (const auto& [option, value] : protocol_task_options(name)) {
    if (options.has(option)) continue;
    TaskOptions probe = options;
    make_task(task, probe);
    if (!probe.asked(option)) continue;
    options.set(option, value);
    record.flags.push_back(flag + option + "=" + value);
    set = true;
  }
  return set;
}

std::string protocol_note(const ProtocolRecord& record) {
  if (record.flags.empty()) return "";
  std::string flags;
  for (const std::string& f : record.flags) flags += (flags.empty() ? "" : " ") + f;
  return "protocol " + record.name + ": using " + flags + " (a flag you give overrides its value)";
}

void prepend_protocol_note(const ProtocolRecord& record, std::string& notes) {
  const std::string note = protocol_note(record);
  if (!note.empty()) notes = note + (notes.empty() ? "" : "\n" + notes);
}

void add_protocol_option(CLI::App& cmd, std::string& name) {
  cmd.add_option("--protocol", name,
                 "The method's settings by name, for the flags you do not give: tapir (tapir's "
                 "defaults), paper (Stage I as the ICLR paper states it), authors (Stage I and "
                 "both stages' schedules as the authors' code, idiap/lm-afs; docs/protocols.md)")
      ->check(CLI::IsMember(protocol_names()))
      ->capture_default_str();
}

}  // namespace tapir
