// A Stage I search stopped at any point continues from its last evaluation
// bit for bit: the shared functions, every model's weights, optimizer and
// RNGs, the staggered schedule and the logs. A damaged resume file is
// refused whole, naming the file and what is wrong, before anything in the
// folder changes.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <stdexcept>

#include "base/file_io.h"
#include "base/json.h"
#include "optim/search.h"
#include "tests/resume_files.h"
#include "tests/tiny_config.h"

using namespace tapir;
namespace fs = std::filesystem;

namespace {

std::string temp_dir(const std::string& name) {
  const fs::path p = fs::temp_directory_path() /
                     ("tapir_search_resume_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  return p.string();
}

// Staggered, so that the resumed part restarts models in new generations.
SearchConfig staggered() {
  SearchConfig s;
  TrainConfig& c = s.base;
  c = test_support::tiny_modadd({.steps = 8, .eval_every = 4});  // steps: a model's lifetime
  c.model.mlp_act = MlpAct::spline;
  c.model.mlp_spline.grid = SplineGrid(11, -4, 4, true);
  c.schedule.base_lr = 3e-3;
  s.models = 3;
  s.steps = 20;
  s.stagger = Stagger::reinit;
  s.snapshot_every = 2;
  return s;
}

// What stands in for a kill: an exception thrown once the search has saved
// the given step.
struct Stop : std::runtime_error {
  Stop() : std::runtime_error("stopped") {}
};

// The authors' protocol: models staggered to the end of the search, the
// weights and the functions on trapezoid schedules, D_arch from the train
// split, gradients averaged.
SearchConfig authors_protocol() {
  SearchConfig s = staggered();
  s.stagger = Stagger::continue_;
  s.base.schedule.kind = Schedule::Kind::trapezoid;
  s.base.schedule.warmup = 2;
  s.base.schedule.decay = 3;
  s.arch_schedule.kind = Schedule::Kind::trapezoid;
  s.arch_schedule.warmup = 3;
  s.arch_schedule.decay = 8;
  s.arch_split = ArchSplit::train;
  s.arch_grad = ArchGrad::mean;
  return s;
}

void run_until(const std::string& dir, int64_t stop_at, const SearchConfig& config = staggered()) {
  Search search(config, dir);
  Search::Events events;
  events.on_eval = [stop_at](int64_t step, double) {
    if (step == stop_at) throw Stop();
  };
  CHECK_THROWS_AS(search.run(events), Stop);
}

// Metrics lines without what differs between two folders anyway: the
// folder's own path ("run":"...",) and the wall clock (,"wall_s":N).
std::string comparable(std::string text) {
  for (size_t at; (at = text.find("\"run\":\"")) != std::string::npos;)
    text.erase(at, text.find("\",", at + 7) + 2 - at);
  for (size_t at; (at = text.find(",\"wall_s\":")) != std::string::npos;)
    text.erase(at, text.find_first_of(",}", at + 1) - at);
  return text;
}

// Every file of a search folder, by path below it (the lock file aside).
std::map<std::string, std::string> files_of(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().filename() == ".lock") continue;
    const std::string name = fs::relative(e.path(), dir).string();
    if (name == "resume.safetensors") continue;  // holds the clock
    std::string text = read_file(e.path().string());
    if (e.path().extension() == ".jsonl") text = comparable(text);
    if (name == "search_result.json") {  // its wall_s is the clock's, on a line of its own
      const size_t at = text.find("\"wall_s\"");
      REQUIRE(at != std::string::npos);
      text.erase(text.rfind('\n', at), text.find('\n', at) - text.rfind('\n', at));
    }
    out[name] = text;
  }
  return out;
}

// The two folders hold the same files, each with the same contents.
void check_same_files(const std::map<std::string, std::string>& a,
                      const std::map<std::string, std::string>& b) {
  std::vector<std::string> names_a, names_b;
  for (const auto& [name, text] : a) names_a.push_back(name);
  for (const auto& [name, text] : b) names_b.push_back(name);
  CHECK(names_a == names_b);
  for (const auto& [name, text] : a) {
    INFO(name);
    CHECK(b.count(name) == 1);
    if (b.count(name)) CHECK(text == b.at(name));
  }
}

}  // namespace

TEST_CASE("a search stopped and resumed writes what an uninterrupted one writes, bit for bit") {
  const std::string whole = temp_dir("whole"), cut = temp_dir("cut");
  {
    Search search(staggered(), whole);
    search.run();
  }
  run_until(cut, 12);
  // What a kill between two evaluations leaves behind: lines, a snapshot and
  // a model folder from after the saved step, and a torn line.
  append_line(cut + "/search.jsonl", R"({"step":14,"arch_loss":1,"active_models":3})");
  write_file_atomic(cut + "/snapshots/arch-step-00000014.safetensors", "partial");
  fs::create_directories(cut + "/models/model-2-gen-1");
  {
    // At step 12 models 0 and 1 are in their second generation, model 2 (from
    // step 5) in its first.
    const std::string metrics = cut + "/models/model-2/metrics.jsonl";
    write_file_atomic(metrics, read_file(metrics) + "{\"run\":\"x\",\"st");
  }
  CHECK_FALSE(fs::exists(cut + "/arch.safetensors"));

  const std::unique_ptr<Search> resumed = Search::resume(cut);
  CHECK(resumed->steps_done() == 12);
  const std::string& note = resumed->resume_note();
  CHECK(note.find("dropped 1 lines of " + cut + "/search.jsonl") != std::string::npos);
  CHECK(note.find("dropped the torn last line of " + cut + "/models/model-2/metrics.jsonl") !=
        std::string::npos);
  CHECK(note.find("removed 1 model folders started after step 12") != std::string::npos);
  CHECK(note.find("removed 1 snapshots taken after step 12") != std::string::npos);
  resumed->run();

  const auto a = files_of(whole), b = files_of(cut);
  CHECK(a.count("arch.safetensors") == 1);
  CHECK(a.count("models/model-0-gen-1/metrics.jsonl") == 1);  // restarts happened after step 12
  check_same_files(a, b);
  fs::remove_all(whole);
  fs::remove_all(cut);
}

TEST_CASE("a resumed search may be extended, never cut below the step it reached") {
  const std::string dir = temp_dir("extend");
  run_until(dir, 8);
  CHECK_THROWS_WITH_AS(Search::resume(dir, 6),
                       doctest::Contains("--search-steps 6 is below step 8"), Error);
  {
    const std::unique_ptr<Search> resumed = Search::resume(dir, 24);
    CHECK(resumed->steps_total() == 24);
  }
  // search.json now says 24: the extension is what a later resume continues.
  const SearchConfig stored = read_json_file(dir + "/search.json", SearchConfig::from_json);
  CHECK(stored.steps == 24);
  fs::remove_all(dir);
}

TEST_CASE("a damaged search resume file is refused whole, naming the file and the field") {
  const std::string dir = temp_dir("damaged");
  // At step 4: model 0 has taken 4 steps, model 1 (from step 2) 2, model 2
  // starts at step 5.
  run_until(dir, 4);
  const std::string path = dir + "/resume.safetensors";
  const std::string good = read_file(path);
  const std::string log = read_file(dir + "/search.jsonl");
  struct Case {
    std::string key, value;
    bool extra;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"step", "12abc", false, "metadata 'step'"},
      {"step", "99", false, "step 99 is beyond the search's end (20 steps"},
      {"format", "tapir.resume.v1", false, "expected 'tapir.search-resume.v1'"},
      {"model-1/step", "3", false, "metadata 'model-1/step' is 3, expected 2"},
      {"model-2/start", "0", false, "metadata 'model-2/start' is 0, expected 5"},
      {"model-0/generation", "1", false, "metadata 'model-0/start' is 0, expected 8"},
      {"model-0/generation", "5", false, "metadata 'model-0/generation' is 5"},
      {"untrained_accuracy", "nan", false, "metadata 'untrained_accuracy'"},
      {"", "", true, "tensor 'model-0/stray' is not part of this search's state"},
  };
  for (const Case& c : cases) {
    INFO(c.key);
    write_file_atomic(path, good);
    testing::rewrite_resume(dir, c.key, c.value, c.extra ? "model-0/stray" : "");
    CHECK_THROWS_WITH_AS(Search::resume(dir), doctest::Contains(path.c_str()), Error);
    CHECK_THROWS_WITH_AS(Search::resume(dir), doctest::Contains(c.message.c_str()), Error);
    CHECK(read_file(dir + "/search.jsonl") == log);  // nothing changed
  }
  fs::remove(path);
  CHECK_THROWS_WITH_AS(Search::resume(dir), doctest::Contains("no resume.safetensors in it"),
                       Error);
  fs::remove_all(dir);
}

TEST_CASE("a search resume file with a state no search reaches is refused, nothing changed") {
  const std::string dir = temp_dir("impossible");
  // At step 4: model 0 (seed 0) has taken 4 steps, model 1 (seed 1) 2.
  run_until(dir, 4);
  const std::string v = testing::resume_tensor_named(dir, "model-0/optim.adam.v.");
  REQUIRE(!v.empty());
  // Model 2 starts at step 5: no update yet.
  const std::string m = testing::resume_tensor_named(dir, "model-2/optim.adam.m.");
  REQUIRE(!m.empty());
  testing::check_refused(
      dir,
      {
          {[&] {
             testing::edit_resume_tensor<int32_t>(dir, "model-1/arch_rng",
                                                  [](auto& w) { w[1] += 5; });
           },
           "tensor 'model-1/arch_rng': the state of seed 6 stream 2, expected seed 1 stream 2 "
           "(from "
           "the config)"},
          {[&] {
             testing::edit_resume_tensor<int32_t>(dir, "model-0/data_rng",
                                                  [](auto& w) { w[3] = 2; });
           },
           "tensor 'model-0/data_rng': the state of seed 0 stream 2, expected seed 0 stream 1 "
           "(from "
           "the config)"},
          {[&] { testing::rewrite_resume(dir, "model-0/optimizer_steps", "3"); },
           "metadata 'model-0/optimizer_steps' is 3, expected 4 (one optimizer update per step of "
           "metadata 'model-0/step')"},
          {[&] { testing::rewrite_resume(dir, "optimizer_steps", "5"); },
           "metadata 'optimizer_steps' is 5, more than the 4 steps of metadata 'step'"},
          {[&] { testing::rewrite_resume(dir, "optimizer_steps", "3"); },
           "metadata 'optimizer_steps' is 3, expected 4 (the shared functions are updated once "
           "per search step)"},
          {[&] { testing::edit_resume_tensor<float>(dir, v, [](auto& x) { x[3] = -0.25f; }); },
           "optimizer state '" + v + "' holds -0.25 at element 3, expected a second moment >= 0"},
          {[&] { testing::edit_resume_tensor<float>(dir, m, [](auto& x) { x[1] = 0.5f; }); },
           "optimizer state '" + m +
               "' holds 0.5 at element 1, expected 0 before the first update (metadata "
               "'model-2/optimizer_steps' is 0)"},
      },
      [&] { Search::resume(dir); });
  CHECK_NOTHROW(Search::resume(dir));  // the intact file still resumes
  fs::remove_all(dir);
}

TEST_CASE("the authors' protocol (stagger continue, trapezoids) resumes bit for bit") {
  const std::string whole = temp_dir("authors_whole"), cut = temp_dir("authors_cut");
  {
    Search search(authors_protocol(), whole);
    search.run();
  }
  run_until(cut, 12, authors_protocol());  // mid-decay of the functions' schedule
  const std::unique_ptr<Search> resumed = Search::resume(cut);
  CHECK(resumed->steps_done() == 12);
  CHECK(resumed->config().stagger == Stagger::continue_);
  CHECK(resumed->arch_lr_now() == doctest::Approx(0.1 * 8 / 8));  // step 12 = 20 - 8
  resumed->run();
  CHECK(resumed->models().trainer(0).step() == 20);  // past its lifetime of 8, never restarted
  const auto a = files_of(whole), b = files_of(cut);
  CHECK(a.count("arch.safetensors") == 1);
  CHECK(a.count("models/model-0-gen-1/metrics.jsonl") == 0);
  check_same_files(a, b);
  fs::remove_all(whole);
  fs::remove_all(cut);
}

TEST_CASE("search.json written before stagger modes and arch schedules reads as it meant") {
  Json old = staggered().resolved().to_json();
  const auto erase = [](Json& object, const std::string& key) {
    Json::Object& members = object.as_object();
    std::erase_if(members, [&](const auto& member) { return member.first == key; });
  };
  erase(old, "stagger_mode");
  for (auto& [key, value] : old.as_object())
    if (key == "arch_optimizer")
      for (const char* name : {"schedule", "warmup", "decay", "min_ratio"}) erase(value, name);
  const SearchConfig back = SearchConfig::from_json(old);
  CHECK(back.stagger == Stagger::reinit);  // "stagger": true
  CHECK(back.arch_schedule.kind == Schedule::Kind::constant);
  CHECK(back.arch_lr_schedule().lr_at(0) == back.arch_lr);
  old.set("stagger", false);
  CHECK(SearchConfig::from_json(old).stagger == Stagger::off);
  SearchConfig later = authors_protocol().resolved();
  CHECK(SearchConfig::from_json(later.to_json()).stagger == Stagger::continue_);
  CHECK(to_json(SearchConfig::from_json(later.to_json()).to_json()) == to_json(later.to_json()));
}

TEST_CASE("search.json reads back as the config it was written from, and no other key") {
  const SearchConfig c = staggered().resolved();
  const SearchConfig back = SearchConfig::from_json(c.to_json());
  CHECK(to_json(back.to_json()) == to_json(c.to_json()));
  Json extra = c.to_json();
  extra.set("modles", 3);
  CHECK_THROWS_WITH_AS(SearchConfig::from_json(extra), doctest::Contains("unknown key 'modles'"),
                       Error);
  Json grad = c.to_json();
  grad.set("arch_grad", "median");
  CHECK_THROWS_WITH_AS(SearchConfig::from_json(grad),
                       doctest::Contains("key 'arch_grad': unknown D_arch gradient combination "
                                         "'median' (known: sum, mean)"),
                       Error);
}

TEST_CASE("search.json keeps its keys, their order and the spelling of its choices") {
  SearchConfig c = staggered().resolved();
  c.arch_grad = ArchGrad::mean;
  const Json j = c.to_json();
  std::string keys;
  for (const auto& [key, value] : j.as_object()) keys += key + " ";
  CHECK(keys ==
        "base models steps stagger stagger_mode arch_optimizer arch_grad arch_split smoothness "
        "amplitude arch_batch snapshot_every ");
  CHECK(j.at("stagger").as_bool());
  CHECK(j.at("stagger_mode").as_string() == "reinit");
  CHECK(to_json(j.at("arch_optimizer")) ==
        R"({"name":"adam","lr":0.1,"beta1":0.99,"beta2":0.999,"eps":1e-08,"schedule":"constant",)"
        R"("warmup":0,"decay":0,"min_ratio":0.0})");
  CHECK(j.at("arch_grad").as_string() == "mean");
  CHECK(j.at("arch_split").as_string() == "arch");
  CHECK(SearchConfig::from_json(j).arch_grad == ArchGrad::mean);
}

TEST_CASE("a resume checks every log before it cuts any") {
  const std::string dir = temp_dir("logs");
  run_until(dir, 8);
  // A line after the resumed step in the search's log, to be dropped, and a
  // damaged line in the log of the last model that has one.
  append_line(dir + "/search.jsonl", "{\"step\": 99}");
  std::string damaged;
  for (int m = 2; m >= 0 && damaged.empty(); --m)
    for (const char* gen : {"-gen-1", ""}) {
      const std::string path = dir + "/models/model-" + std::to_string(m) + gen + "/metrics.jsonl";
      if (damaged.empty() && fs::exists(path)) damaged = path;
    }
  REQUIRE(!damaged.empty());
  write_file_atomic(damaged, "not a log line\n" + read_file(damaged));
  const std::map<std::string, std::string> before = files_of(dir);
  CHECK_THROWS_WITH_AS(
      Search::resume(dir),
      doctest::Contains((damaged + ": line 1 is not a log line with a step").c_str()), Error);
  CHECK(files_of(dir) == before);
  fs::remove_all(dir);
}
