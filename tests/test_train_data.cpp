// What a run trains on: outside Stage I the whole training distribution D
// (the task's train and arch splits together, as the paper's Stage II), or
// with --train-on train the train split alone. Checks that folding the arch
// split in adds exactly its examples and leaves every evaluation set as it
// was, for every task; that config.json files written before the field read
// as the train split; and that a search keeps the arch split out.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <vector>

#include "optim/model_run.h"
#include "optim/search_config.h"
#include "tests/tiny_config.h"

using namespace tapir;

namespace {

// Every example of a split's fixed evaluation set, as its rows of tokens.
std::vector<std::vector<int32_t>> eval_rows(const Task& task, const std::string& split) {
  Batch batch;
  const int64_t n = std::min<int64_t>(task.eval_size(split), 300);
  task.eval_batch(split, 0, n, batch);
  std::vector<std::vector<int32_t>> rows;
  for (int64_t b = 0; b < batch.B; ++b)
    rows.emplace_back(batch.tokens.begin() + b * batch.T, batch.tokens.begin() + (b + 1) * batch.T);
  return rows;
}

TaskOptions options_of(const std::string& task) {
  TaskOptions o;
  if (task == "text")
    o.set("path", (std::filesystem::path(__FILE__).parent_path() / "data" / "tiny.txt").string());
  return o;
}

}  // namespace

TEST_CASE("training on all of D folds modadd's arch pairs into train and keeps test") {
  TrainConfig held_out = test_support::tiny_modadd({.p = "23"});
  held_out.train_on = TrainOn::train;
  TrainConfig all = held_out;
  all.train_on = TrainOn::all;
  const auto split_task = make_training_task(held_out);
  const auto d_task = make_training_task(all);
  REQUIRE(split_task->eval_size("arch") > 0);

  // modadd's "train" evaluation set enumerates its training pairs.
  std::multiset<std::vector<int32_t>> d, train_and_arch;
  for (const auto& row : eval_rows(*d_task, "train")) d.insert(row);
  for (const auto& row : eval_rows(*split_task, "train")) train_and_arch.insert(row);
  for (const auto& row : eval_rows(*split_task, "arch")) train_and_arch.insert(row);
  CHECK(d_task->eval_size("train") ==
        split_task->eval_size("train") + split_task->eval_size("arch"));
  if (d_task->eval_size("train") <= 300) CHECK(d == train_and_arch);
  CHECK(eval_rows(*d_task, "test") == eval_rows(*split_task, "test"));
}

TEST_CASE("training on all of D leaves every task's evaluation sets unchanged") {
  for (const TaskSpec& spec : task_registry()) {
    CAPTURE(spec.name);
    TrainConfig c;
    c.task = spec.name;
    c.task_options = options_of(spec.name);
    c.train_on = TrainOn::train;
    const auto split_task = make_training_task(c);
    c.train_on = TrainOn::all;
    const auto d_task = make_training_task(c);
    for (const std::string& split : split_task->eval_splits()) {
      if (split == "train") continue;  // modadd's evaluation of its training pairs: D itself
      CAPTURE(split);
      CHECK(eval_rows(*d_task, split) == eval_rows(*split_task, split));
    }
    // The arch split (where the task has one) is folded in: a run on all of
    // D has none of its own.
    Batch batch;
    Rng rng(1, 1);
    TaskOptions asked = c.task_options;
    make_task(spec.name, asked);
    if (!asked.asked("arch-frac")) continue;  // denoise: fresh draws, no holdout to fold in
    CHECK_NOTHROW(split_task->sample("arch", 1, rng, batch));
    CHECK_THROWS(d_task->sample("arch", 1, rng, batch));
  }
}

TEST_CASE("train_on: all by default, written to config.json, absent in older files means train") {
  TrainConfig c = resolved_config(test_support::tiny_modadd());
  CHECK(c.train_on == TrainOn::all);
  CHECK(TrainConfig::from_json(c.to_json()).train_on == TrainOn::all);
  c.train_on = TrainOn::train;
  CHECK(TrainConfig::from_json(c.to_json()).train_on == TrainOn::train);

  Json old = c.to_json();
  std::erase_if(old.as_object(), [](const Json::Member& m) { return m.first == "train_on"; });
  CHECK(TrainConfig::from_json(old).train_on == TrainOn::train);
}

TEST_CASE("a run on all of D builds its task without the arch split; a search keeps it") {
  TrainConfig c = test_support::tiny_modadd({.p = "23"});
  ModelRun run = build_run(c);
  CHECK(run.task->describe().find("arch-frac=0 ") != std::string::npos);

  SearchConfig s;
  s.base = c;
  CHECK(s.resolved().base.train_on == TrainOn::train);
  ModelRun stage_one = build_run(s.resolved().base);
  CHECK(stage_one.task->eval_size("arch") > 0);
}
