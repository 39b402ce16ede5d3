// The M models of a Stage I search (optim/search.h), across threads and MPI
// ranks: each model's trainer, where it starts and in which generation
// under the stagger schedule, which models this process builds and steps
// (over ranks, model m belongs to rank dist::owner(m) alone, engine/dist.h),
// and a function run over models on the host's threads. The search's step
// is the search's own: the pool is told it. Below the search, above the
// trainer (optim/trainer.h) and the search folder (optim/search_folder.h),
// whose model folders it fills.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/rng.h"
#include "nn/spline.h"
#include "optim/model_run.h"
#include "optim/search_config.h"
#include "optim/search_folder.h"
#include "optim/trainer.h"

namespace tapir {

// When each model starts: every model at step 0, or (stagger) model m at
// m * N / M; with reinit every generation lives exactly N steps, otherwise
// a model has one generation that lasts to the end of the search.
struct StaggerSchedule {
  int models = 1;
  int64_t lifetime = 1;  // N
  Stagger mode = Stagger::off;
  int64_t first_start(int m) const { return mode == Stagger::off ? 0 : lifetime * m / models; }
  int64_t start(int m, int64_t generation) const { return first_start(m) + generation * lifetime; }
  // Whether a model that has taken `steps` steps starts over now.
  bool restarts(int64_t steps) const { return mode == Stagger::reinit && steps >= lifetime; }
};

// Where a model stands in the schedule.
struct ModelStart {
  int64_t start = 0;       // global step at which it begins
  int64_t generation = 0;  // times re-initialised
};

class ModelPool {
 public:
  struct Member {
    std::unique_ptr<Trainer> trainer;  // null where another rank owns the model
    ModelStart at;
    Rng arch_rng{0, 2};
    std::vector<Spline*> splines;     // its copies of the shared functions
    std::vector<Parameter*> weights;  // everything else
  };

  // The pool of `config`'s models (resolved), none built yet: start()
  // builds each. With over_ranks, model m belongs to one rank.
  ModelPool(const SearchConfig& config, SearchFolder folder, bool over_ranks);

  int size() const { return static_cast<int>(members_.size()); }
  const StaggerSchedule& schedule() const { return schedule_; }
  bool over_ranks() const { return over_ranks_; }
  bool owns(int m) const;      // this process steps model m
  bool writes_shared() const;  // this process writes the search's own files
  Member& member(int m) { return members_[static_cast<size_t>(m)]; }
  const Member& member(int m) const { return members_[static_cast<size_t>(m)]; }
  // Model m's trainer; over ranks, only the rank that owns m builds it.
  Trainer& trainer(int m);

  // Whether model m has started by search step `step`, and the steps it
  // has taken then in its current generation.
  bool active(int m, int64_t step) const;
  int64_t steps_taken(int m, int64_t step) const;
  // The active models with at least min_steps steps taken, in order, and
  // those of them this process steps.
  struct ModelLists {
    std::vector<int> all, mine;
  };
  ModelLists with_steps(int64_t step, int64_t min_steps) const;

  // Model m from `at` on: a fresh model, or (fresh false) one whose state
  // resume restores. Only the process that owns model m builds it; the
  // others note where it stands.
  void start(int m, ModelStart at, bool fresh = true);
  // Re-initialises, at search step `step`, the models that finished their
  // lifetime.
  void restart_finished(int64_t step);

  // Whether for_models may run models concurrently (on by default); off,
  // each model's kernels share the threads instead. Both give the same
  // bits; tests and `tapir bench --search` compare them.
  void set_concurrent(bool on) { concurrent_ = on; }
  // Calls f(m) for each model in `models`, concurrently when allowed: on
  // the cpu, one model per thread at a time (engine/threads.h's
  // parallel_tasks).
  void for_models(const std::vector<int>& models, const std::function<void(int)>& f) const;

  // A model this process holds, for what every model has alike: the shapes
  // and initial values of the learned functions, the configuration but for
  // its seed. The first model it owns, or, on a rank that owns none (more
  // ranks than models), a spare that is never trained.
  Transformer& any_model();
  // Where each model stands at search step `step`, built here or not, for
  // the search folder's cut back to it.
  std::vector<SearchFolder::ModelAt> positions(int64_t step);

 private:
  uint64_t seed(int m, int64_t generation) const;
  // Model m's configuration in `generation`, as its trainer resolves it.
  TrainConfig model_config(int m, int64_t generation);
  ModelRun& spare();  // built at the first call

  TrainConfig base_;
  StaggerSchedule schedule_;
  SearchFolder folder_;
  bool over_ranks_ = false;
  bool concurrent_ = true;
  std::vector<Member> members_;
  std::unique_ptr<ModelRun> spare_;  // any_model() where this rank owns no model
};

}  // namespace tapir
