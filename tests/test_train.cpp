// End-to-end training: modular addition to >= 99% test accuracy, bit-exact
// determinism, interrupted-and-resumed runs equal uninterrupted ones, what a
// larger --steps does to a decaying schedule on resume, checkpoint round trips and the errors a
// user can run into.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "base/file_io.h"
#include "nn/checkpoint.h"
#include "optim/model_run.h"
#include "optim/run_folder.h"
#include "optim/trainer.h"
#include "tests/seed_trials.h"
#include "tests/tiny_config.h"

using namespace tapir;
namespace fs = std::filesystem;

namespace {

// The step cap of the learning test (see there).
constexpr int64_t kModaddCap = 4000;

// A small modular-addition setting that generalises in a few hundred to a few
// thousand steps, depending on the seed.
TrainConfig small_modadd() {
  TrainConfig c = test_support::grokking_modadd();
  c.steps = 1500;
  c.eval_every = 100;
  c.seed = 1;
  return c;
}

std::string temp_dir(const std::string& name) {
  // The process id keeps concurrent runs of the suite apart.
  fs::path p =
      fs::temp_directory_path() / ("tapir_test_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  return p.string();
}

// metrics.jsonl without the fields that measure time.
std::vector<std::string> metric_values(const std::string& dir) {
  std::istringstream in(read_file(dir + "/metrics.jsonl"));
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    Json j = parse_json(line);
    std::ostringstream s;
    s << j.at("step").as_int() << " " << j.at("split").as_string() << " " << to_json(j.at("loss"))
      << " " << to_json(j.at("accuracy"));
    out.push_back(s.str());
  }
  return out;
}

}  // namespace

TEST_CASE("a transformer learns modular addition (p = 23) to >= 99% test accuracy") {
  // Over seeds 0-5 the first evaluation at >= 99% came after 300 to 3000
  // steps, depending on the seed and the build (docs/build.md): the cap
  // leaves room over that spread, and 2 of 3 seeds must get there before it.
  CHECK_SEEDS(2, 3, [](uint64_t seed, std::ostream& out) {
    TrainConfig c = small_modadd();
    c.seed = seed;
    c.steps = kModaddCap;
    c.stop_at = 0.99;
    Trainer trainer(c, "");
    trainer.run();
    const double accuracy = trainer.evaluator().evaluate_split("test").tally.all.accuracy();
    out << "test accuracy " << accuracy << " after " << trainer.step() << " steps";
    return accuracy >= 0.99 && trainer.step() < c.steps;  // before the cap
  });
}

TEST_CASE("the same seed gives bit-identical losses; another seed does not") {
  TrainConfig c = small_modadd();
  c.steps = 30;
  Trainer a(c, ""), b(c, "");
  for (int i = 0; i < 30; ++i) {
    a.train_step();
    b.train_step();
  }
  CHECK(a.losses() == b.losses());
  c.seed = 2;
  Trainer other(c, "");
  for (int i = 0; i < 30; ++i) other.train_step();
  CHECK(other.losses() != a.losses());
}

TEST_CASE("an interrupted and resumed run logs the same metrics as an uninterrupted one") {
  TrainConfig c = small_modadd();
  c.steps = 200;
  c.eval_every = 50;
  c.schedule.kind = Schedule::Kind::cosine;
  c.schedule.warmup = 20;
  const std::string whole = temp_dir("whole"), split = temp_dir("split");
  {
    Trainer t(c, whole);
    t.start_fresh(false);
    t.run();
  }
  {
    // Killed at step 130: the last save was at step 100.
    Trainer t(c, split);
    t.start_fresh(false);
    TrainEvents events;
    events.on_step = [](const StepStats& s, double) {
      if (s.step == 130) throw Error("simulated kill");
    };
    CHECK_THROWS_AS(t.run(events), Error);
  }
  auto resumed = Trainer::resume(split);
  CHECK(resumed->step() == 100);
  resumed->run();
  CHECK(resumed->step() == 200);
  const auto a = metric_values(whole), b = metric_values(split);
  CHECK(a.size() == 8);  // 4 evaluations x (test, train)
  CHECK(a == b);
  fs::remove_all(whole);
  fs::remove_all(split);
}

TEST_CASE("a larger --steps on resume stretches a decay that followed --steps to the new end") {
  TrainConfig c = small_modadd();
  c.steps = 40;
  c.eval_every = 20;
  c.schedule.kind = Schedule::Kind::cosine;
  c.schedule.min_ratio = 0.05;
  const std::string dir = temp_dir("extend");
  {
    Trainer t(c, dir);
    t.start_fresh(false);
    t.run();
    CHECK(t.config().schedule.total == 40);
  }
  auto extended = Trainer::resume(dir, 60);
  CHECK(extended->config().schedule.total == 60);
  Schedule stretched = c.schedule;
  stretched.total = 60;
  const StepStats first = extended->train_step();
  CHECK(first.lr == stretched.lr_at(40));
  CHECK(first.lr > 4 * c.schedule.min_ratio * c.schedule.base_lr);  // up from the floor
  extended.reset();
  fs::remove_all(dir);

  // A total given apart from --steps stays where it was.
  c.schedule.total = 30;
  {
    Trainer t(c, dir);
    t.start_fresh(false);
    t.run();
  }
  CHECK(Trainer::resume(dir, 60)->config().schedule.total == 30);
  fs::remove_all(dir);
}

TEST_CASE("checkpoints round-trip, and a mismatched model is refused by name") {
  TrainConfig c = small_modadd();
  c.steps = 50;
  c.eval_every = 50;
  const std::string dir = temp_dir("ckpt");
  double before = 0;
  {
    Trainer t(c, dir);  // holds the folder's lock while it lives
    t.start_fresh(false);
    t.run();
    before = t.evaluator().evaluate_split("test").tally.all.loss();
  }
  const ModelRun reopened = open_run(dir);
  CHECK(reopened.evaluator().evaluate_split("test").tally.all.loss() == before);

  TrainConfig wider = c;
  wider.model.width = 32;
  Trainer other(wider, "");
  const SafeTensorsFile file = SafeTensorsFile::load(dir + "/checkpoint.safetensors");
  CHECK_THROWS_WITH_AS(load_parameters(file, other.model().parameters(), "ckpt"),
                       "ckpt: parameter 'tok_emb.weight' has shape (25, 64) in the file but "
                       "(25, 32) in the model",
                       Error);
  // An existing run folder is not overwritten without --force.
  Trainer again(c, dir);
  CHECK_THROWS_WITH_AS(again.start_fresh(false), doctest::Contains("already exists"), Error);
  fs::remove_all(dir);
}

TEST_CASE("config.json: every key is one the config knows; task options take any name") {
  TrainConfig c = small_modadd();
  c.model.vocab = 25;  // filled in from the task when training
  c.model.context = 4;
  c.task_options.set("any-name", "1");
  const Json written = c.to_json();
  CHECK(TrainConfig::from_json(written).to_json() == written);

  Json top = written;
  top.set("stepz", 10);
  CHECK_THROWS_WITH_AS(TrainConfig::from_json(top),
                       doctest::Contains("JSON: unknown key 'stepz' (known: task, task_options, "
                                         "model, optimizer, schedule, constraint, steps,"),
                       Error);
  Json model = written;
  Json m = model.at("model");
  m.set("widht", 64);
  model.set("model", m);
  CHECK_THROWS_WITH_AS(TrainConfig::from_json(model),
                       doctest::Contains("JSON: unknown key 'model.widht' (known: vocab, "
                                         "context, width, heads, layers,"),
                       Error);
  Json group = written;
  Json o = group.at("optimizer");
  o.set("weight-decay", 1.0);
  group.set("optimizer", o);
  CHECK_THROWS_WITH_AS(
      TrainConfig::from_json(group),
      "JSON: unknown key 'optimizer.weight-decay' (known: name, beta1, beta2, eps, "
      "weight_decay, momentum, nesterov)",
      Error);
  Json spline = written;
  m = spline.at("model");
  Json s = m.at("mlp_spline");
  s.set("knot", 5);
  m.set("mlp_spline", s);
  spline.set("model", m);
  CHECK_THROWS_WITH_AS(TrainConfig::from_json(spline),
                       "JSON: unknown key 'model.mlp_spline.knot' (known: knots, lo, hi, "
                       "extrapolate, init, scope)",
                       Error);
}

TEST_CASE("a run folder's config.json: errors name the file") {
  TrainConfig c = small_modadd();
  c.steps = 1;
  c.eval_every = 1;
  const std::string dir = temp_dir("config");
  {
    Trainer t(c, dir);  // holds the folder's lock while it lives
    t.start_fresh(false);
    t.run();
  }
  const std::string path = dir + "/config.json";
  const std::string good = read_file(path);
  CHECK(RunFolder(dir).read_config().to_json() == parse_json(good));
  write_file_atomic(path, "garbage");
  CHECK_THROWS_WITH_AS(open_run(dir), (path + ": invalid JSON at byte 0: unexpected 'g'").c_str(),
                       Error);
  const size_t width = good.find("\"width\"");
  write_file_atomic(path, good.substr(0, width) + "\"widht\": 1, " + good.substr(width));
  CHECK_THROWS_WITH_AS(
      Trainer::resume(dir, 0),
      doctest::Contains(
          (path + ": JSON: unknown key 'model.widht' (known: vocab, context, width,").c_str()),
      Error);
  fs::remove_all(dir);
}

TEST_CASE("a diverging run stops with the step and keeps the last good checkpoint") {
  TrainConfig c = small_modadd();
  c.steps = 100;
  c.eval_every = 5;
  c.clip = 0;
  const std::string dir = temp_dir("nan");
  {
    Trainer t(c, dir);
    t.start_fresh(false);
    t.run(TrainEvents{});  // a healthy first part, saved at step 100
  }
  const std::string saved = read_file(dir + "/checkpoint.safetensors");
  auto resumed = Trainer::resume(dir, 300);
  // Poison one weight: the next forward produces NaN logits.
  resumed->model().parameters()[0]->tensor().data<float>()[0] =
      std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH_AS(resumed->run(),
                       doctest::Contains("loss became nan at step 101; the last good checkpoint "
                                         "(step 100)"),
                       Error);
  CHECK(read_file(dir + "/checkpoint.safetensors") == saved);
  fs::remove_all(dir);
}
