// Fuzz target: resume files of a constrained run (optim/constrained_trainer.h).
// Once per process a tiny resilient run under descent constraints (modadd
// p = 11, width 8, one layer, MLP ratio 1, a dual step every 3 steps, so
// that its resume file holds multipliers, slacks, pending sums and the dual
// RNG and stays under the corpus's 16 KB) is trained four steps and saved in
// a temporary folder; each input then replaces its resume.safetensors and
// Trainer::resume rebuilds the run from it; a run that resumes takes one
// training step. The trainer, and with it the folder's lock, is gone before
// the next input.
// Expected outcomes: the run resumes, or resume throws a tapir::Error naming
// the folder. A finding: a crash, a sanitizer report, a hang, any other
// exception, or an error that does not say where the problem is.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/error.h"
#include "optim/constrained_trainer.h"
#include "optim/run_folder.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/tiny_config.h"

namespace {

void make_run(const std::string& dir) {
  tapir::TrainConfig c = test_support::tiny_modadd({.width = 8, .steps = 4, .eval_every = 2});
  c.model.mlp_ratio = 1;
  c.constraint.kind = tapir::ConstraintKind::descent;
  c.constraint.alpha = {0.05};
  c.constraint.resilient = true;
  c.constraint.dual_every = 3;
  const std::unique_ptr<tapir::Trainer> t = tapir::make_trainer(c, dir);
  t->start_fresh(/*force=*/true);
  t->run();
}

const std::string& run_dir() {
  static const tapir::fuzz::TempPath dir("constrained_resume", "");
  static const bool made = (make_run(dir.str()), true);
  (void)made;
  return dir.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& dir = run_dir();
  tapir::fuzz::write_input(dir + "/" + tapir::RunFolder::kResume, data, size);
  try {
    const std::unique_ptr<tapir::Trainer> trainer = tapir::Trainer::resume(dir, 8);
    trainer->train_step();  // the state it accepted is usable
  } catch (const tapir::Error& e) {
    tapir::fuzz::require_names(e.what(), dir);
  }
  return 0;
}
