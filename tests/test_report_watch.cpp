// What `tapir report --watch` decides from a folder's files
// (lab/folder_state.h), on folders written by hand: which runs are still in
// progress, when an experiment has finished, and the fingerprint that
// changes with every file written; then the page it renders meanwhile
// (report/page.h). The command itself, on a live comparison in a browser:
// tests/report_watch_browser.sh.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "base/file_io.h"
#include "base/folder_lock.h"
#include "base/json.h"
#include "lab/folder_state.h"
#include "optim/model_run.h"
#include "optim/run_folder.h"
#include "optim/search_folder.h"
#include "report/page.h"
#include "tests/test_support.h"
#include "tests/tiny_config.h"

using namespace tapir;
namespace fs = std::filesystem;

namespace {

using test_support::TempDir;
using test_support::tiny_modadd;

// A metrics.jsonl line: what the report and the decision read of one.
std::string metrics_line(int64_t step, const std::string& split, double accuracy) {
  return R"({"step":)" + std::to_string(step) + R"(,"split":")" + split + R"(","accuracy":)" +
         std::to_string(accuracy) + R"(,"loss":1.5,"wall_s":1.0})" + "\n";
}

// A run folder at `name` under `dir` planned for 20 steps (with stop_at),
// holding `metrics`.
std::string run_folder(const TempDir& dir, const std::string& name, const std::string& metrics,
                       double stop_at = 0) {
  TrainConfig config = resolved_config(tiny_modadd({.steps = 20}));
  config.stop_at = stop_at;
  dir.write(name + "/config.json", to_json(config.to_json(), 2) + "\n");
  if (!metrics.empty()) dir.write(name + "/metrics.jsonl", metrics);
  return dir.file(name);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("report watch: a run has finished at its marker or its final evaluation") {
  TempDir dir;
  const std::string run = run_folder(dir, "run", "");
  CHECK_FALSE(run_finished(run));  // nothing logged yet
  dir.write("run/metrics.jsonl", metrics_line(10, "test", 0.5) + metrics_line(10, "train", 0.6));
  CHECK_FALSE(run_finished(run));
  dir.write("run/metrics.jsonl", metrics_line(10, "test", 0.5) + metrics_line(20, "test", 0.7) +
                                     metrics_line(20, "train", 0.8));
  CHECK(run_finished(run));  // the evaluation at the last step
  // A line caught half-written, and a config.json that does not read: not
  // finished (yet), never an error.
  dir.write("run/metrics.jsonl", metrics_line(10, "test", 0.5) + R"({"step":20,"spl)");
  CHECK_FALSE(run_finished(run));
  dir.write("run/config.json", "{");
  CHECK_FALSE(run_finished(run));
  // compare's and transfer's marker says so whatever the metrics hold.
  dir.write("run/finished", "{}\n");
  CHECK(run_finished(run));

  // stop_at ends a run early once its first split gets there.
  const std::string early = run_folder(
      dir, "early", metrics_line(10, "test", 0.5) + metrics_line(10, "train", 0.95), 0.9);
  CHECK_FALSE(run_finished(early));
  dir.write("early/metrics.jsonl", metrics_line(10, "test", 0.95) + metrics_line(10, "train", 0.5));
  CHECK(run_finished(early));
}

TEST_CASE("report watch: a comparison has finished when compare.json follows every run's end") {
  TempDir dir;
  const std::string top = dir.path().string();
  CHECK(folder_state(dir.file("missing")).kind.empty());
  CHECK(folder_state(top).kind.empty());              // empty: nothing to tell yet
  mark_folder(top, "comparison folder");              // what compare writes first
  CHECK(folder_state(top).stopped());                 // and no process writes it
  const FolderLock writer(top, "comparison folder");  // as compare holds it
  FolderState s = folder_state(top);
  CHECK(s.kind == "comparison");
  CHECK(s.summary() == "no run started yet");
  CHECK_FALSE(s.finished());

  run_folder(dir, "baseline/seed-0", metrics_line(20, "test", 0.9));
  run_folder(dir, "baseline/seed-1", metrics_line(10, "test", 0.4));
  s = folder_state(top);
  REQUIRE(s.runs.size() == 2);
  CHECK(s.runs[0].label == "baseline/seed-0");
  CHECK_FALSE(s.runs[0].in_progress);
  CHECK(s.runs[1].in_progress);
  CHECK(s.summary() == "1 of 2 runs in progress");
  CHECK_FALSE(s.finished());

  dir.write("baseline/seed-1/metrics.jsonl", metrics_line(20, "test", 0.9));
  dir.write("baseline/seed-1/finished", "{}\n");
  s = folder_state(top);
  CHECK(s.in_progress() == 0);
  CHECK(s.summary() == "all 2 runs finished; compare.json not written yet");
  CHECK_FALSE(s.finished());  // the table comes after the runs

  const std::string json = dir.write("compare.json", "{}\n");
  s = folder_state(top);
  CHECK(s.finished());
  CHECK(s.summary() == "finished");
  // A compare.json older than a run's end is one of an earlier comparison:
  // the one now running has not written its own yet.
  fs::last_write_time(json, fs::last_write_time(json) - std::chrono::hours(1));
  CHECK_FALSE(folder_state(top).finished());
}

TEST_CASE("report watch: a run, a search and a transfer, each by what it writes last") {
  TempDir run;
  run_folder(run, ".", metrics_line(10, "test", 0.5));
  const FolderLock run_writer(run.path().string(), RunFolder::kKind);
  FolderState s = folder_state(run.path().string());
  CHECK(s.kind == "run");
  CHECK(s.summary() == "the run in progress");
  run.write("metrics.jsonl", metrics_line(20, "test", 0.5));
  CHECK(folder_state(run.path().string()).finished());

  TempDir search;
  search.write("search.json", "{}\n");
  const FolderLock search_writer(search.path().string(), SearchFolder::kKind);
  s = folder_state(search.path().string());
  CHECK(s.kind == "search");
  CHECK(s.summary() == "the search in progress");
  search.write("search_result.json", "{}\n");
  CHECK(folder_state(search.path().string()).finished());

  TempDir transfer;
  const std::string top = transfer.path().string();
  mark_folder(top, "transfer folder");
  const FolderLock transfer_writer(top, "transfer folder");
  transfer.write("search-add/search.json", "{}\n");
  transfer.write("search-add/models/model-0/config.json", "{}\n");  // not a run of its own
  run_folder(transfer, "cells/baseline-add/seed-0", metrics_line(10, "test", 0.5));
  s = folder_state(top);
  REQUIRE(s.runs.size() == 2);
  CHECK(s.runs[0].label == "search-add");
  CHECK(s.runs[0].search);
  CHECK(s.runs[1].label == "cells/baseline-add/seed-0");
  CHECK(s.summary() == "2 of 2 runs in progress");
  transfer.write("search-add/search_result.json", "{}\n");
  transfer.write("cells/baseline-add/seed-0/finished", "{}\n");
  CHECK_FALSE(folder_state(top).finished());
  transfer.write("transfer.json", "{}\n");
  CHECK(folder_state(top).finished());
}

TEST_CASE("report watch: the fingerprint changes with every file written, but not the report") {
  TempDir dir;
  const std::string top = dir.path().string();
  CHECK(tree_fingerprint(dir.file("missing"), "report.html").empty());
  dir.write("run/metrics.jsonl", metrics_line(10, "test", 0.5));
  const std::string first = tree_fingerprint(top, "report.html");
  CHECK_FALSE(first.empty());
  CHECK(tree_fingerprint(top, "report.html") == first);  // nothing changed
  // The report and its temporaries, at the top or in a run: left out.
  dir.write("report.html", "<html>");
  dir.write("report.html.tmp.1234", "<ht");
  dir.write("run/report.html", "<html>");
  CHECK(tree_fingerprint(top, "report.html") == first);

  append_line(dir.file("run/metrics.jsonl"), R"({"step":20})");
  const std::string appended = tree_fingerprint(top, "report.html");
  CHECK(appended != first);
  // The same size, written again: its time tells.
  const fs::path metrics = dir.file("run/metrics.jsonl");
  fs::last_write_time(metrics, fs::last_write_time(metrics) + std::chrono::seconds(1));
  const std::string touched = tree_fingerprint(top, "report.html");
  CHECK(touched != appended);
  dir.write("run/deeper/finished", "{}\n");
  const std::string added = tree_fingerprint(top, "report.html");
  CHECK(added != touched);
  fs::remove(dir.file("run/deeper/finished"));
  CHECK(tree_fingerprint(top, "report.html") == touched);
}

TEST_CASE("report watch: the page of a comparison in progress marks its runs, then stops") {
  TempDir dir;
  const std::string top = dir.path().string();
  mark_folder(top, "comparison folder");
  run_folder(dir, "baseline/seed-0", metrics_line(20, "test", 0.9));
  run_folder(dir, "baseline/seed-1", "");  // started, nothing logged yet
  auto writer = std::make_unique<FolderLock>(top, "comparison folder");
  const std::string live = build_report(top, folder_state(top), {.refresh_s = 2});
  CHECK(contains(live, "<meta http-equiv=\"refresh\" content=\"2\">"));
  CHECK(contains(live, "<b>1 of 2 runs in progress</b>"));
  CHECK(contains(live,
                 "<tr><td>baseline/seed-0</td><td>20</td><td>20</td>"
                 "<td>test accuracy 0.9000</td><td>finished</td></tr>"));
  CHECK(contains(live,
                 "<tr><td>baseline/seed-1</td><td>-</td><td>20</td><td>none yet</td>"
                 "<td class=\"in-progress\">in progress</td></tr>"));
  CHECK(contains(live, "<svg"));
  // Without refresh_s (the one-shot report) the page has no refresh tag.
  CHECK_FALSE(contains(build_report(top), "http-equiv"));

  // The writer gone (killed): the unfinished run is stopped, not in progress.
  writer.reset();
  const FolderState stopped = folder_state(top);
  CHECK(stopped.stopped());
  CHECK_FALSE(stopped.finished());
  CHECK(stopped.summary() == "stopped with 1 of 2 runs unfinished; no tapir process writes it");
  const std::string page = build_report(top, stopped, {});
  CHECK(contains(page, "<b>stopped with 1 of 2 runs unfinished; no tapir process writes it</b>"));
  CHECK(contains(page, "<td class=\"in-progress\">stopped</td></tr>"));
  CHECK_FALSE(contains(page, "in progress</td>"));
}

TEST_CASE("report watch: a folder has a writer exactly while its lock is held") {
  TempDir dir;
  const std::string top = dir.path().string();
  CHECK_FALSE(folder_has_writer(top));  // no lock file
  {
    const FolderLock lock(top, RunFolder::kKind);
    CHECK(folder_has_writer(top));
    CHECK_FALSE(folder_has_writer(dir.folder("other")));
  }
  CHECK(fs::exists(dir.file(FolderLock::kFile)));  // the file stays, the lock goes
  CHECK_FALSE(folder_has_writer(top));
}
