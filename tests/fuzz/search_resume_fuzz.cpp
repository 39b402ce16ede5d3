// Fuzz target: a Stage I search's resume file (optim/search.h). Once per
// process a tiny staggered search (modadd p = 11, width 8, one layer, MLP
// ratio 1, a 5-knot MLP spline, one model, so that its resume file stays
// under the corpus's 16 KB) runs to its end in a temporary folder; each
// input then replaces its resume.safetensors, Search::resume rebuilds the
// search from it, and a search that resumes takes one step.
// Expected outcomes: the search resumes, or resume throws a tapir::Error
// naming the folder. A finding: a crash, a sanitizer report, a hang, any
// other exception, or an error that does not say where the problem is.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/error.h"
#include "optim/search.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/tiny_config.h"

namespace {

void make_search(const std::string& dir) {
  tapir::SearchConfig s;
  tapir::TrainConfig& c = s.base;
  c = test_support::tiny_modadd({.width = 8, .steps = 4, .eval_every = 2});
  c.model.mlp_ratio = 1;
  c.model.mlp_act = tapir::MlpAct::spline;
  c.model.mlp_spline.grid = tapir::SplineGrid(5, -20, 20, true);
  s.models = 1;
  s.steps = 8;
  s.stagger = tapir::Stagger::reinit;
  tapir::Search search(s, dir);
  search.run();
}

const std::string& search_dir() {
  static const tapir::fuzz::TempPath dir("search_resume", "");
  static const bool made = (make_search(dir.str()), true);
  (void)made;
  return dir.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& dir = search_dir();
  tapir::fuzz::write_input(dir + "/" + tapir::Search::kResume, data, size);
  try {
    const std::unique_ptr<tapir::Search> search = tapir::Search::resume(dir, 12);
    search->step();  // the state it accepted is usable
  } catch (const tapir::Error& e) {
    tapir::fuzz::require_names(e.what(), dir);
  }
  return 0;
}
