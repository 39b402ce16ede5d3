// tapir changes only what it can show it wrote: temporaries only in folders
// it marked, no writes through symbolic links, --force and --out only over
// its own folders, no output over an input, reuse only of runs whose input
// and output files hold the bytes recorded, and no run written under a
// comparison that is running.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "base/file_io.h"
#include "base/folder_lock.h"
#include "lab/compare.h"
#include "lab/progress.h"
#include "lab/search_job.h"
#include "nn/architecture.h"
#include "optim/run_folder.h"
#include "optim/search_folder.h"
#include "optim/trainer.h"
#include "tests/resume_files.h"
#include "tests/test_support.h"
#include "tests/tiny_config.h"

using namespace tapir;
namespace fs = std::filesystem;
using test_support::TempDir;

using testing::files_below;

namespace {

// The pid of a process that has ended: a child that exits at once, reaped.
std::string dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  REQUIRE(child > 0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return std::to_string(child);
}

}  // namespace

TEST_CASE("the marker's own temporary, seen while it is written, is not another program's file") {
  // A `report --watch` that looks while a comparison marks its new folder
  // sees ".tapir.tmp.PID" and nothing else: that folder is tapir's.
  TempDir tmp;
  const std::string dir = tmp.folder("cmp");
  tmp.write("cmp/.tapir.tmp.30982", "tapir comparison folder\n");
  CHECK(foreign_entries(dir).empty());
  tmp.write("cmp/.tapir.tmp.", "not a pid");
  tmp.write("cmp/.tapir.tmp.12x", "not a pid");
  tmp.write("cmp/notes.txt", "a user's file");
  CHECK(foreign_entries(dir).find(".tapir.tmp.30982") == std::string::npos);
  CHECK(foreign_entries(dir).find(".tapir.tmp.12x") != std::string::npos);
  CHECK(foreign_entries(dir).find("notes.txt") != std::string::npos);
}

TEST_CASE("the lock removes temporaries only of tapir's names, only in a folder tapir marked") {
  TempDir tmp;
  const std::string dead = dead_pid();
  const std::string foreign = tmp.folder("foreign");
  tmp.write("foreign/config.json.tmp.12345", "another program's file");
  { const FolderLock lock(foreign, RunFolder::kKind, RunFolder::written()); }
  CHECK(read_file(foreign + "/config.json.tmp.12345") == "another program's file");
  CHECK(owned_kind(foreign).empty());  // not marked: it held something

  const std::string run = tmp.folder("run");
  { const FolderLock lock(run, RunFolder::kKind, RunFolder::written()); }  // empty: marked
  CHECK(owned_kind(run) == RunFolder::kKind);
  tmp.write("run/checkpoint.safetensors.tmp." + dead, "half");
  tmp.write("run/notes.txt.tmp." + dead, "a user's file");
  // A writer that still runs (here this process) may be about to rename
  // its file: a `report --watch` writes report.html beside a job.
  const std::string live = std::to_string(::getpid());
  tmp.write("run/config.json.tmp." + live, "being written");
  { const FolderLock lock(run, RunFolder::kKind, RunFolder::written()); }
  CHECK(!fs::exists(run + "/checkpoint.safetensors.tmp." + dead));
  CHECK(read_file(run + "/notes.txt.tmp." + dead) == "a user's file");
  CHECK(read_file(run + "/config.json.tmp." + live) == "being written");
  fs::remove(run + "/config.json.tmp." + live);

  // A folder marked as another kind keeps its temporaries.
  tmp.write("run/checkpoint.safetensors.tmp." + dead, "half");
  { const FolderLock lock(run, SearchFolder::kKind, RunFolder::written()); }
  CHECK(fs::exists(run + "/checkpoint.safetensors.tmp." + dead));
}

TEST_CASE("a lock file or an output that is a symbolic link is refused, its target unchanged") {
  TempDir tmp;
  const std::string target = tmp.write("precious.txt", "keep me\n");
  const std::string dir = tmp.folder("run");
  fs::create_symlink(target, dir + "/.lock");
  CHECK(test_support::error_of([&] { FolderLock lock(dir, RunFolder::kKind); }) ==
        "run folder " + dir +
            ": its lock file .lock is a symbolic link, and tapir locks only a file of its own; "
            "remove the link");
  CHECK(read_file(target) == "keep me\n");

  fs::create_symlink(target, tmp.file("out.json"));
  CHECK(test_support::error_of([&] { write_file_atomic(tmp.file("out.json"), "{}"); }) ==
        tmp.file("out.json") +
            ": is a symbolic link, and tapir writes only files of its own, never through a link; "
            "remove the link or choose another path");
  CHECK_THROWS_WITH_AS(append_line(tmp.file("out.json"), "{}"),
                       doctest::Contains("is a symbolic link"), Error);
  CHECK(read_file(target) == "keep me\n");
  CHECK(fs::is_symlink(tmp.file("out.json")));
}

TEST_CASE("search --force replaces only tapir's search folder, and only the files it wrote") {
  TempDir tmp;
  const std::string dir = tmp.folder("theirs");
  tmp.write("theirs/search.json", "{\"mine\": true}\n");
  tmp.write("theirs/data.csv", "1,2,3\n");
  const auto before = files_below(dir);
  CHECK(test_support::error_of([&] { SearchFolder(dir).check_replaceable(true); }) ==
        "--force replaces only a tapir search folder, and " + dir +
            " is not one (no .tapir marker of a search and no readable tapir search.json; it "
            "holds data.csv, search.json); choose another --out or remove it yourself");
  CHECK(files_below(dir) == before);
  CHECK(!fs::exists(dir + "/.lock"));

  const std::string ours = tmp.folder("ours");
  mark_folder(ours, SearchFolder::kKind);
  tmp.write("ours/search.json", "{}\n");
  tmp.write("ours/search.jsonl", "{}\n");
  tmp.write("ours/snapshots/arch-step-00000002.safetensors", "x");
  tmp.write("ours/snapshots/my-notes.txt", "mine");
  tmp.write("ours/models/model-0/config.json", "{}\n");
  tmp.write("ours/models/model-0/metrics.jsonl", "{}\n");
  tmp.write("ours/notes.md", "mine");
  const SearchFolder folder(ours);
  CHECK(folder.check_replaceable(true));
  folder.clear();
  CHECK(files_below(ours) ==
        std::map<std::string, std::string>{{".tapir", "tapir search folder\n"},
                                           {"notes.md", "mine"},
                                           {"snapshots/my-notes.txt", "mine"}});
  CHECK(!fs::exists(ours + "/models"));
}

TEST_CASE("compare and robust-compare refuse an --out folder that is not a tapir comparison") {
  TempDir tmp;
  const std::string dir = tmp.folder("report");
  tmp.write("report/compare.md", "another program's table\n");
  const auto before = files_below(dir);
  CHECK(test_support::error_of([&] { check_new_or_owned(dir, "comparison folder"); }) ==
        "comparison folder " + dir +
            " is not a tapir comparison folder (no .tapir marker; it holds compare.md); tapir "
            "changes only folders it made: choose another --out or remove it yourself");
  CHECK(files_below(dir) == before);
  CHECK(!fs::exists(dir + "/.lock"));

  const std::string search = tmp.folder("search");
  mark_folder(search, SearchFolder::kKind);
  CHECK(test_support::error_of([&] { check_new_or_owned(search, "robust-compare folder"); }) ==
        "robust-compare folder " + search +
            " is a tapir search folder, not a robust-compare folder; choose another --out");

  CHECK_NOTHROW(check_new_or_owned(tmp.file("new"), "comparison folder"));
  CHECK_NOTHROW(check_new_or_owned(tmp.folder("empty"), "comparison folder"));
  const std::string ours = tmp.folder("ours");
  { const FolderLock lock(ours, "comparison folder"); }
  tmp.write("ours/compare.md", "table\n");
  CHECK_NOTHROW(check_new_or_owned(ours, "comparison folder"));
}

TEST_CASE("an output path that is one of the command's inputs is refused") {
  TempDir tmp;
  const std::string input = tmp.write("run/checkpoint.safetensors", "weights");
  fs::create_symlink(input, tmp.file("alias.safetensors"));
  CHECK(test_support::error_of([&] {
          refuse_output_over_inputs(input, {"x", input});
        }) == input + " is the same file as " + input +
                  ", which this command reads; choose another output path");
  CHECK_THROWS_WITH_AS(
      refuse_output_over_inputs(tmp.file("run/../run/checkpoint.safetensors"), {input}),
      doctest::Contains("which this command reads"), Error);
  CHECK_THROWS_WITH_AS(refuse_output_over_inputs(tmp.file("alias.safetensors"), {input}),
                       doctest::Contains("which this command reads"), Error);
  ::link(input.c_str(), tmp.file("hard.safetensors").c_str());
  CHECK_THROWS_WITH_AS(refuse_output_over_inputs(tmp.file("hard.safetensors"), {input}),
                       doctest::Contains("which this command reads"), Error);
  CHECK_NOTHROW(refuse_output_over_inputs(tmp.file("dump.safetensors"), {input}));
  // dump, layers and robust: the run's own files, whether given the folder or its checkpoint.
  const std::string arch = tmp.write("arch.safetensors", "functions");
  for (const std::string& given : {tmp.file("run"), input})
    for (const std::string& out :
         {tmp.file("run/config.json"), tmp.file("run/arch.safetensors"), input, arch})
      CHECK_THROWS_WITH_AS(refuse_output_over_inputs(out, run_input_files(given, arch)),
                           doctest::Contains("which this command reads"), Error);
  CHECK_NOTHROW(
      refuse_output_over_inputs(tmp.file("run/layers_test.svg"), run_input_files(input, "")));
  CHECK(read_file(input) == "weights");
}

TEST_CASE("a finished text run is reused only while its corpus is unchanged") {
  TempDir tmp;
  Progress quiet(Progress::Style::quiet);
  std::string text;
  for (int i = 0; i < 200; ++i) text += "line " + std::to_string(i) + " of the corpus\n";
  tmp.write("corpus/a.txt", text);
  tmp.write("corpus/b.txt", text);
  TrainConfig c = test_support::tiny_modadd({.steps = 4, .eval_every = 4});
  c.task = "text";
  c.task_options = TaskOptions();
  c.task_options.set("path", tmp.file("corpus"));
  c.task_options.set("context", "16");
  const std::string dir = tmp.file("cmp/baseline/seed-0");
  train_or_reuse(c, dir, quiet, "baseline");
  CHECK(read_file(dir + "/inputs.json").find(tmp.file("corpus")) != std::string::npos);
  CHECK_NOTHROW(train_or_reuse(c, dir, quiet, "baseline"));  // unchanged: reused

  // One byte of one file of the folder changed: the run read other data (a
  // letter the corpus has, so that the vocabulary, in config.json, stays).
  text[0] = 'o';
  tmp.write("corpus/b.txt", text);
  const auto before = files_below(dir);
  CHECK_THROWS_WITH_AS(
      train_or_reuse(c, dir, quiet, "baseline"),
      doctest::Contains(
          (dir + " holds a run trained with other contents of " + tmp.file("corpus")).c_str()),
      Error);
  CHECK(files_below(dir) == before);
}

TEST_CASE("a finished run is reused only while its input and output files are unchanged") {
  TempDir tmp;
  Progress quiet(Progress::Style::quiet);
  TrainConfig c = test_support::tiny_modadd();
  c.model.mlp_act = MlpAct::spline;
  const std::string arch_path = tmp.file("arch.safetensors");
  Architecture arch;
  {
    Trainer t(c, "");
    arch = architecture_of(t.model());
  }
  save_architecture(arch_path, arch);
  c.arch_file = arch_path;
  const std::string dir = tmp.file("cmp/arch/seed-0");
  train_or_reuse(c, dir, quiet, "arch");
  CHECK(fs::exists(dir + "/inputs.json"));
  CHECK_NOTHROW(train_or_reuse(c, dir, quiet, "arch"));  // unchanged: reused

  // The same path, other contents.
  arch.functions.front().values[0] += 0.5f;
  save_architecture(arch_path, arch);
  const auto before = files_below(dir);
  CHECK_THROWS_WITH_AS(
      train_or_reuse(c, dir, quiet, "arch"),
      doctest::Contains((dir + " holds a run trained with other contents of " + arch_path).c_str()),
      Error);
  CHECK(files_below(dir) == before);

  // Its metrics cut short.
  const std::string plain = tmp.file("cmp/baseline/seed-0");
  const TrainConfig base = test_support::tiny_modadd();
  train_or_reuse(base, plain, quiet, "baseline");
  const std::string metrics = plain + "/metrics.jsonl";
  std::string text = read_file(metrics);
  text.erase(text.rfind('\n', text.size() - 2) + 1);
  write_file_atomic(metrics, text);
  const auto cut = files_below(plain);
  CHECK_THROWS_WITH_AS(
      train_or_reuse(base, plain, quiet, "baseline"),
      doctest::Contains((metrics + " is not the file the finished run left").c_str()), Error);
  CHECK(files_below(plain) == cut);

  // A run finished before fingerprints were kept cannot be checked.
  write_file_atomic(plain + "/finished", "20\n");
  CHECK_THROWS_WITH_AS(train_or_reuse(base, plain, quiet, "baseline"),
                       doctest::Contains("it was finished before tapir kept them"), Error);
}

TEST_CASE("a run inside a comparison that is running is that comparison's to write") {
  TempDir tmp;
  const std::string cmp = tmp.file("cmp");
  const std::string run = tmp.file("cmp/baseline/seed-0");
  CHECK_NOTHROW(EnclosingFoldersLock(run, RunFolder::kKind));
  {
    const FolderLock lock(cmp, "comparison folder");
    CHECK(test_support::error_of([&] { EnclosingFoldersLock enclosing(run, RunFolder::kKind); }) ==
          "run folder " + run + " is inside comparison folder " +
              fs::weakly_canonical(cmp).string() +
              ", which is in use by another tapir process (pid " + std::to_string(::getpid()) +
              "); wait for it to finish or stop it, or choose another --out");
    CHECK(!fs::exists(run));
  }
  {
    // While the run is written on its own, the comparison cannot start.
    const EnclosingFoldersLock enclosing(run, RunFolder::kKind);
    CHECK_THROWS_WITH_AS(FolderLock(cmp, "comparison folder"),
                         doctest::Contains("is in use by another tapir process"), Error);
  }
  CHECK_NOTHROW(FolderLock(cmp, "comparison folder"));
}

TEST_CASE("a refused train, resume or search resume leaves a folder as it was, without a lock") {
  TempDir tmp;
  const std::string dir = tmp.folder("theirs");
  tmp.write("theirs/notes.txt", "mine");
  Trainer t(test_support::tiny_modadd(), dir);
  CHECK_THROWS_WITH_AS(t.start_fresh(false), doctest::Contains("already exists"), Error);
  CHECK_THROWS_WITH_AS(t.start_fresh(true),
                       doctest::Contains("--force replaces only a tapir run folder"), Error);
  CHECK_THROWS_WITH_AS(Trainer::resume(dir), doctest::Contains("no config.json in it"), Error);
  CHECK_THROWS_WITH_AS(resume_search_job(dir, 0, std::nullopt, std::nullopt, true),
                       doctest::Contains("no search.json in it"), Error);
  CHECK(files_below(dir) == std::map<std::string, std::string>{{"notes.txt", "mine"}});
  CHECK(!fs::exists(dir + "/.lock"));
}
