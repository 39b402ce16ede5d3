// What keeps a run folder safe: one writer at a time (a lock a killed
// process does not leave behind), stale temporary files removed, --force
// only over tapir's own folders, resume files checked whole before anything
// changes, torn metrics lines, non-finite values refused on load, and
// reuse only of runs trained with the same options.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "base/file_io.h"
#include "base/folder_lock.h"
#include "lab/compare.h"
#include "lab/progress.h"
#include "nn/architecture.h"
#include "nn/checkpoint.h"
#include "optim/trainer.h"
#include "tests/resume_files.h"
#include "tests/tiny_config.h"

using namespace tapir;
namespace fs = std::filesystem;

namespace {

std::string temp_dir(const std::string& name) {
  const fs::path p =
      fs::temp_directory_path() / ("tapir_safety_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  return p.string();
}

TrainConfig tiny() {
  return test_support::tiny_modadd();
}

// A finished tiny run in `dir`.
void train_tiny(const std::string& dir, const TrainConfig& c = tiny()) {
  Trainer t(c, dir);
  t.start_fresh(false);
  t.run();
}

using tapir::testing::rewrite_resume;

}  // namespace

TEST_CASE("a folder has one writer; the lock of a killed process does not block") {
  const std::string dir = temp_dir("lock");
  {
    const FolderLock held(dir, "run folder");
    CHECK_THROWS_WITH_AS(
        FolderLock(dir, "run folder"),
        doctest::Contains(("run folder " + dir + " is in use by another tapir process (pid " +
                           std::to_string(::getpid()) + ")")
                              .c_str()),
        Error);
  }
  CHECK_NOTHROW(FolderLock(dir, "run folder"));  // released with its holder

  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    FolderLock held(dir, "run folder");
    ::raise(SIGKILL);  // dies holding it
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WIFSIGNALED(status));
  CHECK_NOTHROW(FolderLock(dir, "run folder"));
  fs::remove_all(dir);
}

TEST_CASE("two trainers on one folder: the second stops at once") {
  const std::string dir = temp_dir("two");
  Trainer first(tiny(), dir);
  first.start_fresh(false);
  Trainer second(tiny(), dir);
  CHECK_THROWS_WITH_AS(second.start_fresh(true), doctest::Contains("is in use"), Error);
  CHECK_THROWS_WITH_AS(Trainer::resume(dir), doctest::Contains("is in use"), Error);
  fs::remove_all(dir);
}

TEST_CASE("taking the lock removes a killed writer's temporary files, and only those") {
  const std::string dir = temp_dir("stale");
  fs::create_directories(dir);
  mark_folder(dir, RunFolder::kKind);  // a run folder tapir made
  write_file_atomic(dir + "/checkpoint.safetensors.tmp.12345", "half");
  write_file_atomic(dir + "/notes.tmp.mine", "a user's file");
  { const FolderLock lock(dir, RunFolder::kKind, RunFolder::written()); }
  CHECK(!fs::exists(dir + "/checkpoint.safetensors.tmp.12345"));
  CHECK(fs::exists(dir + "/notes.tmp.mine"));
  fs::remove_all(dir);
}

TEST_CASE("--force replaces only a folder tapir made") {
  const std::string dir = temp_dir("force");
  fs::create_directories(dir);
  write_file_atomic(dir + "/config.json", "{\"mine\": true}\n");
  write_file_atomic(dir + "/metrics.jsonl", "my data\n");
  Trainer t(tiny(), dir);
  CHECK_THROWS_WITH_AS(t.start_fresh(true),
                       doctest::Contains("--force replaces only a tapir run folder"), Error);
  CHECK(read_file(dir + "/metrics.jsonl") == "my data\n");
  CHECK(read_file(dir + "/config.json") == "{\"mine\": true}\n");

  const std::string run = temp_dir("force-run");
  train_tiny(run);
  Trainer again(tiny(), run);
  CHECK_NOTHROW(again.start_fresh(true));  // a tapir run: replaced
  CHECK(!fs::exists(run + "/metrics.jsonl"));
  fs::remove_all(dir);
  fs::remove_all(run);
}

TEST_CASE("a damaged resume file stops the resume before anything in the folder changes") {
  const std::string dir = temp_dir("resume");
  TrainConfig c = tiny();
  c.steps = 10;
  train_tiny(dir, c);
  const std::string metrics = read_file(dir + "/metrics.jsonl");
  const std::string config = read_file(dir + "/config.json");
  const std::string resume = read_file(dir + "/resume.safetensors");
  const auto restore = [&] { write_file_atomic(dir + "/resume.safetensors", resume); };
  struct Case {
    std::string key, value, message;
  };
  for (const Case& k : std::vector<Case>{
           {"step", "12abc", "metadata 'step': expected a non-negative integer, got '12abc'"},
           {"step", "-5", "metadata 'step': expected a non-negative integer, got '-5'"},
           {"step", "", "metadata 'step': expected a non-negative integer, got ''"},
           {"step", "11", "step 11 is beyond the run's end (10 steps in config.json)"},
           {"optimizer_steps", "x", "metadata 'optimizer_steps'"},
           {"wall_s", "nan", "metadata 'wall_s'"},
           {"format", "tapir.checkpoint.v1", "metadata 'format'"}}) {
    CAPTURE(k.key);
    CAPTURE(k.value);
    rewrite_resume(dir, k.key, k.value);
    CHECK_THROWS_WITH_AS(Trainer::resume(dir, 40), doctest::Contains(k.message.c_str()), Error);
    CHECK(read_file(dir + "/metrics.jsonl") == metrics);
    CHECK(read_file(dir + "/config.json") == config);
    restore();
  }
  rewrite_resume(dir, "step", "10", "stray");
  CHECK_THROWS_WITH_AS(Trainer::resume(dir, 40),
                       doctest::Contains("tensor 'stray' is not part of this run's state"), Error);
  restore();
  CHECK_THROWS_WITH_AS(Trainer::resume(dir, 5), doctest::Contains("--steps 5 is below step 10"),
                       Error);
  CHECK(read_file(dir + "/config.json") == config);
  auto resumed = Trainer::resume(dir, 20);  // the intact file still resumes
  CHECK(resumed->step() == 10);
  fs::remove_all(dir);
}

TEST_CASE("a torn last metrics line is dropped on resume; a damaged earlier line is an error") {
  const std::string dir = temp_dir("torn");
  TrainConfig c = tiny();
  c.steps = 10;
  train_tiny(dir, c);
  const std::string whole = read_file(dir + "/metrics.jsonl");
  write_file_atomic(dir + "/metrics.jsonl", whole + "{\"step\":20,\"spl");
  {
    auto resumed = Trainer::resume(dir, 20);
    CHECK(resumed->resume_note().find("dropped the torn last line") != std::string::npos);
    CHECK(read_file(dir + "/metrics.jsonl") == whole);
  }
  write_file_atomic(dir + "/metrics.jsonl", "garbage\n" + whole);
  CHECK_THROWS_WITH_AS(Trainer::resume(dir, 20),
                       doctest::Contains("metrics.jsonl: line 1 is not a log line with a step"),
                       Error);
  fs::remove_all(dir);
}

TEST_CASE("checkpoints and architecture files with NaN or Inf are refused, naming the tensor") {
  const std::string dir = temp_dir("nan-file");
  train_tiny(dir);
  const std::string path = dir + "/checkpoint.safetensors";
  const SafeTensorsFile file = SafeTensorsFile::load(path);
  std::vector<SafeTensorWrite> writes;
  std::vector<float> poisoned;
  for (const SafeTensorView& v : file.tensors()) {
    if (writes.empty()) {
      poisoned.assign(reinterpret_cast<const float*>(v.data),
                      reinterpret_cast<const float*>(v.data) + v.nbytes / 4);
      poisoned[1] = std::numeric_limits<float>::infinity();
      writes.push_back({v.name, v.dtype, v.shape, poisoned.data()});
    } else {
      writes.push_back({v.name, v.dtype, v.shape, v.data});
    }
  }
  save_safetensors(path, writes, file.metadata());
  Trainer t(tiny(), "");
  CHECK_THROWS_WITH_AS(
      load_parameters(SafeTensorsFile::load(path), t.model().parameters(), path),
      doctest::Contains(
          ("parameter '" + std::string(writes.front().name) + "' holds inf at element 1").c_str()),
      Error);
  fs::remove_all(dir);
}

TEST_CASE("a run stopped by divergence before its first checkpoint says there is none") {
  TrainConfig c = tiny();
  c.clip = 0;
  const std::string dir = temp_dir("diverge");
  Trainer t(c, dir);
  t.start_fresh(false);
  t.model().parameters()[0]->tensor().data<float>()[0] = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH_AS(t.run(), doctest::Contains("at step 1; no checkpoint was saved yet"), Error);
  fs::remove_all(dir);
}

TEST_CASE("compare reuses a run only when it was trained with the same options") {
  const std::string dir = temp_dir("reuse");
  Progress quiet(Progress::Style::quiet);
  train_or_reuse(tiny(), dir, quiet, "tiny");
  CHECK_NOTHROW(train_or_reuse(tiny(), dir, quiet, "tiny"));  // the same: reused
  TrainConfig other = tiny();
  other.schedule.base_lr = 0.01;
  other.steps = 30;
  CHECK_THROWS_WITH_AS(train_or_reuse(other, dir, quiet, "tiny"),
                       doctest::Contains("(schedule.lr, schedule.total, steps differ)"), Error);
  TrainConfig threads = tiny();
  threads.threads = 2;
  CHECK_NOTHROW(train_or_reuse(threads, dir, quiet, "tiny"));  // threads do not count
  fs::remove_all(dir);
}

TEST_CASE("a finished run records its build; reusing another build's runs warns") {
  const std::string dir = temp_dir("build"), unfinished = temp_dir("build-unfinished");
  Progress quiet(Progress::Style::quiet);
  set_build_stamp("tapir 0.1, commit aaaaaaa, Release, x86-64-v3");
  train_or_reuse(tiny(), dir, quiet, "tiny");
  CHECK(recorded_build(dir) == "tapir 0.1, commit aaaaaaa, Release, x86-64-v3");
  CHECK(read_run(dir, {0.5}).build == "tapir 0.1, commit aaaaaaa, Release, x86-64-v3");
  CHECK(other_build_warning({dir, unfinished}).empty());  // the same build: no warning

  set_build_stamp("tapir 0.1, commit bbbbbbb, Release, x86-64-v3");
  const std::string warning = other_build_warning({dir, unfinished});
  CHECK(warning.find("reusing 1 finished run trained by another build (" + dir +
                     ": tapir 0.1, commit aaaaaaa, Release, x86-64-v3; this is tapir 0.1, "
                     "commit bbbbbbb, Release, x86-64-v3)") != std::string::npos);
  CHECK_NOTHROW(train_or_reuse(tiny(), dir, quiet, "tiny"));  // still reused
  CHECK(recorded_build(dir) == "tapir 0.1, commit aaaaaaa, Release, x86-64-v3");

  // A marker from before runs recorded their build counts as another build.
  Json marker = read_json_file(dir + "/" + RunFolder::kFinished);
  Json without = Json::object();
  for (const auto& [key, value] : marker.as_object())
    if (key != "build") without.set(key, value);
  write_file_atomic(dir + "/" + RunFolder::kFinished, to_json(without, 2) + "\n");
  CHECK(recorded_build(dir).empty());
  CHECK(other_build_warning({dir}).find("a build that did not record itself") != std::string::npos);

  set_build_stamp("");  // no stamp (as in the other tests): nothing compared
  CHECK(other_build_warning({dir}).empty());
  fs::remove_all(dir);
}

TEST_CASE("an architecture file with a NaN knot is refused, naming the function") {
  TrainConfig c = tiny();
  c.model.mlp_act = MlpAct::spline;
  Trainer t(c, "");
  Architecture arch = architecture_of(t.model());
  REQUIRE(!arch.functions.empty());
  arch.functions.front().values[2] = std::numeric_limits<float>::quiet_NaN();
  const std::string path = temp_dir("arch") + ".safetensors";
  save_architecture(path, arch);
  CHECK_THROWS_WITH_AS(
      load_architecture(path),
      doctest::Contains(
          ("function '" + arch.functions.front().name + "' holds nan at element 2").c_str()),
      Error);
  fs::remove(path);
}

TEST_CASE("a bad task option in config.json names the file") {
  const std::string dir = temp_dir("task_option");
  train_tiny(dir);
  const std::string path = dir + "/config.json";
  std::string text = read_file(path);
  const size_t at = text.find("\"p\": \"11\"");
  REQUIRE(at != std::string::npos);
  text.replace(at, 9, "\"p\": \"1x\"");
  write_file_atomic(path, text);
  const std::string expected = path + ": option p: expected an integer, got '1x'";
  CHECK_THROWS_WITH_AS(Trainer::resume(dir), expected.c_str(), Error);
  CHECK_THROWS_WITH_AS(open_run(dir), expected.c_str(), Error);
  fs::remove_all(dir);
}

TEST_CASE("a resume file with a state no run reaches is refused before anything changes") {
  const std::string dir = temp_dir("impossible");
  TrainConfig c = tiny();
  c.steps = 10;
  train_tiny(dir, c);
  const std::string v = testing::resume_tensor_named(dir, "optim.adam.v.");
  REQUIRE(!v.empty());
  const std::string seed = std::to_string(c.seed);
  testing::check_refused(
      dir,
      {
          {[&] {
             testing::edit_resume_tensor<int32_t>(dir, "data_rng", [](auto& w) { w[1] += 1; });
           },
           "tensor 'data_rng': the state of seed " + std::to_string(c.seed + 1) +
               " stream 1, expected seed " + seed + " stream 1 (from the config)"},
          {[&] {
             testing::edit_resume_tensor<int32_t>(dir, "data_rng", [](auto& w) { w[3] = 0; });
           },
           "tensor 'data_rng': the state of seed " + seed + " stream 0, expected seed " + seed +
               " stream 1 (from the config)"},
          {[&] { rewrite_resume(dir, "optimizer_steps", "9"); },
           "metadata 'optimizer_steps' is 9, expected 10 (one optimizer update per step of "
           "metadata 'step')"},
          {[&] { rewrite_resume(dir, "optimizer_steps", "11"); },
           "metadata 'optimizer_steps' is 11, more than the 10 steps of metadata 'step'"},
          {[&] { testing::edit_resume_tensor<float>(dir, v, [](auto& x) { x[3] = -0.25f; }); },
           "optimizer state '" + v + "' holds -0.25 at element 3, expected a second moment >= 0"},
      },
      [&] { Trainer::resume(dir, 20); });
  CHECK(Trainer::resume(dir, 20)->step() == 10);  // the intact file still resumes
  fs::remove_all(dir);
}
