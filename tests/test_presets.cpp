// --preset lm-afs (tools/presets.h): the authors' setup for every flag not
// given, with the schedules as shares of the steps; what the user gives
// wins; a search gets the reference's protocol and learns the attention
// input function; and a character-level model under the preset trains.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "optim/trainer.h"
#include "tests/parsed_flags.h"
#include "tools/presets.h"

using namespace tapir;

namespace {

using Parsed = test_support::ParsedFlags;

const std::string kTiny =
    (std::filesystem::path(__FILE__).parent_path() / "data" / "tiny.txt").string();

}  // namespace

TEST_CASE("--preset lm-afs sets the authors' model and optimizer; a flag given wins") {
  Parsed p(false);
  p.parse({"--preset", "lm-afs", "--task", "modadd", "--steps", "200", "--width", "64", "--lr",
           "1e-3"});
  const TrainConfig c = finish_train_options(p.app, p.train);
  const ModelConfig& m = c.model;
  CHECK(m.layers == 4);
  CHECK(m.heads == 4);
  CHECK(m.width == 64);  // given
  CHECK(m.pos == Positions::rope);
  CHECK(m.norm == NormKind::rms);
  CHECK(m.qk_norm);
  CHECK_FALSE(m.bias);
  CHECK(m.tie_embeddings);
  CHECK(m.zero_init_proj);
  CHECK(m.attn_fn == AttnFn::identity);  // the reference's baseline, "att-linear"
  CHECK(m.mlp_act == MlpAct::gelu);
  CHECK(m.mlp_spline.grid.knots() == 64);
  CHECK(c.optimizer.kind == OptimizerKind::adam);
  CHECK(c.optimizer.beta1 == 0.8);
  CHECK(c.optimizer.beta2 == 0.95);
  CHECK(c.optimizer.weight_decay == 0);
  CHECK(c.clip == 0);
  CHECK(c.schedule.base_lr == 1e-3);  // given
  CHECK(c.schedule.kind == Schedule::Kind::trapezoid);
  CHECK(c.schedule.warmup == 20);  // 2000 of 20000
  CHECK(c.schedule.decay == 100);  // 10000 of 20000
  CHECK(c.schedule.min_ratio == 0);
  CHECK(p.train.preset_note.find("--pos rope") != std::string::npos);
  CHECK(p.train.preset_note.find("--width") == std::string::npos);
  CHECK(p.train.preset_note.find("--lr ") == std::string::npos);
}

TEST_CASE("--preset lm-afs on a search: the reference's protocol, its shares of the search") {
  Parsed p(true);
  p.parse({"--preset", "lm-afs", "--task", "add", "--steps", "300", "--search-steps", "600",
           "--models", "4"});
  apply_preset(p.app, "lm-afs", {p.train.config.steps, p.search.steps, /*search=*/true});
  const TrainConfig c = finish_train_options(p.app, p.train);
  const SearchConfig& s = p.search;
  CHECK(s.models == 4);  // given
  CHECK(s.stagger == Stagger::continue_);
  CHECK(s.arch_grad == ArchGrad::mean);
  CHECK(s.arch_split == ArchSplit::train);
  CHECK(s.arch_lr == 0.1);
  CHECK(s.arch_schedule.kind == Schedule::Kind::trapezoid);
  CHECK(s.arch_schedule.warmup == 60);  // of the search's 600 steps
  CHECK(s.arch_schedule.decay == 300);
  CHECK(c.schedule.warmup == 30);  // the weights': of a model's 300
  CHECK(c.model.attn_fn == AttnFn::spline);
  CHECK(c.model.mlp_spline.grid.lo() == -15);

  TaskOptions add_options = c.task_options;
  CHECK(apply_preset_task_options("lm-afs", "add", add_options));
  CHECK(add_options.values().at("arch-frac") == "0");
  TaskOptions given;
  given.set("arch-frac", "0.3");
  CHECK_FALSE(apply_preset_task_options("lm-afs", "add", given));
  TaskOptions denoise;  // takes no arch-frac
  CHECK_FALSE(apply_preset_task_options("lm-afs", "denoise", denoise));
  CHECK_FALSE(denoise.has("arch-frac"));
}

TEST_CASE("--preset lm-afs at any step count: a one-step run decays over its one step") {
  for (const char* steps : {"1", "2", "3"}) {
    Parsed p(true);
    p.parse({"--preset", "lm-afs", "--task", "add", "--steps", steps, "--search-steps", steps});
    apply_preset(p.app, "lm-afs", {p.train.config.steps, p.search.steps, /*search=*/true});
    const TrainConfig c = finish_train_options(p.app, p.train);
    CHECK(c.schedule.decay >= 1);
    CHECK(c.schedule.warmup + c.schedule.decay <= c.steps);
    CHECK(p.search.arch_schedule.decay >= 1);
    CHECK_NOTHROW(c.validate());
  }
}

TEST_CASE("--preset refuses a name it does not know") {
  Parsed p(false);
  CHECK_THROWS_AS(p.parse({"--preset", "lm-afx"}), CLI::ValidationError);
  CHECK_THROWS_WITH_AS(preset_flags("gpt2", {}), "unknown preset 'gpt2' (known: lm-afs)", Error);
}

TEST_CASE("a character-level model under --preset lm-afs trains") {
  // The authors' model at a small width, on a 3 KB corpus: 150 steps must
  // bring the held-out loss more than 1 nat below the untrained model's.
  Parsed p(false);
  p.parse({"--preset",     "lm-afs",     "--task",    "text", "--opt",    "path=" + kTiny,
           "--opt",        "context=32", "--width",   "32",   "--layers", "2",
           "--steps",      "150",        "--batch",   "16",   "--lr",     "3e-3",
           "--eval-every", "150",        "--threads", "1"});
  const TrainConfig c = finish_train_options(p.app, p.train);
  Trainer t(c, "");
  const double untrained = t.evaluate().front().tally.all.loss();
  t.run();
  const double trained = t.evaluate().front().tally.all.loss();
  CAPTURE(untrained);
  CAPTURE(trained);
  CHECK(trained < untrained - 1.0);
}
