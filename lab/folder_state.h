// How far the experiment in a folder has come, told from the files alone:
// which of its runs are still being written, whether its result is written,
// and a fingerprint that changes whenever a file under it does. For
// `tapir report` (report/page.h), which marks what is in progress, and
// `tapir report --watch` (report/watch.h), which renders again on
// every change and stops when the experiment has finished. Sits in lab/, on
// the run and search folders of optim/.
#pragma once
#include <string>
#include <vector>

namespace tapir {

// Whether the run in `dir` has ended: it holds the marker compare and
// transfer write when a run completes (RunFolder::kFinished), or its
// metrics.jsonl logs the evaluation a run ends with (at config.json's steps,
// or the first split's accuracy at its stop_at). A run whose files cannot be
// read (one being written, or none yet) has not.
bool run_finished(const std::string& dir);

// One run of an experiment, or one of its Stage I searches.
struct RunState {
  std::string dir;
  std::string label;  // its path under the experiment's folder ("baseline/seed-1")
  bool search = false;
  bool in_progress = true;
};

struct FolderState {
  // "run", "comparison", "search" or "transfer"; "" while the folder holds
  // none of them (it does not exist yet, or holds nothing tapir wrote).
  std::string kind;
  // A run folder: itself. A search folder: itself. A comparison: the run
  // folders of its variants found so far. A transfer: its searches, then
  // the runs of its cells found so far.
  std::vector<RunState> runs;
  // The experiment's result is written, after the end of every run:
  // compare.json, transfer.json or search_result.json, or the run's end.
  bool result = false;

  // A tapir process holds the folder's lock (base/folder_lock.h): the
  // experiment is being written. An unfinished one without is stopped
  // (killed, or cut short) until a command takes it up again.
  bool writer = true;

  int in_progress() const;
  bool finished() const { return !kind.empty() && result && in_progress() == 0; }
  bool stopped() const { return !kind.empty() && !finished() && !writer; }
  // "2 of 6 runs in progress", "the search in progress", "all 6 runs
  // finished; compare.json not written yet", "stopped with 2 of 6 runs
  // unfinished; no tapir process writes it", or "finished".
  std::string summary() const;
};

// Reads what `dir` holds; never throws for a file being written.
FolderState folder_state(const std::string& dir);

// Every file under `dir` with its size and modification time, as one
// string, leaving out the files named `ignored` (the report itself) and
// their temporaries: it changes when a file is written, appended to, added
// or removed. "" when `dir` does not exist.
std::string tree_fingerprint(const std::string& dir, const std::string& ignored);

}  // namespace tapir
