// The services every experiment job shares, whatever it compares: a run
// trained, resumed or reused in its folder (train_or_reuse), a plan of runs
// shared among MPI ranks (PlannedRun, train_all), a folder's lock taken for
// all ranks (lock_for_job), the check that a folder was written with the
// options a command would use now (check_reusable), and the build that
// trains in this process (set_build_stamp). compare, transfer,
// robust-compare and the Stage I search jobs build on it.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "base/folder_lock.h"
#include "base/json.h"
#include "lab/progress.h"
#include "optim/train_config.h"

namespace tapir {

// Stops unless `stored` (a folder's config.json or search.json) equals `now`
// (what the command would write), apart from the dotted keys in `ignored`;
// the message names dir, `what` it holds ("a run trained") and the dotted
// keys that differ ("schedule.lr, steps"), and how to `redo` the work.
void check_reusable(const Json& stored, const Json& now, const std::vector<std::string>& ignored,
                    const std::string& dir, const std::string& what, const std::string& redo);

// Trains one run to its configured steps in `dir` as the next run of
// `progress`: a folder marked complete (a file "finished") is reused, an
// interrupted one resumed, anything else started fresh.
void train_or_reuse(const TrainConfig& config, const std::string& dir, Progress& progress,
                    const std::string& label);

// Which build trains runs in this process, as `tapir --version` names it in
// one line (the program sets it at start, tools/main.cpp). A run that
// train_or_reuse finishes records it in its marker; train_all warns when it
// reuses runs another build finished, whose numbers may differ from this
// build's (kernels, defaults, fixes). Empty (tests, by default): nothing is
// recorded and nothing compared.
void set_build_stamp(std::string stamp);
const std::string& build_stamp();
// The build recorded in the finished run in `dir`: "" when it records none
// (no marker, or finished before runs recorded their build).
std::string recorded_build(const std::string& dir);
// The warning for the runs of the plan that are finished and were trained
// by a build other than build_stamp(): "" when there are none or no stamp is
// set; else one line naming how many, one of them and both builds.
std::string other_build_warning(const std::vector<std::string>& dirs);

// A run to train or reuse: the unit of work that compare, transfer and
// robust-compare plan first and then train, shared among the ranks under
// MPI (engine/dist.h).
struct PlannedRun {
  TrainConfig config;
  std::string dir, label;
};
// Trains (or reuses, train_or_reuse) every run of the plan. Under MPI, run
// k of the plan trains on rank k mod N; each rank reports the others' runs
// as run elsewhere ("on rank R"), and all return once every rank has finished its share
// (a rank that fails ends the job).
void train_all(const std::vector<PlannedRun>& runs, Progress& progress);

// The lock of a folder that every rank of a job writes into: rank 0 takes
// it (the others get null), and all return once it is held. `written` as for
// FolderLock.
std::unique_ptr<FolderLock> lock_for_job(const std::string& dir, const std::string& what,
                                         const std::vector<std::string>& written = {});

}  // namespace tapir
