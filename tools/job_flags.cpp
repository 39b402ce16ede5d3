// The flags of train and search read into their jobs (tools/job_flags.h).
#include "tools/job_flags.h"

#include "base/error.h"
#include "tools/presets.h"
#include "tools/protocols.h"

namespace tapir {

TrainJob train_job_from_flags(CLI::App& cmd, TrainOptions& train, const TrainJob& bound) {
  if (!bound.resume.empty()) {
    TrainJob job = bound;
    check_resume_flags(
        cmd, {"--steps", "--threads", "--device", "--quiet", "--log-every", "--print-tape"},
        "the run as its config.json",
        "--steps to extend the run, --threads, --device, --quiet, --log-every, "
        "--print-tape");
    if (cmd.count("--steps") > 0) job.steps = train.config.steps;
    if (cmd.count("--device") > 0) job.device = train.config.device;
    if (cmd.count("--threads") > 0) job.threads = train.config.threads;
    return job;
  }
  TAPIR_CHECK(!bound.out.empty(), "train needs --out DIR (or --resume DIR)");
  TrainConfig config = finish_train_options(cmd, train);
  TrainJob job = bound;
  job.config = std::move(config);
  job.note = settings_note(train, job.config.task, recommend_unless_given(cmd, job.config));
  return job;
}

SearchJob search_job_from_flags(CLI::App& cmd, TrainOptions& train, const std::string& protocol,
                                const SearchJob& bound) {
  if (!bound.resume.empty()) {
    SearchJob job = bound;
    check_resume_flags(cmd, {"--search-steps", "--threads", "--device", "--quiet"},
                       "the search as its search.json",
                       "--search-steps to extend the search, --threads, --device, --quiet");
    if (cmd.count("--search-steps") > 0) job.steps = job.config.steps;
    if (cmd.count("--device") > 0) job.device = train.config.device;
    if (cmd.count("--threads") > 0) job.threads = train.config.threads;
    return job;
  }
  TAPIR_CHECK(!bound.out.empty(), "search needs --out DIR (or --resume DIR)");
  TAPIR_CHECK(cmd.count("--train-on") == 0,
              "search trains its weights on the train split (D_wts) and takes D_arch from "
              "--arch-split; --train-on is for training outside Stage I");
  // The protocol first, then a preset, with the search's steps, so that its
  // shares of them and its search flags land in job.config before it is read.
  ProtocolRecord record = apply_protocol(cmd, protocol, ProtocolStage::search,
                                         {train.config.steps, bound.config.steps, /*search=*/true});
  if (!train.preset.empty())
    train.preset_note = preset_note(
        train.preset,
        apply_preset(cmd, train.preset, {train.config.steps, bound.config.steps, /*search=*/true}));
  SearchJob job = bound;
  job.config.base = finish_train_options(cmd, train);
  apply_protocol_task_options(protocol, job.config.base.task, job.config.base.task_options, record);
  job.config.base.protocol = record;
  prepend_protocol_note(record, train.preset_note);
  if (!train.preset.empty() &&
      apply_preset_task_options(train.preset, job.config.base.task, job.config.base.task_options))
    train.preset_note += (train.preset_note.empty() ? "" : "\n") + train.preset +
                         ": using --opt arch-frac=0 (nothing held out)";
  job.note =
      settings_note(train, job.config.base.task, recommend_unless_given(cmd, job.config.base));
  return job;
}

}  // namespace tapir
