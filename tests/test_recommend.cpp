// Tasks' recommended training settings (optim/recommend.h): applied for the
// flags not given, never over one given on the command line or in a --config
// file, every task's settings are flags the table knows with values that
// make a valid configuration, and every task's learning rate decays.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "optim/recommend.h"
#include "tools/config_file.h"
#include "tools/train_options.h"

using namespace tapir;

TEST_CASE("modadd's recommended settings apply where no flag was given") {
  TrainConfig c;
  c.task = "modadd";
  const std::vector<TaskSetting> applied = apply_recommended(c, nullptr);
  CHECK(format_settings(applied) ==
        "--layers 1 --batch 512 --lr 3e-3 --weight-decay 1 --schedule cosine --min-lr-ratio 0.05");
  CHECK(c.model.layers == 1);
  CHECK(c.batch == 512);
  CHECK(c.schedule.base_lr == doctest::Approx(3e-3));
  CHECK(c.optimizer.weight_decay == 1.0);
  CHECK(c.schedule.kind == Schedule::Kind::cosine);
  CHECK(c.schedule.min_ratio == 0.05);

  TrainConfig d;
  d.task = "modadd";
  d.schedule.base_lr = 1e-2;
  const auto given = [](const std::string& flag) { return flag == "--lr" || flag == "--batch"; };
  CHECK(format_settings(apply_recommended(d, given)) ==
        "--layers 1 --weight-decay 1 --schedule cosine --min-lr-ratio 0.05");
  CHECK(d.schedule.base_lr == 1e-2);
  const TrainConfig defaults;
  CHECK(d.batch == defaults.batch);
}

TEST_CASE("every task's recommended settings are known flags that make a valid configuration") {
  const std::vector<std::string> known = recommendable_flags();
  for (const TaskSpec& spec : task_registry()) {
    CAPTURE(spec.name);
    for (const TaskSetting& s : spec.recommended)
      CHECK(std::find(known.begin(), known.end(), s.flag) != known.end());
    TrainConfig c;
    c.task = spec.name;
    CHECK(apply_recommended(c, nullptr).size() == spec.recommended.size());
    if (spec.name != "text") CHECK_NOTHROW(c.validate());  // text needs its path
  }
}

TEST_CASE("every task's recommended learning rate decays over --steps to a small floor") {
  // The end of a run is the checkpoint people keep: it must not land on a
  // spike of a learning rate still at its peak.
  for (const TaskSpec& spec : task_registry()) {
    CAPTURE(spec.name);
    TrainConfig c;
    c.task = spec.name;
    c.steps = 3000;
    apply_recommended(c, nullptr);
    Schedule s = c.schedule;
    s.total = c.steps;  // as complete_config sets it
    CHECK(s.kind != Schedule::Kind::constant);
    CHECK(s.lr_at(s.warmup) == doctest::Approx(s.base_lr));
    CHECK(s.lr_at(c.steps - 1) <= 0.1 * s.base_lr);
    CHECK(s.lr_at(c.steps / 2) < s.base_lr);
  }
}

namespace {

// `tapir train ARGS` parsed as tools/main.cpp parses it (a --config file with
// [train] sections), then finished and given the task's recommendations.
TrainConfig parse_train(const std::vector<std::string>& args) {
  CLI::App app{"tapir"};
  add_config_option(app);
  CLI::App* train = app.add_subcommand("train", "");
  TrainOptions o;
  add_train_options(*train, o);
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  reversed.push_back("train");
  app.parse(reversed);
  TrainConfig c = finish_train_options(*train, o);
  recommend_unless_given(*train, c);
  return c;
}

}  // namespace

TEST_CASE("a flag on the command line or in a --config file wins over the recommendation") {
  TrainConfig plain = parse_train({"--task", "modadd"});
  CHECK(plain.batch == 512);
  CHECK(plain.model.layers == 1);

  TrainConfig flag = parse_train({"--task", "modadd", "--batch", "64", "--layers", "2"});
  CHECK(flag.batch == 64);
  CHECK(flag.model.layers == 2);
  CHECK(flag.optimizer.weight_decay == 1.0);

  const std::string path =
      (std::filesystem::temp_directory_path() / "tapir_test_recommend.toml").string();
  {
    std::ofstream out(path);
    out << "[train]\ntask = \"modadd\"\nbatch = 128\nweight-decay = 0.5\n";
  }
  TrainConfig file = parse_train({"--config", path});
  std::remove(path.c_str());
  CHECK(file.batch == 128);
  CHECK(file.optimizer.weight_decay == 0.5);
  CHECK(file.schedule.base_lr == doctest::Approx(3e-3));
  CHECK(file.schedule.kind == Schedule::Kind::cosine);

  TrainConfig constant = parse_train(
      {"--task", "modadd", "--schedule", "constant", "--min-lr-ratio", "0.5", "--warmup", "10"});
  CHECK(constant.schedule.kind == Schedule::Kind::constant);
  CHECK(constant.schedule.min_ratio == 0.5);
  CHECK(constant.schedule.warmup == 10);

  // Task options in a file go in `opt`, as in configs/modadd.toml.
  const std::string example =
      (std::filesystem::path(__FILE__).parent_path().parent_path() / "configs" / "modadd.toml")
          .string();
  TrainConfig modadd = parse_train({"--config", example});
  CHECK(modadd.task_options.values() ==
        std::map<std::string, std::string>{{"p", "97"}, {"train-frac", "0.5"}});
  CHECK(modadd.optimizer.weight_decay == 1.0);
  CHECK(modadd.steps == 6000);

  // A task that recommends only a schedule keeps train's other defaults.
  const TrainConfig defaults;
  TrainConfig add = parse_train({"--task", "add"});
  CHECK(add.batch == defaults.batch);
  CHECK(add.model.layers == defaults.model.layers);
  CHECK(add.schedule.base_lr == defaults.schedule.base_lr);
  CHECK(add.schedule.kind == Schedule::Kind::cosine);
}
