// `tapir train`'s work (lab/train_job.h): start or resume, train, report.
#include "lab/train_job.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include "autograd/tape_print.h"
#include "base/folder_lock.h"
#include "base/json.h"
#include "engine/dist.h"
#include "engine/reference.h"
#include "lab/progress.h"
#include "lab/report_text.h"
#include "optim/run_folder.h"
#include "optim/trainer.h"

namespace tapir {

namespace {

// A digest of every parameter's bytes (FNV-1a), for the ranks to compare.
std::string parameter_digest(Trainer& trainer) {
  uint64_t h = 1469598103934665603ull;
  for (const Parameter* p : trainer.model().parameters()) {
    const Tensor t = to_host(p->tensor());
    const auto* bytes = static_cast<const unsigned char*>(t.raw());
    for (size_t i = 0; i < t.nbytes(); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  }
  return std::to_string(h);
}

// The run in job.resume, continued as its config.json says. Rank 0 resumes
// the folder first; the others then read it.
std::unique_ptr<Trainer> resume_trainer(const TrainJob& job, bool root) {
  TAPIR_CHECK(!job.steps || *job.steps >= 1, "--steps must be at least 1, got ", *job.steps);
  // --device given: the run continues there (checkpoints do not depend on it).
  // A text run continues on the bytes it started with, or not at all.
  const RunFolder folder(job.resume);
  if (folder.has(RunFolder::kConfig)) {
    TrainConfig started = folder.read_config(/*check_task=*/false);
    folder.use_own_tokenizer(started);  // as the resumed run reads it
    folder.check_same_inputs(started, /*required=*/false,
                             "cannot resume " + job.resume + ": it is a run",
                             "put the file back as it was, or start a new run with --out");
  }
  const auto resume = [&](bool writes) {
    return Trainer::resume(job.resume, job.steps.value_or(0), job.device, job.threads, writes);
  };
  std::unique_ptr<Trainer> trainer;
  if (root) trainer = resume(true);
  dist::barrier();
  if (!root) trainer = resume(false);
  if (!job.quiet && !trainer->resume_note().empty())
    std::printf("%s\n", trainer->resume_note().c_str());
  if (!job.quiet)
    std::printf("resuming %s at step %lld of %lld\n", job.resume.c_str(),
                static_cast<long long>(trainer->step()),
                static_cast<long long>(trainer->config().steps));
  return trainer;
}

// A new run in job.out from its configuration; rank 0 creates the folder.
std::unique_ptr<Trainer> start_trainer(const TrainJob& job, bool root) {
  if (!job.quiet && !job.note.empty()) std::printf("%s\n", job.note.c_str());
  const Json inputs = RunFolder::input_fingerprints(job.config);  // before the task reads them
  std::unique_ptr<Trainer> trainer = make_trainer(job.config, root ? job.out : "");
  if (root) {
    trainer->start_fresh(job.force);
    RunFolder(job.out).record_inputs(inputs);
  }
  if (!job.quiet)
    std::printf("%s\nmodel: %lld parameters, %lld layers, width %lld, %lld heads\n",
                trainer->task().describe().c_str(),
                static_cast<long long>(trainer->model().parameter_count()),
                static_cast<long long>(trainer->config().model.layers),
                static_cast<long long>(trainer->config().model.width),
                static_cast<long long>(trainer->config().model.heads));
  if (!job.quiet && reference_kernels_on() && trainer->config().device == Device::cpu)
    std::printf("kernels: the naive references (TAPIR_KERNELS=reference), one thread\n");
  return trainer;
}

// The --log-every line of a step: what the optimizer saw.
std::string step_line(const StepStats& s, int64_t steps) {
  char line[160];
  std::snprintf(line, sizeof line, "step %lld/%lld  loss %.4f  gradient norm %.4g  lr %.3g",
                static_cast<long long>(s.step), static_cast<long long>(steps), s.loss, s.grad_norm,
                s.lr);
  return line;
}

// Trains to the end with progress lines (and, with log_every > 0, a line of
// the loss, gradient norm and learning rate every log_every steps after one
// with the loss a uniform guess would have), then says when the first
// evaluation split (test) peaked and how long the run took.
void train_and_report(Trainer& trainer, bool quiet, int64_t log_every) {
  struct Best {
    double accuracy = -1;
    int64_t step = 0;
    double seconds = 0;
  };
  auto best = std::make_shared<Best>();
  const auto start = std::chrono::steady_clock::now();
  Progress progress(quiet);
  progress.plan(1);
  progress.start_run("", trainer.step(), trainer.config().steps);
  TrainEvents events = progress.train_events();
  if (log_every > 0 && !quiet) {
    const size_t vocab = trainer.task().vocab().size();
    char chance[160];
    std::snprintf(chance, sizeof chance,
                  "chance: loss %.4f (ln %zu, a uniform guess over the %zu tokens the model "
                  "predicts)",
                  std::log(static_cast<double>(vocab)), vocab, vocab);
    progress.line(chance);
    const int64_t steps = trainer.config().steps;
    events.on_step = [&progress, log_every, steps, inner = events.on_step](const StepStats& s,
                                                                           double rate) {
      if (inner) inner(s, rate);
      if (s.step % log_every == 0 || s.step == steps) progress.line(step_line(s, steps));
    };
  }
  events.on_eval = [best, start, inner = events.on_eval](int64_t step,
                                                         const std::vector<EvalResult>& results) {
    if (inner) inner(step, results);
    const double acc = results.front().tally.all.accuracy();
    if (acc > best->accuracy) {
      best->accuracy = acc;
      best->step = step;
      best->seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
  };
  trainer.run(events);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!quiet && best->accuracy >= 0)
    std::printf("best %s accuracy %.4f, first reached at step %lld (%s into this run)\n",
                trainer.task().eval_splits().front().c_str(), best->accuracy,
                static_cast<long long>(best->step), format_duration(best->seconds).c_str());
  if (!quiet)
    std::printf("done: %lld steps in %s; run folder %s\n", static_cast<long long>(trainer.step()),
                format_duration(seconds).c_str(), trainer.out_dir().c_str());
}

}  // namespace

int run_train_job(TrainJob job) {
  const bool root = dist::is_root();
  job.quiet = job.quiet || !root;
  // A run inside a comparison or search that is running is that job's to write.
  const std::string dir = job.resume.empty() ? job.out : job.resume;
  const auto enclosing =
      dir.empty() ? nullptr : std::make_unique<EnclosingFoldersLock>(dir, RunFolder::kKind);
  const std::unique_ptr<Trainer> trainer =
      job.resume.empty() ? start_trainer(job, root) : resume_trainer(job, root);
  trainer->set_data_parallel(true);
  dist::check_same("the run's configuration", to_json(trainer->config().to_json()));
  dist::check_same("the model's parameters before training", parameter_digest(*trainer));
  // --print-tape on stdout, or TAPIR_PRINT_TAPE's printout on stderr: with
  // the parameters' names either way.
  if (root && (job.print_tape || tape_printing())) {
    std::vector<std::pair<const TensorImpl*, std::string>> names;
    for (Parameter* p : trainer->model().parameters())
      names.emplace_back(p->tensor().impl(), p->name);
    print_next_backward(job.print_tape ? stdout : stderr, std::move(names));
  }
  train_and_report(*trainer, job.quiet, job.log_every);
  return 0;
}

}  // namespace tapir
