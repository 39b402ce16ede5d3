// tapir transfer (lab/transfer.h): a run killed part way continues where it
// stopped and ends with the same matrix as a run that was never interrupted,
// without retraining the cells that had finished.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <thread>

#include "base/file_io.h"
#include "lab/progress.h"
#include "lab/transfer.h"
#include "optim/search.h"

using namespace tapir;
namespace fs = std::filesystem;

namespace {

TransferOptions tiny_transfer(const std::string& out) {
  TransferOptions o;
  o.base.model.width = 16;
  o.base.model.heads = 2;
  o.base.model.layers = 1;
  o.base.model.mlp_act = MlpAct::spline;
  o.base.model.mlp_spline.grid = SplineGrid(9, -20, 20, true);
  o.base.steps = 40;
  o.base.batch = 16;
  o.base.eval_every = 10;
  o.base.eval_limit = 64;
  o.tasks = {"copy", "dyck"};
  o.search.steps = 20;
  o.search.models = 2;
  o.seeds = 2;
  o.threshold = 0.5;
  o.out_dir = out;
  return o;
}

std::string temp_dir(const std::string& name) {
  fs::path p =
      fs::temp_directory_path() / ("tapir_test_transfer_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(p);
  return p.string();
}

// Runs the transfer in a child process and kills it with SIGKILL as soon as
// `file` exists: true then, false when the child finished first (or had not
// written the file after 30 s).
bool run_and_kill_when(const TransferOptions& o, const fs::path& file) {
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    try {
      run_transfer(o);
    } catch (...) {
      _exit(2);
    }
    _exit(0);
  }
  int status = 0;
  for (int i = 0; i < 15000; ++i) {
    if (waitpid(child, &status, WNOHANG) == child) return false;
    if (fs::exists(file)) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  kill(child, SIGKILL);
  waitpid(child, &status, 0);
  return false;
}

// The per-cell results that must not depend on interruptions (seconds do).
void check_same(const VariantResult& a, const VariantResult& b) {
  CAPTURE(a.variant.name);
  REQUIRE(a.runs.size() == b.runs.size());
  for (size_t s = 0; s < a.runs.size(); ++s) {
    REQUIRE(a.runs[s].splits.size() == b.runs[s].splits.size());
    for (size_t k = 0; k < a.runs[s].splits.size(); ++k) {
      const SplitRun &x = a.runs[s].splits[k], &y = b.runs[s].splits[k];
      CHECK(x.split == y.split);
      CHECK(x.steps_to == y.steps_to);
      CHECK(x.final_accuracy == y.final_accuracy);
      CHECK(x.best_loss == y.best_loss);
    }
  }
}

}  // namespace

TEST_CASE("a killed transfer run resumes and ends with the uninterrupted run's matrix") {
  const std::string ref_dir = temp_dir("reference");
  const std::string dir = temp_dir("killed");

  // Killed: a child process runs the transfer and is sent SIGKILL once the
  // first cell of the matrix has written a checkpoint, i.e. mid-training.
  // Forked before this process runs any kernel, so no thread pool is copied.
  const fs::path in_progress = fs::path(dir) / "cells" / "arch-copy-on-copy" / "seed-0";
  REQUIRE_MESSAGE(run_and_kill_when(tiny_transfer(dir), in_progress / "resume.safetensors"),
                  "the transfer finished or stalled before it could be killed");
  // What the kill left: finished searches and baselines, an unfinished matrix.
  CHECK(fs::exists(fs::path(dir) / "search-dyck" / "arch.safetensors"));
  const fs::path done = fs::path(dir) / "cells" / "baseline-copy" / "seed-0" / "finished";
  REQUIRE(fs::exists(done));
  const std::string done_before = read_file(done.string());
  const auto done_time = fs::last_write_time(done);
  CHECK_FALSE(fs::exists(fs::path(dir) / "cells" / "arch-dyck-on-dyck" / "seed-1" / "finished"));

  const TransferResult resumed = run_transfer(tiny_transfer(dir));
  const TransferResult reference = run_transfer(tiny_transfer(ref_dir));

  // Finished cells were reused, not retrained.
  CHECK(fs::last_write_time(done) == done_time);
  CHECK(read_file(done.string()) == done_before);
  // The same numbers as the uninterrupted run, cell by cell.
  REQUIRE(resumed.relative.size() == 2);
  for (size_t col = 0; col < 2; ++col) check_same(resumed.baselines[col], reference.baselines[col]);
  for (size_t row = 0; row < 2; ++row)
    for (size_t col = 0; col < 2; ++col) {
      check_same(resumed.cells[row][col], reference.cells[row][col]);
      const double a = resumed.relative[row][col], b = reference.relative[row][col];
      CHECK(((std::isnan(a) && std::isnan(b)) || a == b));
    }
  CHECK(transfer_markdown(resumed) == transfer_markdown(reference));

  // Run again with other options, nothing is reused: the command stops
  // naming the first folder and what differs.
  TransferOptions longer = tiny_transfer(dir);
  longer.search.steps = 30;
  CHECK_THROWS_WITH_AS(run_transfer(longer),
                       doctest::Contains("search-copy holds a search run with other options than "
                                         "this command would use (steps differ)"),
                       Error);
  TransferOptions cells = tiny_transfer(dir);
  cells.base.steps = 50;  // the searches' model lifetime too
  CHECK_THROWS_WITH_AS(run_transfer(cells), doctest::Contains("(base.steps differ)"), Error);
  fs::remove_all(dir);
  fs::remove_all(ref_dir);
}

TEST_CASE("a transfer killed during a search continues that search from its last evaluation") {
  const std::string dir = temp_dir("search_killed");
  TransferOptions o = tiny_transfer(dir);
  o.search.steps = 200;  // long enough to be caught between its evaluations
  const fs::path search = fs::path(dir) / "search-copy";
  // This process has run kernels by now, on one thread (the default), so no
  // pool workers exist for the child to lack.
  REQUIRE(o.base.threads == 1);
  REQUIRE_MESSAGE(run_and_kill_when(o, search / Search::kResume),
                  "the transfer finished or stalled before it could be killed");
  REQUIRE_FALSE(fs::exists(search / "arch.safetensors"));
  // A search that started over would empty its folder first.
  write_file_atomic((search / "models" / "model-0" / "kept").string(), "");

  std::FILE* log = std::tmpfile();
  REQUIRE(log != nullptr);
  {
    Progress lines(Progress::Style::lines, log);
    o.progress = &lines;
    run_transfer(o);
  }
  std::rewind(log);
  std::string printed(1 << 16, '\0');
  printed.resize(std::fread(printed.data(), 1, printed.size(), log));
  std::fclose(log);
  CHECK(printed.find("search on copy (resumed at step ") != std::string::npos);
  CHECK(fs::exists(search / "models" / "model-0" / "kept"));

  // The functions it learned are those of the same search never stopped.
  const std::string reference = temp_dir("search_reference");
  {
    Search whole(read_json_file((search / Search::kConfig).string(), SearchConfig::from_json),
                 reference);
    whole.run();
  }
  CHECK(read_file((search / "arch.safetensors").string()) ==
        read_file(reference + "/arch.safetensors"));
  fs::remove_all(dir);
  fs::remove_all(reference);
}

TEST_CASE("task options reach only their own task's searches and runs") {
  const std::string out = temp_dir("task_options");
  TransferOptions o = tiny_transfer(out);
  o.base.steps = 10;
  o.search.steps = 10;
  o.seeds = 1;
  o.task_options["copy"].set("max-len", "6");
  run_transfer(o);
  const TrainConfig copy_run = read_json_file(
      (fs::path(out) / "cells" / "baseline-copy" / "seed-0" / "config.json").string(),
      TrainConfig::from_json);
  CHECK(copy_run.task_options.values() == std::map<std::string, std::string>{{"max-len", "6"}});
  const SearchConfig copy_search = read_json_file(
      (fs::path(out) / "search-copy" / "search.json").string(), SearchConfig::from_json);
  CHECK(copy_search.base.task_options.values().size() == 1);
  const TrainConfig dyck_run = read_json_file(
      (fs::path(out) / "cells" / "arch-copy-on-dyck" / "seed-0" / "config.json").string(),
      TrainConfig::from_json);
  CHECK(dyck_run.task_options.values().empty());
  fs::remove_all(out);
  // Options of a task that is not in the matrix, or that the task does not know, stop it first.
  TransferOptions stray = tiny_transfer(out);
  stray.task_options["add"].set("digits", "2");
  CHECK_THROWS_WITH_AS(run_transfer(stray),
                       "--task-opt: options are given for 'add', which is not one of --tasks",
                       Error);
  TransferOptions typo = tiny_transfer(out);
  typo.task_options["dyck"].set("max-lenn", "6");
  CHECK_THROWS_WITH_AS(run_transfer(typo), doctest::Contains("max-lenn"), Error);
  CHECK(!fs::exists(out));
}

TEST_CASE("the transfer table gives a baseline that never reached the threshold as never") {
  TransferResult r;
  r.tasks = {"add", "mano"};
  r.metric = "steps";
  r.relative = {{1.0, 0.0}, {0.5, 0.0}};
  for (double median : {700.0, std::numeric_limits<double>::infinity()}) {
    VariantResult baseline;
    baseline.splits.emplace_back();
    baseline.splits.back().steps.push_back(
        Spread{median, median, median, median, median, 3, std::isinf(median) ? 3 : 0});
    r.baselines.push_back(baseline);
  }
  const std::string table = transfer_markdown(r);
  CHECK(table.find("| baseline (absolute) | 700 steps | never |") != std::string::npos);
  CHECK(table.find("never steps") == std::string::npos);
}
