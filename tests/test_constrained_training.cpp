// Constrained training end to end (optim/constrained_trainer.h): per-layer
// losses from one forward pass equal the losses of truncated models, all-zero
// multipliers train exactly like plain training, a resumed run restores the
// multipliers, slacks and pending constraint sums exactly, a small run
// ends with every descent constraint satisfied on training data, and
// robust-compare pairs its arms by seed with an interval on each difference.
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <sstream>

#include "autograd/ops.h"
#include "base/file_io.h"
#include "engine/safetensors.h"
#include "lab/robust_compare.h"
#include "optim/constrained_trainer.h"
#include "optim/layer_eval.h"
#include "optim/task_loss.h"
#include "report/robust_figures.h"
#include "tests/resume_files.h"
#include "tests/seed_trials.h"

using namespace tapir;
namespace fs = std::filesystem;

namespace {

TrainConfig small(const std::string& task) {
  TrainConfig c;
  c.task = task;
  c.task_options.set("eval-size", "256");
  if (task == "sorted") {
    c.task_options.set("symbols", "5");
    c.task_options.set("max-len", "6");
    c.task_options.set("test-max-len", "8");
  }
  c.model.width = 32;
  c.model.layers = 3;
  c.batch = 64;
  c.schedule.base_lr = 3e-3;
  c.steps = 60;
  c.eval_every = 20;
  c.seed = 1;
  // The data these suites' seeds and thresholds were measured on: the train
  // split, the arch split held out. On all of D (the default since) plain
  // training of sorted at this size breaks the first constraint in fewer
  // seeds (1 of 6 in the portable build), which the last case relies on.
  c.train_on = TrainOn::train;
  return c;
}

TrainConfig constrained(TrainConfig c) {
  c.constraint.kind = ConstraintKind::descent;
  c.constraint.alpha = {0.05};
  return c;
}

std::string temp_dir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("tapir_test_constrained_" + name);
  fs::remove_all(p);
  return p.string();
}

// metrics.jsonl without the fields that measure time or name the folder.
std::vector<Json> metric_lines(const std::string& dir) {
  std::istringstream in(read_file(dir + "/metrics.jsonl"));
  std::vector<Json> out;
  std::string line;
  while (std::getline(in, line)) {
    Json j = parse_json(line);
    j.set("run", "");
    j.set("tokens_per_s", 0);
    j.set("wall_s", 0);
    out.push_back(j);
  }
  return out;
}

}  // namespace

TEST_CASE("per-layer losses from one forward pass equal the losses of truncated models") {
  for (const std::string task : {"sorted", "denoise"}) {
    CAPTURE(task);
    Trainer t(small(task), "");
    for (int i = 0; i < 5; ++i) t.train_step();
    Batch batch;
    t.task().eval_batch("test", 0, 32, batch);
    NoGrad no_grad;
    const BatchTensors bt = to_tensors(batch);
    std::vector<double> f;
    for (const Tensor& loss : layer_losses(t.model(), bt.inputs, bt.targets, bt.mask))
      f.push_back(loss.item());
    REQUIRE(f.size() == 4);
    for (int64_t l = 0; l <= 3; ++l) {
      CAPTURE(l);
      ModelConfig mc = t.model().config();
      mc.layers = l;
      Transformer truncated(mc);
      for (Parameter* p : truncated.parameters()) {
        const Parameter* src = t.model().find_parameter(p->name);
        REQUIRE(src != nullptr);
        std::memcpy(p->tensor().raw(), src->tensor().raw(), p->tensor().nbytes());
      }
      CHECK(task_loss(truncated.forward(bt.inputs), bt.targets, bt.mask).item() == f[size_t(l)]);
    }
    reset_step();
  }
}

TEST_CASE("with every multiplier 0 a constrained step is exactly a plain step") {
  Trainer plain(small("sorted"), "");
  ConstrainedTrainer con(constrained(small("sorted")), "");
  plain.train_step();
  con.train_step();
  CHECK(plain.losses() == con.losses());
  CHECK(con.batch_layer_losses().back() == plain.losses().back());
  const auto a = plain.model().parameters(), b = con.model().parameters();
  for (size_t i = 0; i < a.size(); ++i)
    CHECK(std::memcmp(a[i]->tensor().raw(), b[i]->tensor().raw(), a[i]->tensor().nbytes()) == 0);
  // The dual step then moved lambda by dual_lr * s for the batch's constraints.
  const std::vector<double> s =
      descent_constraints(con.batch_layer_losses(), con.config().constraint);
  for (size_t l = 0; l < s.size(); ++l)
    CHECK(con.multipliers()[l] == std::max(0.0, con.config().constraint.dual_lr * s[l]));
}

TEST_CASE("deep supervision trains on f_L + w (f_1 + ... + f_{L-1}), with no dual step") {
  TrainConfig c = small("sorted");
  c.constraint.kind = ConstraintKind::deep_supervision;
  c.constraint.ds_weight = 0.25;
  CHECK(deep_supervision_weights(3, 0.25) == std::vector<double>{0, 0.25, 0.25, 1});
  ConstrainedTrainer ds(c, "");
  ds.train_step();
  const std::vector<double>& f = ds.batch_layer_losses();
  REQUIRE(f.size() == 4);
  // The step's loss is the weighted sum of the per-layer losses of its batch.
  CHECK(ds.losses().back() == doctest::Approx(f[3] + 0.25 * (f[1] + f[2])).epsilon(1e-6));
  for (int i = 0; i < 4; ++i) ds.train_step();
  for (double lambda : ds.multipliers()) CHECK(lambda == 0);
  c.constraint.ds_weight = 0;
  CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("ds-weight must be positive"), Error);
}

TEST_CASE("noise-augmented ERM: each step's embeddings perturbed, from the seed and the step") {
  TrainConfig c = small("sorted");
  c.train_noise = TrainNoise::gaussian;
  c.train_gamma = 0.5;
  c.steps = 6;
  c.eval_every = 3;
  // The noise changes the steps: not the plain run's weights.
  Trainer plain(small("sorted"), ""), noisy(c, "");
  for (int i = 0; i < 3; ++i) {
    plain.train_step();
    noisy.train_step();
  }
  CHECK(plain.losses() != noisy.losses());
  // A run resumed at step 3 takes the uninterrupted run's steps, bit for bit.
  const std::string whole = temp_dir("noise_whole"), cut = temp_dir("noise_cut");
  auto uninterrupted = make_trainer(c, whole);
  uninterrupted->start_fresh(false);
  uninterrupted->run();
  {
    auto t = make_trainer(c, cut);
    t->start_fresh(false);
    TrainEvents events;
    events.on_step = [](const StepStats& s, double) {
      if (s.step == 5) throw Error("simulated kill");
    };
    CHECK_THROWS_AS(t->run(events), Error);
  }
  const std::unique_ptr<Trainer> resumed = Trainer::resume(cut);
  CHECK(resumed->step() == 3);
  resumed->run();
  CHECK(metric_lines(whole) == metric_lines(cut));
  const auto a = uninterrupted->model().parameters(), b = resumed->model().parameters();
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i)
    CHECK(std::memcmp(a[i]->tensor().raw(), b[i]->tensor().raw(), a[i]->tensor().nbytes()) == 0);
  // With a constraint, or without a gamma, it is refused.
  TrainConfig bad = constrained(c);
  CHECK_THROWS_WITH_AS(bad.validate(), doctest::Contains("does not take --constraint"), Error);
  bad = c;
  bad.train_gamma = 0;
  CHECK_THROWS_WITH_AS(bad.validate(), doctest::Contains("go together"), Error);
  fs::remove_all(whole);
  fs::remove_all(cut);
}

TEST_CASE("a resumed constrained run restores multipliers, slacks and pending sums exactly") {
  TrainConfig resilient = constrained(small("sorted"));
  resilient.constraint.resilient = true;
  resilient.constraint.dual_every = 3;  // the save at step 40 falls inside a window
  resilient.constraint.dual_lr = 0.5;
  TrainConfig dual_batch = constrained(small("sorted"));
  dual_batch.constraint.dual_batch = 48;
  dual_batch.constraint.dual_lr = 0.5;
  for (const TrainConfig& c : {resilient, dual_batch}) {
    const std::string whole = temp_dir("whole"), split = temp_dir("split");
    std::vector<double> lambda, slack;
    {
      auto t = make_trainer(c, whole);
      t->start_fresh(false);
      t->run();
      auto& con = dynamic_cast<ConstrainedTrainer&>(*t);
      lambda = con.multipliers();
      slack = con.slacks();
    }
    {
      auto t = make_trainer(c, split);
      t->start_fresh(false);
      TrainEvents events;
      events.on_step = [](const StepStats& s, double) {
        if (s.step == 50) throw Error("simulated kill");
      };
      CHECK_THROWS_AS(t->run(events), Error);
    }
    auto resumed = Trainer::resume(split);
    REQUIRE(dynamic_cast<ConstrainedTrainer*>(resumed.get()) != nullptr);
    CHECK(resumed->step() == 40);
    resumed->run();
    const auto& con = dynamic_cast<ConstrainedTrainer&>(*resumed);
    CHECK(con.multipliers() == lambda);
    CHECK(con.slacks() == slack);
    CHECK(c.constraint.resilient == !slack.empty());
    const auto a = metric_lines(whole), b = metric_lines(split);
    CHECK(a.size() == 6);  // 3 evaluations x (test, test_long)
    CHECK(a == b);
    double largest = 0;  // the multipliers did move
    for (const Json& line : a) {
      CHECK(line.at("train_layer_loss").size() == 4);
      CHECK(line.at("train_constraint").size() == 3);
      CHECK((line.find("slack") != nullptr) == c.constraint.resilient);
      for (const Json& v : line.at("lambda").as_array()) largest = std::max(largest, v.as_double());
    }
    CHECK(largest > 0);
    fs::remove_all(whole);
    fs::remove_all(split);
  }
}

TEST_CASE("a resume file's constraint metadata is read strictly, naming the file") {
  TrainConfig c = constrained(small("sorted"));
  c.steps = 20;
  const std::string dir = temp_dir("metadata");
  {
    auto t = make_trainer(c, dir);
    t->start_fresh(false);
    t->run();
  }
  const std::string path = dir + "/resume.safetensors";
  // The file again, with the pending step count replaced by `pending`.
  const auto rewrite = [&](const std::string& pending) {
    const SafeTensorsFile file = SafeTensorsFile::load(path);
    std::vector<SafeTensorWrite> tensors;
    for (const SafeTensorView& v : file.tensors())
      tensors.push_back({v.name, v.dtype, v.shape, v.data});
    std::vector<std::pair<std::string, std::string>> meta = file.metadata();
    for (auto& [key, value] : meta)
      if (key == "constraint_pending_steps") value = pending;
    save_safetensors(path, tensors, meta);
  };
  rewrite("0");
  CHECK_NOTHROW(Trainer::resume(dir));
  rewrite("12abc");
  CHECK_THROWS_WITH_AS(
      Trainer::resume(dir),
      (path + ": metadata 'constraint_pending_steps': expected a non-negative integer, "
              "got '12abc'")
          .c_str(),
      Error);
  rewrite("-1");
  CHECK_THROWS_WITH_AS(Trainer::resume(dir), doctest::Contains("got '-1'"), Error);
  fs::remove_all(dir);
}

TEST_CASE("a constrained resume file with a state no run reaches is refused, nothing changed") {
  // Resilient with a dual step every 3 steps: the save at step 20 holds 2
  // pending steps. With a dual batch of its own nothing is ever pending.
  TrainConfig resilient = constrained(small("sorted"));
  resilient.steps = 20;
  resilient.constraint.resilient = true;
  resilient.constraint.dual_every = 3;
  TrainConfig dual_batch = resilient;
  dual_batch.constraint.dual_batch = 32;
  const auto run = [](const TrainConfig& c, const std::string& dir) {
    auto t = make_trainer(c, dir);
    t->start_fresh(false);
    t->run();
  };
  const std::string dir = temp_dir("impossible"), other = temp_dir("impossible-dual-batch");
  run(resilient, dir);
  run(dual_batch, other);
  const auto negative = [](auto& x) { x[1] = -0.5; };
  // The file of `d` without its pending step count.
  const auto drop_pending = [](const std::string& d) {
    const std::string path = d + "/resume.safetensors";
    const SafeTensorsFile file = SafeTensorsFile::load(path);
    std::vector<SafeTensorWrite> tensors;
    for (const SafeTensorView& v : file.tensors())
      tensors.push_back({v.name, v.dtype, v.shape, v.data});
    Metadata meta;
    for (const auto& [key, value] : file.metadata())
      if (key != "constraint_pending_steps") meta.push_back({key, value});
    save_safetensors(path, tensors, meta);
  };
  testing::check_refused(
      dir,
      {
          {[&] { testing::edit_resume_tensor<double>(dir, "constraint.lambda", negative); },
           "tensor 'constraint.lambda' holds -0.5 at element 1, expected a finite value >= 0"},
          {[&] { testing::edit_resume_tensor<double>(dir, "constraint.slack", negative); },
           "tensor 'constraint.slack' holds -0.5 at element 1, expected a finite value >= 0"},
          {[&] { drop_pending(dir); },
           "metadata 'constraint_pending_steps': expected a non-negative integer, got ''"},
          {[&] { testing::rewrite_resume(dir, "constraint_pending_steps", "1"); },
           "metadata 'constraint_pending_steps' is 1, expected 2 at step 20 (dual step every 3 "
           "steps, on the training batches)"},
          {[&] { testing::rewrite_resume(dir, "constraint_pending_steps", "21"); },
           "metadata 'constraint_pending_steps' is 21, expected 2 at step 20 (dual step every 3 "
           "steps, on the training batches)"},
          {[&] {
             testing::edit_resume_tensor<int32_t>(dir, "constraint.dual_rng",
                                                  [](auto& w) { w[3] = 1; });
           },
           "tensor 'constraint.dual_rng': the state of seed 1 stream 1, expected seed 1 stream 2 "
           "(from the config)"},
      },
      [&] { Trainer::resume(dir); });
  testing::check_refused(
      other,
      {
          {[&] { testing::rewrite_resume(other, "constraint_pending_steps", "2"); },
           "metadata 'constraint_pending_steps' is 2, expected 0 at step 20 (dual step every 3 "
           "steps, on batches of its own)"},
          {[&] {
             testing::edit_resume_tensor<double>(other, "constraint.pending_s",
                                                 [](auto& x) { x[0] = 0.125; });
           },
           "tensor 'constraint.pending_s' holds 0.125 at element 0, expected 0 with no pending "
           "steps"},
      },
      [&] { Trainer::resume(other); });
  CHECK(Trainer::resume(dir)->step() == 20);  // the intact files still resume
  CHECK(Trainer::resume(other)->step() == 20);
  fs::remove_all(dir);
  fs::remove_all(other);
}

namespace {

// The per-layer training losses f_0..f_L of a trainer, on 256 fixed examples
// of the training distribution.
std::vector<double> train_layer_losses(Trainer& t) {
  std::vector<double> f;
  for (const EvalTally& tally : evaluate_layers(t.evaluator(), "train"))
    f.push_back(tally.all.loss());
  return f;
}

}  // namespace

TEST_CASE("constrained training ends with every descent constraint met on training data") {
  // alpha = (0.3, 0, 0): the first block must cut the embeddings' loss by
  // 30%, and no later block may raise the loss. Plain training of this model
  // often breaks the first (its first block leaves the loss where the
  // embeddings had it, or raises it: f_1 > f_0 in 8 of 11 seeds and builds
  // tried). Both primal forms (differentiating through f_{l-1} or holding it
  // constant) must end within 0.01 nats of every constraint. The constrained
  // claims must hold in at least 2 of 3 seeds (tests/seed_trials.h): over
  // seeds 0-2 in three builds the constrained runs met all of them in 17 of
  // 18. Which seeds plain training happens to satisfy moves with the build
  // and the machine (docs/build.md): where this was first measured it broke
  // a constraint in 8 of 9 runs (seeds 0-2, three builds), but on an AVX-512
  // machine (release build, x86-64-v2) seeds 0 and 1 met every constraint
  // and it broke one in 5 of seeds 0-7; so the plain claim asks for 2 of the
  // first 6 seeds. A rate on every layer (0.5, or 0.3) is not well posed at
  // this size: the held-constant form then chases f_3 <= (1 - alpha)^3 f_0
  // while the losses near zero make the violations, and so the multipliers'
  // steps, tiny, and it ended outside the tolerance in about a fifth to a
  // quarter of the runs.
  TrainConfig c = small("sorted");
  c.steps = 1500;
  c.eval_every = 1500;
  TrainConfig cc = constrained(c);
  cc.constraint.alpha = {0.3, 0.0, 0.0};
  cc.constraint.dual_lr = 0.05;
  const auto worst_violation = [&](Trainer& t, std::ostream& out) {
    const std::vector<double> f = train_layer_losses(t);
    double worst = -1;
    for (double v : descent_constraints(f, cc.constraint)) worst = std::max(worst, v);
    out << "train losses per layer";
    for (double v : f) out << " " << v;
    out << ", worst violation " << worst;
    return worst;
  };
  CHECK_SEEDS(2, 6, [&](uint64_t seed, std::ostream& out) {
    TrainConfig run = c;
    run.seed = seed;
    Trainer plain(run, "");
    plain.run();
    out << "plain: ";
    return worst_violation(plain, out) > 0.01;
  });
  for (const bool detach : {false, true}) {
    CAPTURE(detach);
    CHECK_SEEDS(2, 3, [&](uint64_t seed, std::ostream& out) {
      TrainConfig run = cc;
      run.seed = seed;
      run.constraint.detach_previous = detach;
      ConstrainedTrainer t(run, "");
      double largest = 0;
      TrainEvents events;
      events.on_step = [&](const StepStats&, double) {
        for (double v : t.multipliers()) largest = std::max(largest, v);
      };
      t.run(events);
      out << "largest multiplier " << largest << ", ";
      // tolerance 0.01 nats; the constraints were active at some point
      return worst_violation(t, out) <= 0.01 && largest > 0;
    });
  }
}

TEST_CASE("robust-compare pairs the arms by seed and gives each difference its interval") {
  RobustCompareConfig rc;
  rc.base = constrained(small("sorted"));
  rc.base.threads = 1;
  rc.out = temp_dir("robust_compare");
  rc.noise = {"gaussian"};
  rc.gammas = {0, 1};
  rc.seeds = 3;
  rc.repeats = 1;
  rc.quiet = true;
  run_robust_compare(rc);
  for (const std::string arm : {"erm", "descent"})
    for (int seed = 1; seed <= 3; ++seed)
      CHECK(fs::exists(rc.out + "/" + arm + "_s" + std::to_string(seed) + "/metrics.jsonl"));
  const Json summary = parse_json(read_file(rc.out + "/summary_descent.json"));
  const auto value = [](const Json& seeds, size_t i) { return seeds.as_array()[i].as_double(); };
  // Every difference is the constrained run minus ERM's of the same seed,
  // and its interval holds its mean.
  const auto check_difference = [&](const Json& row) {
    const Json& d = row.at("difference");
    REQUIRE(d.at("seeds").size() == 3);
    double sum = 0;
    for (size_t i = 0; i < 3; ++i) {
      const double expected =
          value(row.at("descent").at("seeds"), i) - value(row.at("erm").at("seeds"), i);
      CHECK(value(d.at("seeds"), i) == doctest::Approx(expected));
      sum += expected;
    }
    CHECK(d.at("mean").as_double() == doctest::Approx(sum / 3));
    CHECK(d.at("lo").as_double() <= d.at("mean").as_double() + 1e-12);
    CHECK(d.at("hi").as_double() >= d.at("mean").as_double() - 1e-12);
  };
  for (const Json& layer : summary.at("layers").as_array()) check_difference(layer);
  check_difference(summary.at("splits").at("test"));
  for (const Json& gamma : summary.at("noise").at("gaussian").as_array()) check_difference(gamma);
  // Monotone runs: 1 or 0 per run, their difference's mean the counts'.
  const Json& monotone = summary.at("monotone");
  for (size_t i = 0; i < 3; ++i) {
    const double d = value(monotone.at("difference").at("seeds"), i);
    CHECK((d == -1 || d == 0 || d == 1));
  }
  const double counts =
      static_cast<double>(monotone.at("descent").as_int() - monotone.at("erm").as_int());
  CHECK(monotone.at("difference").at("mean").as_double() == doctest::Approx(counts / 3));
  // The profile under noise: at gamma 0 the clean profile's counts, at
  // gamma 1 counts of 3 with their difference's mean.
  const Json& noisy = summary.at("monotone_noise").at("gaussian");
  REQUIRE(noisy.size() == 2);
  CHECK(noisy.as_array()[0].at("erm").as_int() == monotone.at("erm").as_int());
  CHECK(noisy.as_array()[0].at("descent").as_int() == monotone.at("descent").as_int());
  const Json& at_one = noisy.as_array()[1];
  CHECK(at_one.at("gamma").as_double() == 1.0);
  CHECK(at_one.at("difference").at("mean").as_double() ==
        doctest::Approx(
            static_cast<double>(at_one.at("descent").as_int() - at_one.at("erm").as_int()) / 3));
  // The figures come from the summary alone: one per layer profile and
  // noise kind, both arms drawn.
  write_robust_compare_figures(rc.out, "descent");
  for (const std::string name : {"layers", "gaussian"}) {
    const std::string svg = read_file(rc.out + "/compare_descent_" + name + ".svg");
    CHECK(svg.find(">erm<") != std::string::npos);
    CHECK(svg.find(">descent<") != std::string::npos);
    CHECK(svg.find("<polyline") != std::string::npos);
  }
  fs::remove_all(rc.out);
}
