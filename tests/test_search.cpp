// Stage I: gradient routing (weights never see D_arch, splines never see
// D_wts), determinism of the architecture file, staggered restarts.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <numbers>

#include "autograd/tape.h"
#include "base/file_io.h"
#include "base/json.h"
#include "engine/threads.h"
#include "lab/search_job.h"
#include "optim/batch.h"
#include "optim/search.h"
#include "optim/task_loss.h"
#include "tests/test_support.h"
#include "tests/tiny_config.h"

using namespace tapir;
namespace fs = std::filesystem;

namespace {

SearchConfig small_search() {
  SearchConfig s;
  TrainConfig& c = s.base;
  c = test_support::tiny_modadd(
      {.width = 32, .layers = 2, .batch = 32, .steps = 6, .eval_every = 3});
  c.model.mlp_act = MlpAct::spline;
  c.model.mlp_spline.grid = SplineGrid(21, -4, 4, true);
  c.schedule.base_lr = 3e-3;
  s.models = 2;
  return s;
}

std::vector<float> values_of(Parameter* p) {
  const Tensor t = p->tensor();
  return std::vector<float>(t.data<float>(), t.data<float>() + t.numel());
}

bool all_zero_grad(Parameter* p) {
  const Tensor t = p->tensor();
  if (!t.has_grad()) return true;
  for (int64_t i = 0; i < t.numel(); ++i)
    if (t.grad<float>()[i] != 0.0f) return false;
  return true;
}

}  // namespace

TEST_CASE("Stage I routes D_arch gradients only to the splines and D_wts only to the weights") {
  Search search(small_search(), "");
  std::vector<Parameter*> shared = search.shared_parameters();
  REQUIRE(shared.size() == 2);  // one MLP spline per layer
  Trainer& t0 = search.models().trainer(0);
  std::vector<Parameter*> weights;
  for (Parameter* p : t0.model().parameters())
    if (p->name.find(".act.") == std::string::npos) weights.push_back(p);
  const std::vector<float> w_before = values_of(weights[2]);

  for (Parameter* p : shared) p->value.zero_grad();
  search.arch_backward(0);
  // The D_arch pass left every weight gradient at zero and did not move them...
  for (Parameter* p : weights) {
    INFO(p->name);
    CHECK(all_zero_grad(p));
  }
  CHECK(values_of(weights[2]) == w_before);
  // ...and gave the shared functions a gradient.
  bool nonzero = false;
  for (Parameter* p : shared) nonzero = nonzero || !all_zero_grad(p);
  CHECK(nonzero);

  const std::vector<float> shared_grad =
      std::vector<float>(shared[0]->tensor().grad<float>(),
                         shared[0]->tensor().grad<float>() + shared[0]->tensor().numel());
  const std::vector<float> spline_before = values_of(shared[0]);
  search.weights_step(0);
  // The D_wts step moved the weights, not the splines, and added nothing to
  // the shared gradient; the model's own spline copies hold no gradient.
  CHECK(values_of(weights[2]) != w_before);
  CHECK(values_of(shared[0]) == spline_before);
  CHECK(std::memcmp(shared[0]->tensor().grad<float>(), shared_grad.data(),
                    shared_grad.size() * sizeof(float)) == 0);
  for (const auto& f : t0.model().learned_functions()) CHECK(all_zero_grad(&f.spline->values()));
}

TEST_CASE("the shared functions move only by their own optimizer, once per step") {
  Search search(small_search(), "");
  const std::vector<float> before = values_of(search.shared_parameters()[0]);
  search.step();
  const std::vector<float> after = values_of(search.shared_parameters()[0]);
  CHECK(after != before);
  // Adam's first step moves every knot with a non-zero gradient by about lr.
  double largest = 0;
  for (size_t i = 0; i < before.size(); ++i)
    largest = std::max(largest, double(std::fabs(after[i] - before[i])));
  CHECK(largest == doctest::Approx(0.1).epsilon(0.01));
}

TEST_CASE("the same search twice writes a bit-identical architecture file") {
  std::string bytes[2];
  for (int k = 0; k < 2; ++k) {
    const fs::path dir = fs::temp_directory_path() /
                         ("tapir_search_" + std::to_string(::getpid()) + "_" + std::to_string(k));
    fs::remove_all(dir);
    Search search(small_search(), dir.string());
    search.run();
    bytes[k] = read_file((dir / "arch.safetensors").string());
    CHECK(fs::exists(dir / "snapshots"));
    CHECK(fs::exists(dir / "models" / "model-1" / "metrics.jsonl"));
    fs::remove_all(dir);
  }
  CHECK(!bytes[0].empty());
  CHECK(bytes[0] == bytes[1]);
}

TEST_CASE("models stepped concurrently give the bits of models stepped one after the other") {
  // Three models on two threads (one thread steps two of them), staggered so
  // that models start and restart mid-search, with evaluations.
  SearchConfig c = small_search();
  c.models = 3;
  c.stagger = Stagger::reinit;
  c.steps = 10;
  c.base.steps = 4;
  c.base.eval_every = 2;
  c.base.threads = 2;
  const int threads_before = num_threads();
  std::string arch[2], log[2];
  std::vector<std::vector<float>> weights[2];
  for (int k = 0; k < 2; ++k) {
    const fs::path dir =
        fs::temp_directory_path() /
        ("tapir_search_concurrent_" + std::to_string(::getpid()) + "_" + std::to_string(k));
    fs::remove_all(dir);
    Search search(c, dir.string());
    search.models().set_concurrent(k == 1);
    search.run();
    arch[k] = read_file((dir / "arch.safetensors").string());
    log[k] = read_file((dir / Search::kLog).string());
    for (int m = 0; m < c.models; ++m)
      for (Parameter* p : search.models().trainer(m).model().parameters())
        weights[k].push_back(values_of(p));
    fs::remove_all(dir);
  }
  set_num_threads(threads_before);
  CHECK(!arch[0].empty());
  CHECK(arch[0] == arch[1]);
  CHECK(log[0] == log[1]);  // D_arch losses and mean test accuracies
  REQUIRE(weights[0].size() == weights[1].size());
  for (size_t i = 0; i < weights[0].size(); ++i) CHECK(weights[0][i] == weights[1][i]);
}

TEST_CASE("staggered search starts models in turn and restarts them after their lifetime") {
  SearchConfig c = small_search();
  c.stagger = Stagger::reinit;
  c.base.steps = 4;  // lifetime N
  c.steps = 10;
  Search search(c, "");
  CHECK(search.models().active(0, search.steps_done()));
  CHECK_FALSE(search.models().active(1, search.steps_done()));  // starts at step 1 * 4 / 2 = 2
  search.step();
  search.step();
  CHECK(search.models().active(1, search.steps_done()));
  for (int i = 0; i < 3; ++i) search.step();
  // Model 0 took 4 steps (its lifetime) and started over.
  CHECK(search.models().trainer(0).step() < 4);
}

TEST_CASE("stagger continue: models start in turn and train to the end, never re-initialised") {
  SearchConfig c = small_search();
  c.stagger = Stagger::continue_;
  c.models = 3;
  c.base.steps = 6;  // lifetime N: starts at 0, 2, 4; the weights' schedule is N long
  c.base.schedule.kind = Schedule::Kind::trapezoid;
  c.base.schedule.warmup = 1;
  c.base.schedule.decay = 2;
  c.steps = 10;  // beyond N: every model trains on to step 10
  Search search(c, "");
  const int64_t starts[] = {0, 2, 4};
  for (int m = 0; m < 3; ++m) CHECK(search.models().schedule().first_start(m) == starts[m]);
  for (int64_t step = 0; step < 10; ++step) {
    for (int m = 0; m < 3; ++m) {
      INFO("step ", step, ", model ", m);
      CHECK(search.models().active(m, search.steps_done()) == (step >= starts[m]));
      // Each model's own step, from its own start: what its weight schedule reads.
      CHECK(search.models().trainer(m).step() == std::max<int64_t>(0, step - starts[m]));
    }
    search.step();
  }
  // Model 0 took 10 steps, past its lifetime of 6, in one generation: a
  // re-initialised model would have counted from 0 again.
  CHECK(search.models().trainer(0).step() == 10);
  CHECK(search.models().trainer(2).step() == 6);
  CHECK_FALSE(search.models().schedule().restarts(10));
  // Model 2's weights at its own step 5 are in the decay: the same rate
  // model 0 had at its step 5.
  const Schedule& weights = search.models().trainer(2).config().schedule;
  CHECK(weights.total == 6);
  CHECK(weights.lr_at(5) == doctest::Approx(c.base.schedule.base_lr / 2));
}

TEST_CASE("the functions' learning rate follows --arch-schedule over the search's steps") {
  SearchConfig c = small_search();
  c.steps = 10;
  c.arch_lr = 0.1;
  c.arch_schedule.kind = Schedule::Kind::trapezoid;
  c.arch_schedule.warmup = 2;
  c.arch_schedule.decay = 4;
  Search search(c, "");
  const double expected[] = {0.05, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.075, 0.05, 0.025};
  std::vector<Parameter*> shared = search.shared_parameters();
  for (int64_t step = 0; step < 10; ++step) {
    INFO("step ", step);
    CHECK(search.arch_lr_now() == doctest::Approx(expected[step]));
    const std::vector<float> before = values_of(shared[0]);
    search.step();
    if (step == 0) {
      // Adam's first step moves every knot with a gradient by lr (its
      // update m / sqrt(v) is +-1): the scheduled 0.05, not arch_lr.
      const std::vector<float> after = values_of(shared[0]);
      double most = 0;
      for (size_t k = 0; k < after.size(); ++k)
        most = std::max(most, std::fabs(double(after[k]) - before[k]));
      CHECK(most == doctest::Approx(0.05).epsilon(1e-3));
    }
  }
  c.arch_schedule.kind = Schedule::Kind::cosine;
  c.arch_schedule.decay = 0;
  Search cosine(c, "");
  CHECK(cosine.arch_lr_now() == doctest::Approx(0.05));
  for (int i = 0; i < 6; ++i) cosine.step();  // step 6: p = (6 - 2) / 8 = 1/2
  CHECK(cosine.arch_lr_now() == doctest::Approx(0.05));
  cosine.step();  // p = 5/8: 0.05 * (1 + cos(5 pi / 8))
  CHECK(cosine.arch_lr_now() == doctest::Approx(0.05 * (1 + std::cos(5 * std::numbers::pi / 8))));
}

TEST_CASE("a search refuses an arch schedule its steps cannot hold") {
  SearchConfig c = small_search();
  c.steps = 10;
  c.arch_schedule.kind = Schedule::Kind::trapezoid;
  c.arch_schedule.warmup = 4;
  c.arch_schedule.decay = 7;
  CHECK_THROWS_WITH_AS(Search(c, ""),
                       "arch-warmup (4) + arch-decay (7) must fit in the 10 steps of the schedule",
                       Error);
  c.arch_schedule.warmup = -1;
  CHECK_THROWS_WITH_AS(Search(c, ""), "arch-warmup must be non-negative, got -1", Error);
}

TEST_CASE("a search's verdict: near chance when the models gained under a tenth of what was left") {
  SearchOutcome o;
  o.steps = 100;
  o.untrained_accuracy = 0.02;
  o.final_accuracy = 0.117;  // 0.02 + 0.1 * 0.98 = 0.118
  CHECK(o.near_chance());
  CHECK(o.verdict().rfind("warning: the models ended near chance", 0) == 0);
  o.final_accuracy = 0.119;
  CHECK(!o.near_chance());
  CHECK(o.verdict().rfind("the models reached mean test accuracy 0.1190 after 100 steps", 0) == 0);
  o.knot_abs_max = 34;
  const SearchOutcome back = SearchOutcome::from_json(o.to_json());
  CHECK(back.steps == 100);
  CHECK(back.untrained_accuracy == o.untrained_accuracy);
  CHECK(back.final_accuracy == o.final_accuracy);
  CHECK(back.knot_abs_max == 34);
  CHECK(back.model0_accuracy == -1);  // not recorded: absent from the JSON
  CHECK(o.to_json().find("model0_test_accuracy") == nullptr);
  o.model0_accuracy = 0.5;
  CHECK(SearchOutcome::from_json(o.to_json()).model0_accuracy == 0.5);
  CHECK(o.verdict().find("; model 0 ended at 0.5000") != std::string::npos);
  Json extra = o.to_json();
  extra.set("knot_max", 3.0);
  CHECK_THROWS_WITH_AS(
      SearchOutcome::from_json(extra),
      "JSON: unknown key 'knot_max' (known: steps, wall_s, untrained_mean_test_accuracy, "
      "final_mean_test_accuracy, knot_abs_max, model0_test_accuracy, "
      "near_chance)",
      Error);
}

TEST_CASE("--arch-split chooses the split of the D_arch batches: arch (held out) or train") {
  for (const ArchSplit split : {ArchSplit::arch, ArchSplit::train}) {
    CAPTURE(name_of(split));
    SearchConfig c = small_search();
    c.arch_split = split;
    Search search(c, "");
    // What model 0 scores on the first batch of its D_arch stream, drawn
    // from the named split with the stream's own seed.
    Batch batch;
    Rng rng(c.base.seed, 2);
    search.models().trainer(0).task().sample(name_of(split), search.config().arch_batch, rng,
                                             batch);
    double expected = 0;
    {
      NoGrad no_grad;
      const BatchTensors t = to_tensors(batch);
      expected =
          task_loss(search.models().trainer(0).model().forward(t.inputs), t.targets, t.mask).item();
      reset_step();
    }
    CHECK(search.arch_backward(0) == expected);
  }
  // The two splits hold different examples, so the two first batches differ.
  SearchConfig a = small_search(), t = small_search();
  t.arch_split = ArchSplit::train;
  Search sa(a, ""), st(t, "");
  CHECK(sa.arch_backward(0) != st.arch_backward(0));
  // Recorded in search.json; a search.json from before the option reads as arch.
  CHECK(SearchConfig::from_json(t.to_json()).arch_split == ArchSplit::train);
  const Json now = a.to_json();
  Json old = Json::object();
  for (const auto& [key, value] : now.as_object())
    if (key != "arch_split") old.set(key, value);
  CHECK(SearchConfig::from_json(old).arch_split == ArchSplit::arch);
}

TEST_CASE("a search records model 0's last test accuracy beside the models' mean") {
  const fs::path dir =
      fs::temp_directory_path() / ("tapir_search_model0_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  Search search(small_search(), dir.string());
  search.run();
  const SearchOutcome stored =
      read_json_file((dir / "search_result.json").string(), SearchOutcome::from_json);
  // Model 0's last line in its own metrics is the accuracy recorded.
  double last = -1;
  read_json_lines((dir / "models" / "model-0" / "metrics.jsonl").string(), [&](const Json& j) {
    const Json* split = j.find("split");
    if (split && split->as_string() == "test") last = j.at("accuracy").as_double();
  });
  CHECK(last >= 0);
  CHECK(stored.model0_accuracy == last);
  fs::remove_all(dir);
}

TEST_CASE("a search whose models cannot learn records that they ended near chance") {
  SearchConfig c = small_search();
  c.base.schedule.base_lr = 1e-9;  // the models' weights stay where they started
  c.arch_lr = 1e-9;
  const fs::path dir =
      fs::temp_directory_path() / ("tapir_search_chance_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  Search search(c, dir.string());
  search.run();
  CHECK(search.outcome().near_chance());
  const SearchOutcome stored =
      read_json_file((dir / "search_result.json").string(), SearchOutcome::from_json);
  CHECK(stored.near_chance());
  CHECK(stored.steps == search.steps_total());
  fs::remove_all(dir);
}

TEST_CASE("search --repeat: independent searches in folders of their own, seeds a stride apart") {
  test_support::TempDir tmp;
  SearchConfig s = small_search();
  s.models = 2;
  s.steps = 3;
  s.base.steps = 3;
  s.base.seed = 5;
  const std::string out = tmp.file("searches");
  start_repeated_search_jobs(s, out, 2, /*force=*/false, "", /*quiet=*/true);
  std::vector<std::string> archs;
  for (int k = 0; k < 2; ++k) {
    const std::string dir = out + "/search-" + std::to_string(k);
    const SearchConfig written = read_json_file(dir + "/search.json", SearchConfig::from_json);
    CHECK(written.base.seed == 5 + static_cast<uint64_t>(k) * kSearchSeedStride);
    archs.push_back(read_file(dir + "/arch.safetensors"));
  }
  CHECK(archs[0] != archs[1]);  // other models, other functions
  // One search is the plain search, in `out` itself.
  start_repeated_search_jobs(s, tmp.file("one"), 1, false, "", true);
  CHECK(std::filesystem::exists(tmp.file("one/arch.safetensors")));
  CHECK_THROWS_AS(start_repeated_search_jobs(s, tmp.file("none"), 0, false, "", true), Error);
}
