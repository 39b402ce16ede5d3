// A run is what its checkpoint says (optim/run_identity.h): a config.json
// edited after training, a tokenizer put in place of the run's copy or a
// corpus changed since is refused by what evaluates a run (open_run) and by
// train --resume, naming the field or file and both values, with the folder
// left byte for byte as it was; what a reader sets for itself (a resume's
// steps, device and threads, an evaluation's task-option overrides) is not.
#include <doctest/doctest.h>

#include <filesystem>

#include "base/file_io.h"
#include "optim/model_run.h"
#include "optim/run_folder.h"
#include "optim/run_identity.h"
#include "optim/search.h"
#include "optim/trainer.h"
#include "tasks/tokenizer.h"
#include "tests/resume_files.h"
#include "tests/test_support.h"
#include "tests/tiny_config.h"

using namespace tapir;
namespace fs = std::filesystem;
using test_support::TempDir;
using testing::files_below;

namespace {

void train(const TrainConfig& c, const std::string& dir) {
  Trainer t(c, dir);
  t.start_fresh(false);
  t.run();
}

TrainConfig tiny() {
  return test_support::tiny_modadd({.steps = 4, .eval_every = 2});
}

// Rewrites the configuration file (config.json in a folder, or the file
// named) with `edit` applied to its JSON.
template <class Edit>
void edit_config(const std::string& where, Edit edit) {
  const std::string path = fs::is_directory(where) ? where + "/config.json" : where;
  Json j = parse_json(read_file(path));
  edit(j);
  write_file_atomic(path, to_json(j, 2));
}

// Sets `key` of the object member `group` of `j`.
void set_in(Json& j, const std::string& group, const std::string& key, Json value) {
  for (auto& [name, member] : j.as_object())
    if (name == group) {
      member.set(key, std::move(value));
      return;
    }
  FAIL("config.json has no ", group);
}

// Both readers refuse with `before` + the file they read + `after`, and the
// folder is as it was.
void check_refused(const std::string& dir, const std::string& before, const std::string& after) {
  const auto files = files_below(dir);
  const std::string eval = before + dir + "/checkpoint.safetensors" + after;
  const std::string resume = before + dir + "/resume.safetensors" + after;
  CHECK_THROWS_WITH_AS(open_run(dir), doctest::Contains(eval.c_str()), Error);
  CHECK_THROWS_WITH_AS(Trainer::resume(dir, 6), doctest::Contains(resume.c_str()), Error);
  CHECK(files_below(dir) == files);
}

std::string corpus_text(const char* animal) {
  std::string text;
  for (int i = 0; i < 300; ++i)
    text += std::string("the ") + animal + " " + std::to_string(i) + " sat on the mat.\n";
  return text;
}

}  // namespace

TEST_CASE("json_leaves and json_differences name fields by their dotted path") {
  const Json a =
      parse_json(R"({"model": {"qk_norm": false, "width": 16}, "tags": [1, 2], "o": {}})");
  const Json b = parse_json(R"({"model": {"qk_norm": true, "width": 16}, "tags": [1, 2], "x": 1})");
  const auto leaves = json_leaves(a);
  CHECK(leaves.size() == 4);
  CHECK(leaves.at("model.qk_norm") == Json(false));
  CHECK(leaves.at("tags") == parse_json("[1, 2]"));
  CHECK(leaves.at("o") == Json::object());  // an empty object is a leaf
  CHECK(json_differences(a, b) == std::vector<std::string>{"model.qk_norm", "o", "x"});
  CHECK(json_differences(a, a).empty());
}

TEST_CASE("an edited config.json field is refused by eval and resume, naming it and both values") {
  TempDir tmp;
  const std::string dir = tmp.file("run");
  train(tiny(), dir);
  CHECK_NOTHROW(open_run(dir));
  const std::string config = dir + "/config.json";
  const std::string good = read_file(config);
  // Fields that leave every tensor's shape as it was.
  edit_config(dir, [](Json& j) { set_in(j, "model", "qk_norm", true); });
  check_refused(dir, config + ": model.qk_norm is true, but ", " was trained with false");
  write_file_atomic(config, good);
  edit_config(dir, [](Json& j) { set_in(j, "model", "norm", "rms"); });
  check_refused(dir, "model.norm is \"rms\", but ", " was trained with \"layer\"");
  write_file_atomic(config, good);
  edit_config(dir, [](Json& j) { set_in(j, "schedule", "lr", 0.5); });
  check_refused(dir, "schedule.lr is 0.5, but ", " was trained with 0.001");
  write_file_atomic(config, good);
  edit_config(dir, [](Json& j) { set_in(j, "task_options", "data-seed", "7"); });
  check_refused(dir, "task_options.data-seed is \"7\", but ", " was trained without it");
  write_file_atomic(config, good);
  // What a reader sets for itself: the steps of a resume that extends the
  // run, an evaluation's limit, threads and device.
  edit_config(dir, [](Json& j) {
    j.set("threads", 2);
    j.set("eval_limit", 8);
  });
  CHECK_NOTHROW(open_run(dir));
  CHECK_NOTHROW(Trainer::resume(dir, 6, std::nullopt, std::nullopt, /*writes=*/false));
}

TEST_CASE("an evaluation's task-option override is its own; the saved options are still checked") {
  TempDir tmp;
  const std::string dir = tmp.file("run");
  train(tiny(), dir);
  TaskOptions overrides;
  overrides.set("data-seed", "3");
  CHECK_NOTHROW(open_run(dir, overrides));
  edit_config(dir, [](Json& j) { set_in(j, "model", "rope_base", 500.0); });
  CHECK_THROWS_WITH_AS(open_run(dir, overrides), doctest::Contains("model.rope_base is 500.0"),
                       Error);
}

TEST_CASE("a checkpoint from before the record is checked on its model alone") {
  TempDir tmp;
  const std::string dir = tmp.file("run");
  train(tiny(), dir);
  // The checkpoint as tapir wrote it before: no "run" metadata.
  const std::string path = dir + "/checkpoint.safetensors";
  std::string older;
  {
    const SafeTensorsFile file = SafeTensorsFile::load(path);
    std::vector<SafeTensorWrite> writes;
    for (const SafeTensorView& v : file.tensors())
      writes.push_back({v.name, v.dtype, v.shape, v.data});
    Metadata meta;
    for (const auto& [key, value] : file.metadata())
      if (key != kRunIdentityKey) meta.emplace_back(key, value);
    older = encode_safetensors(writes, meta);
  }
  write_file_atomic(path, older);
  edit_config(dir, [](Json& j) { set_in(j, "schedule", "lr", 0.5); });
  CHECK_NOTHROW(open_run(dir));  // not recorded then: not checked
  edit_config(dir, [](Json& j) { set_in(j, "model", "qk_norm", true); });
  CHECK_THROWS_WITH_AS(open_run(dir), doctest::Contains("model.qk_norm is true, but"), Error);
}

TEST_CASE(
    "a swapped tokenizer copy or a changed corpus is refused; another corpus on purpose is not") {
  TempDir tmp;
  const std::string corpus = tmp.write("corpus.txt", corpus_text("cat"));
  const std::string other = tmp.write("other.txt", corpus_text("dog"));
  TokenizerSpec spec;
  spec.vocab_size = 300;
  const std::string tokenizer = tmp.write("tok.model", train_tokenizer(read_file(corpus), spec));
  const std::string swapped = train_tokenizer(read_file(other), spec);
  REQUIRE(swapped != read_file(tokenizer));
  TrainConfig c = tiny();
  c.task = "text";
  c.task_options = TaskOptions();
  c.task_options.set("path", corpus);
  c.task_options.set("tokenizer", tokenizer);
  c.task_options.set("context", "16");
  const std::string dir = tmp.file("run");
  train(c, dir);
  CHECK_NOTHROW(open_run(dir));

  const std::string copy = dir + "/tokenizer.model";
  const std::string own = read_file(copy);
  write_file_atomic(copy, swapped);
  check_refused(dir, copy + " is not the tokenizer ", " was trained with");
  write_file_atomic(copy, own);

  const std::string text = read_file(corpus);
  write_file_atomic(corpus, text + "one more line.\n");
  const auto before = files_below(dir);
  CHECK_THROWS_WITH_AS(open_run(dir),
                       doctest::Contains((corpus + " is not the corpus " + dir).c_str()), Error);
  CHECK(files_below(dir) == before);
  TaskOptions overrides;
  overrides.set("path", other);  // evaluated on another text, as asked
  CHECK_NOTHROW(open_run(dir, overrides));
  write_file_atomic(corpus, text);
  CHECK_NOTHROW(open_run(dir));
}

TEST_CASE("an edited search.json is refused by search --resume before anything changes") {
  TempDir tmp;
  SearchConfig s;
  s.base = test_support::tiny_modadd({.steps = 4, .eval_every = 2});
  s.base.model.mlp_act = MlpAct::spline;
  s.base.model.mlp_spline.grid = SplineGrid(9, -4, 4, true);
  s.models = 2;
  s.steps = 4;
  const std::string dir = tmp.file("search");
  Search(s, dir).run();
  const std::string config = dir + "/search.json";
  const std::string good = read_file(config);
  CHECK_NOTHROW(Search::resume(dir, 6));  // an extension sets the steps anew
  write_file_atomic(config, good);
  edit_config(dir + "/search.json", [](Json& j) {
    for (auto& [name, base] : j.as_object())
      if (name == "base") set_in(base, "model", "qk_norm", true);
  });
  const auto before = files_below(dir);
  CHECK_THROWS_WITH_AS(Search::resume(dir, 6),
                       doctest::Contains((config + ": base.model.qk_norm is true, but " + dir +
                                          "/resume.safetensors was trained with false")
                                             .c_str()),
                       Error);
  CHECK(files_below(dir) == before);
}
