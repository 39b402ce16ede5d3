// The job services of lab/run_jobs.h: training, resuming or reusing a run
// in its folder, a plan of runs over the ranks, a job's lock, the reuse
// check and the process's build stamp.
#include "lab/run_jobs.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "base/file_io.h"
#include "engine/dist.h"
#include "lab/report_text.h"
#include "optim/model_run.h"
#include "optim/run_folder.h"
#include "optim/trainer.h"

namespace tapir {

namespace fs = std::filesystem;

namespace {

// The process's build stamp (set_build_stamp).
std::string& stamp_of_process() {
  static std::string stamp;
  return stamp;
}

}  // namespace

void set_build_stamp(std::string stamp) {
  stamp_of_process() = std::move(stamp);
}
const std::string& build_stamp() {
  return stamp_of_process();
}

std::string recorded_build(const std::string& dir) {
  const fs::path marker = fs::path(dir) / RunFolder::kFinished;
  if (!fs::exists(marker)) return "";
  Json recorded;
  try {
    recorded = read_json_file(marker.string());
  } catch (const Error&) {
    return "";  // check_whole_outputs names what is wrong with it
  }
  const Json* build = recorded.is_object() ? recorded.find("build") : nullptr;
  return build != nullptr && build->is_string() ? build->as_string() : "";
}

std::string other_build_warning(const std::vector<std::string>& dirs) {
  if (build_stamp().empty()) return "";
  int count = 0;
  std::string example, example_build;
  for (const std::string& dir : dirs) {
    if (!fs::exists(fs::path(dir) / RunFolder::kFinished)) continue;
    const std::string build = recorded_build(dir);
    if (build == build_stamp()) continue;
    if (count++ == 0) {
      example = dir;
      example_build = build.empty() ? "a build that did not record itself" : build;
    }
  }
  if (count == 0) return "";
  return "warning: reusing " + std::to_string(count) +
         (count == 1 ? " finished run" : " finished runs") + " trained by another build (" +
         printable(example) + ": " + printable(example_build) + "; this is " + build_stamp() +
         "); their numbers may differ from this build's: remove " +
         (count == 1 ? "that folder" : "those folders") + " to train them again";
}

namespace {

// A folder trained before is reused or resumed only when its config.json
// is what this command would run now; threads and device do not count, nor
// which protocol set its flags (the flags themselves count).
void check_same_config(const TrainConfig& config, const std::string& dir) {
  const RunFolder folder(dir);
  if (!folder.has(RunFolder::kConfig)) return;
  check_reusable(folder.read_config().to_json(), resolved_config(config).to_json(),
                 {"threads", "device", "protocol.name", "protocol.flags"}, dir, "a run trained",
                 "train it again");
}

}  // namespace

void check_reusable(const Json& stored, const Json& now, const std::vector<std::string>& ignored,
                    const std::string& dir, const std::string& what, const std::string& redo) {
  std::string list;
  for (const std::string& k : json_differences(stored, now))
    if (std::find(ignored.begin(), ignored.end(), k) == ignored.end())
      list += (list.empty() ? "" : ", ") + k;
  TAPIR_CHECK(list.empty(), dir, " holds ", what,
              " with other options than this command would use (", list,
              " differ); give another --out, or remove ", dir, " to ", redo);
}

namespace {

// The files compare reads from a finished run, with their fingerprints now.
Json output_fingerprints(const RunFolder& folder) {
  Json files = Json::object();
  for (const char* name : {RunFolder::kMetrics, RunFolder::kCheckpoint})
    if (folder.has(name)) files.set(name, file_fingerprint(folder.file(name)));
  return files;
}

// Fails unless the run in `folder` read the same bytes it would read now:
// each file of its inputs.json still holds what it held when the run started.
void check_same_inputs(const TrainConfig& config, const RunFolder& folder) {
  folder.check_same_inputs(config, /*required=*/true, folder.dir() + " holds a run",
                           "give another --out, or remove " + folder.dir() + " to train it again");
}

// Fails unless the finished run's files are whole: each holds the bytes the
// run left when it finished.
void check_whole_outputs(const RunFolder& folder) {
  const std::string path = folder.file(RunFolder::kFinished);
  Json recorded;
  try {
    recorded = read_json_file(path);
  } catch (const Error&) {
  }
  const Json* files = recorded.is_object() ? recorded.find("files") : nullptr;
  TAPIR_CHECK(files != nullptr && files->is_object(), path,
              ": expected the fingerprints of the run's files (it was finished before tapir kept "
              "them), so the run cannot be reused safely; remove ",
              folder.dir(), " to train it again");
  const Json now = output_fingerprints(folder);
  for (const auto& [name, fingerprint] : files->as_object()) {
    const Json* is = now.find(name);
    TAPIR_CHECK(is != nullptr && *is == fingerprint, folder.file(name.c_str()),
                " is not the file the finished run left (", path, " records ",
                fingerprint.is_string() ? fingerprint.as_string() : std::string("?"),
                ", the file is ", is ? is->as_string() : std::string("missing"),
                ": cut short or changed since); remove ", folder.dir(), " to train it again");
  }
}

// Whether the run in `dir` can be reused or resumed as `config`, or started:
// fails as train_or_reuse would, without changing anything.
void check_planned_run(const TrainConfig& config, const std::string& dir) {
  const RunFolder folder(dir);
  check_same_config(config, dir);
  if (folder.has(RunFolder::kFinished)) {
    check_same_inputs(config, folder);
    check_whole_outputs(folder);
    // config.json says what was asked for; the checkpoint, what trained.
    TrainConfig saved = folder.read_config();
    folder.use_own_tokenizer(saved);
    folder.read_checkpoint(folder.file(RunFolder::kCheckpoint), saved, {});
  } else if (folder.has(RunFolder::kResume)) {
    check_same_inputs(config, folder);
  }
}

}  // namespace

void train_or_reuse(const TrainConfig& config, const std::string& dir, Progress& progress,
                    const std::string& label) {
  const RunFolder folder(dir);
  const fs::path marker = fs::path(dir) / RunFolder::kFinished;
  check_planned_run(config, dir);
  if (fs::exists(marker)) {
    progress.skip_run(label, "finished earlier: " + dir);
    return;
  }
  std::unique_ptr<Trainer> trainer;
  if (fs::exists(fs::path(dir) / "resume.safetensors")) {
    trainer = Trainer::resume(dir);
  } else {
    // The bytes the trainer reads next.
    const Json inputs = RunFolder::input_fingerprints(config);
    trainer = make_trainer(config, dir);  // constrained variants get their trainer
    trainer->start_fresh(/*force=*/true);
    folder.record_inputs(inputs);
  }
  progress.start_run(label, trainer->step(), trainer->config().steps);
  std::vector<EvalResult> last;
  TrainEvents events = progress.train_events();
  events.on_eval = [&last, inner = events.on_eval](int64_t step,
                                                   const std::vector<EvalResult>& results) {
    last = results;
    if (inner) inner(step, results);
  };
  trainer->run(events);
  Json finished = Json::object();
  finished.set("steps", trainer->step());
  if (!build_stamp().empty()) finished.set("build", build_stamp());
  finished.set("files", output_fingerprints(folder));
  write_file_atomic(marker.string(), to_json(finished, 2) + "\n");
  std::string summary = std::to_string(trainer->step()) + " steps";
  if (!last.empty()) summary += ", " + format_eval({last.front()});
  progress.finish_run(summary);
}

void train_all(const std::vector<PlannedRun>& runs, Progress& progress) {
  // Every run that is there already, checked before the first one trains: a
  // changed input of the last must not stop the job after the others. Each
  // rank checks the runs it owns; one that fails ends the job while the
  // others wait at the barrier, so no rank has trained anything yet.
  for (size_t k = 0; k < runs.size(); ++k)
    if (dist::owner(static_cast<int64_t>(k)) == dist::rank())
      check_planned_run(runs[k].config, runs[k].dir);
  dist::barrier();
  if (dist::is_root()) {
    std::vector<std::string> dirs;
    for (const PlannedRun& run : runs) dirs.push_back(run.dir);
    if (const std::string warning = other_build_warning(dirs); !warning.empty())
      progress.warn(warning);
  }
  for (size_t k = 0; k < runs.size(); ++k) {
    const PlannedRun& run = runs[k];
    const int owner = dist::owner(static_cast<int64_t>(k));
    if (owner == dist::rank())
      train_or_reuse(run.config, run.dir, progress, run.label);
    else
      progress.skip_run(run.label, "on rank " + std::to_string(owner) + ": " + run.dir);
  }
  dist::barrier();
}

std::unique_ptr<FolderLock> lock_for_job(const std::string& dir, const std::string& what,
                                         const std::vector<std::string>& written) {
  // Every rank has looked at the folder (check_new_or_owned) before rank 0
  // creates, marks or locks it.
  dist::barrier();
  std::unique_ptr<FolderLock> lock;
  if (dist::is_root()) lock = std::make_unique<FolderLock>(dir, what, written);
  dist::barrier();
  return lock;
}

}  // namespace tapir
