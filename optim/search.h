// Stage I of the learned-nonlinearity method (Teney et al., ICLR 2026): M
// models with their own weights, optimizer state and seeds share one set of
// learned functions (the splines of nn/spline.h). Every step, each active
// model
//   1. computes the loss of a batch from D_arch (the task's "arch" split)
//      with its weights frozen, and adds the gradient of its splines to the
//      shared functions' gradient;
//   2. takes one ordinary training step on a batch from D_wts (the "train"
//      split) with the splines frozen.
// Then the shared functions take one step of their own optimizer (Adam, lr
// 0.1, betas (0.99, 0.999) by default) on the summed (or averaged) D_arch
// gradient. Both gradients are taken at the same parameters, so the two
// updates are simultaneous, not alternating. Weights never receive D_arch
// gradients and the splines never receive D_wts gradients
// (tests/test_search.cpp proves the routing).
//
// Staggered starts (optional, --stagger): model m starts at step m * N / M,
// where N is a model's lifetime (base.steps, the length of its weight
// schedule, which counts from its own start). With reinit a model that has
// taken N steps is re-initialised with a fresh seed, so the shared functions
// keep seeing models at every stage of training, including after they
// generalise; with continue (the authors' code) every model trains on to the
// end of the search. The functions' own learning rate follows
// config.arch_lr_schedule() over the search's steps.
//
// This file holds the loop. Its parts, each owned elsewhere: the
// configuration (optim/search_config.h), the models across threads and
// ranks and the schedule of their starts (optim/model_pool.h), the shared
// functions and their gradient (optim/search_functions.h), the folder
// (optim/search_folder.h), the resume state (optim/search_state.h) and the
// exchanges between ranks (optim/search_ranks.h).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nn/architecture.h"
#include "optim/model_pool.h"
#include "optim/search_config.h"
#include "optim/search_folder.h"
#include "optim/search_functions.h"

namespace tapir {

// A search, in a folder (optim/search_folder.h). A resumed search continues
// bit for bit as if it had not been stopped.
class Search {
 public:
  static constexpr const char* kConfig = SearchFolder::kConfig;
  static constexpr const char* kResume = SearchFolder::kResume;
  static constexpr const char* kLog = SearchFolder::kLog;

  // out_dir may be empty (tests): nothing is written.
  //
  // With over_ranks (`mpirun -np N tapir search`, engine/dist.h) every rank
  // of the job builds the search and they run it together: model m is
  // built, stepped and evaluated by rank m mod N alone, which writes its
  // folder; the ranks exchange their models' D_arch gradients, losses and
  // accuracies and add them in model order, so every rank holds the same
  // shared functions, with the same bits as one process at the same thread
  // count. Rank 0 gathers every model's state for the resume file and
  // writes the search's own files. Every rank must call the same methods.
  Search(const SearchConfig& config, std::string out_dir, bool over_ranks = false);
  // What the constructor checks of `config` before it builds anything: its
  // ranges, no --arch, and one model of it built, with learned functions.
  // A command calls it before it touches the search's folder.
  static void check(const SearchConfig& config);
  // The search in dir as its search.json and resume.safetensors say, both
  // checked whole before anything in the folder changes; the caller holds
  // the folder's lock. `steps` (if > 0) extends the search, never below the
  // step reached; `device` and `threads` replace the saved ones. The logs
  // are cut back to the resumed step (by rank 0, over_ranks).
  static std::unique_ptr<Search> resume(const std::string& dir, int64_t steps = 0,
                                        std::optional<Device> device = std::nullopt,
                                        std::optional<int> threads = std::nullopt,
                                        bool over_ranks = false);
  // What resuming dropped from the logs ("" when nothing).
  const std::string& resume_note() const { return resume_note_; }
  const SearchConfig& config() const { return config_; }

  struct Events {
    std::function<void(int64_t step, int active, double arch_loss)> on_step;
    std::function<void(int64_t step, double mean_test_accuracy)> on_eval;
  };
  // Trains to config.steps; at the end writes arch.safetensors and
  // search_result.json (the outcome) into the folder.
  void run(const Events& events = {});
  // Valid after run().
  const SearchOutcome& outcome() const { return outcome_; }
  // One step of every active model and of the shared functions. On the cpu
  // with more than one thread, the models step concurrently, one model per
  // thread at a time (ModelPool::for_models), and their D_arch gradients
  // are added in model order afterwards: the same bits as stepping them one
  // after the other at the same thread count.
  void step();

  // The two halves of a model's step, public so tests can check the routing.
  // Returns the D_arch loss; the splines' gradients are moved into the
  // shared functions' gradient (arch_gradient then add_gradient).
  double arch_backward(int model);
  void weights_step(int model);

  Architecture architecture();  // the shared functions as they are now
  int64_t steps_done() const { return step_; }
  int64_t steps_total() const { return config_.steps; }
  // The functions' learning rate at the next step.
  double arch_lr_now() const { return arch_schedule_.lr_at(step_); }
  std::vector<Parameter*> shared_parameters() const { return functions_->parameters(); }
  // The models: their trainers, the schedule of their starts, whether they
  // run concurrently (set_concurrent).
  ModelPool& models() { return pool_; }

 private:
  // Builds the search; from the resume file `state` (read from `path`)
  // when it is not null, else fresh (writing the folder's first files).
  Search(const SearchConfig& config, std::string out_dir, bool over_ranks,
         const SafeTensorsFile* state, const std::string& path);
  // The D_arch loss of `model` and its splines' gradient, into its slot of
  // the shared functions: touches only that model, so models may run it
  // concurrently.
  double arch_gradient(int model);
  // The mean test accuracy of the models that have trained, logged.
  double evaluate_models(int active_models);
  void finish();  // the outcome and the end's files

  SearchConfig config_;
  // What the search is (optim/run_identity.h: search.json's fields and the
  // files it reads), saved with its resume state; null where it writes none.
  Json identity_;
  SearchFolder folder_;
  ModelPool pool_;
  Schedule arch_schedule_;  // the functions' learning rate by search step
  std::unique_ptr<SharedFunctions> functions_;
  int64_t step_ = 0;
  double last_arch_loss_ = 0;
  SearchOutcome outcome_;
  std::string resume_note_;
  double wall_start_ = 0, wall_offset_ = 0;  // the search's own clock
};

}  // namespace tapir
