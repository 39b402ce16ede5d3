// engine/dist.h, run as one process (rank 0 of 1) and under
// `mpirun -np 2` (tests/CMakeLists.txt registers both): rank order of
// all_gather, sums added in rank order, check_same, the owner of each item,
// messages put and taken, the rows a data-parallel rank takes
// (optim/data_parallel.h) and an evaluation shared among the ranks
// (optim/evaluator.h). Its own main: MPI starts before the tests and ends
// after them.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/error.h"
#include "engine/dist.h"
#include "engine/threads.h"
#include "optim/data_parallel.h"
#include "optim/model_run.h"

using namespace tapir;

TEST_CASE("all_gather returns every rank's bytes in rank order") {
  const std::vector<std::string> all = dist::all_gather(std::string(size_t(dist::rank()), 'x'));
  REQUIRE(static_cast<int>(all.size()) == dist::size());
  for (int r = 0; r < dist::size(); ++r) CHECK(all[static_cast<size_t>(r)] == std::string(r, 'x'));
}

TEST_CASE("sums over ranks are added in rank order, the same bits on every rank") {
  // Values whose float sum depends on the order: 1e8 + 1 - 1e8 ...
  const float mine[3] = {dist::rank() == 0 ? 1e8f : 1.0f, float(dist::rank()) + 0.5f, -0.25f};
  std::vector<float> data(mine, mine + 3);
  dist::sum_in_rank_order(data.data(), 3);
  for (int i = 0; i < 3; ++i) {
    float expected = 0;
    for (int r = 0; r < dist::size(); ++r) {
      const float v[3] = {r == 0 ? 1e8f : 1.0f, float(r) + 0.5f, -0.25f};
      expected = r == 0 ? v[i] : expected + v[i];
    }
    CHECK(data[static_cast<size_t>(i)] == expected);
  }
  // Every rank holds the same bits.
  const std::string bits(reinterpret_cast<const char*>(data.data()), sizeof(float) * 3);
  for (const std::string& other : dist::all_gather(bits)) CHECK(other == bits);
  double d = dist::rank() + 1.0;
  dist::sum_in_rank_order(&d, 1);
  CHECK(d == dist::size() * (dist::size() + 1) / 2.0);
}

TEST_CASE("check_same passes on equal texts and names what differs") {
  CHECK_NOTHROW(dist::check_same("the command line", "train --steps 5"));
  if (dist::size() > 1)
    CHECK_THROWS_WITH_AS(dist::check_same("the seed", std::to_string(dist::rank())),
                         doctest::Contains("the ranks disagree on the seed: rank 1"), Error);
}

TEST_CASE("items are shared out round-robin") {
  for (int64_t k = 0; k < 7; ++k) CHECK(dist::owner(k) == k % dist::size());
}

TEST_CASE("data-parallel ranks take their rows of the batch and their share of its mask") {
  Batch whole;
  whole.reset(5, 2, 0);
  for (int64_t i = 0; i < 10; ++i) {
    whole.tokens[static_cast<size_t>(i)] = static_cast<int32_t>(i);
    whole.mask[static_cast<size_t>(i)] = i % 3 == 0 ? 0.0f : 1.0f;  // 6 of 10 count
  }
  Batch mine;
  const double share = take_rank_rows(whole, mine);
  // Rank r of N: the r-th of N blocks of rows, the first ones larger.
  const ChunkRange rows = parallel_chunk(5, dist::size(), dist::rank());
  CHECK(mine.B == rows.end - rows.begin);
  REQUIRE(mine.tokens.size() == static_cast<size_t>(mine.B * 2));
  CHECK(mine.tokens.front() == rows.begin * 2);
  double counted = 0;
  for (float m : mine.mask) counted += m;
  CHECK(share == doctest::Approx(counted / 6));
  double total = share;
  dist::sum_in_rank_order(&total, 1);
  CHECK(total == doctest::Approx(1.0));
}

TEST_CASE("put and take read back values in order and refuse a short message") {
  std::string message;
  const int64_t count = 3;
  const double values[3] = {0.1, -2.5, 1e300};
  dist::put(message, &count, 1);
  dist::put(message, values, 3);
  size_t at = 0;
  int64_t count_back = 0;
  double values_back[3] = {};
  dist::take(message, at, &count_back, 1);
  dist::take(message, at, values_back, 3);
  CHECK(count_back == 3);
  for (int i = 0; i < 3; ++i) CHECK(values_back[i] == values[i]);
  CHECK(at == message.size());
  CHECK_THROWS_WITH_AS(dist::take(message, at, values_back, 1),
                       doctest::Contains("a rank sent a short message"), Error);
}

namespace {

void check_same_tally(const Tally& shared, const Tally& alone) {
  CHECK(shared.examples == alone.examples);
  CHECK(shared.correct == alone.correct);
  CHECK(shared.tokens == alone.tokens);
  CHECK(shared.tokens_correct == alone.tokens_correct);
  CHECK(shared.loss_tokens == alone.loss_tokens);
  CHECK(shared.loss_sum == alone.loss_sum);  // the same bits, not merely close
}

// A small untrained model of `task`, evaluated in batches of 7 of the
// first `limit` examples of a split.
ModelRun small_run(const std::string& task, int64_t limit) {
  TrainConfig c;
  c.task = task;
  if (task == "modadd") c.task_options.set("p", "23");
  c.model.width = 16;
  c.model.layers = 1;
  c.model.heads = 2;
  c.eval_batch = 7;
  c.eval_limit = limit;
  return build_run(c);
}

// Evaluators of `run`'s model on `task`: alone as one process, and shared
// among the ranks.
struct Evaluators {
  Evaluator alone, over_ranks;
};
Evaluators evaluators_of(const ModelRun& run, const Task& task) {
  EvalSettings shared = eval_settings(run.config);
  shared.over_ranks = true;
  return {Evaluator(*run.model, task, run.config.device, eval_settings(run.config)),
          Evaluator(*run.model, task, run.config.device, shared)};
}

// modadd with its examples scored loss sums of 2^-53, but 1 for the last
// of each 7: a running total past 2 loses every 2^-53, a batch's own sum of
// 7 keeps them, so the bits depend on the order of the additions.
class TinyAndOne : public Task {
 public:
  explicit TinyAndOne(const Task& inner) : inner_(&inner) {}
  std::string name() const override { return inner_->name(); }
  std::string describe() const override { return inner_->describe(); }
  const Vocab& vocab() const override { return inner_->vocab(); }
  int32_t pad_token() const override { return inner_->pad_token(); }
  int64_t max_length() const override { return inner_->max_length(); }
  std::vector<std::string> eval_splits() const override { return inner_->eval_splits(); }
  void sample(const std::string& split, int64_t batch_size, Rng& rng, Batch& out) const override {
    inner_->sample(split, batch_size, rng, out);
  }
  int64_t eval_size(const std::string& split) const override { return inner_->eval_size(split); }
  void eval_batch(const std::string& split, int64_t begin, int64_t count,
                  Batch& out) const override {
    inner_->eval_batch(split, begin, count, out);
  }
  void score(const Batch& batch, const float* /*logits*/, const float* /*losses*/,
             EvalTally& tally) const override {
    for (int64_t b = 0; b < batch.B; ++b) {
      Tally one;
      one.examples = 1;
      one.loss_tokens = 1;
      one.loss_sum = b % 7 == 6 ? 1.0 : 0x1p-53;
      tally.add(one);
    }
  }

 private:
  const Task* inner_;
};

}  // namespace

TEST_CASE("an evaluation shared among the ranks adds the loss sums in one process's order") {
  const ModelRun run = small_run("modadd", 60);
  const TinyAndOne task(*run.task);
  const auto [alone, over_ranks] = evaluators_of(run, task);
  const Tally a = alone.evaluate_split("test").tally.all;
  const Tally b = over_ranks.evaluate_split("test").tally.all;
  check_same_tally(b, a);
  // Each batch summed first, then the batches, gives other bits: the order
  // of the additions is what this test checks (60 examples, 9 batches).
  double by_batch = 0;
  alone.for_each_batch("test", {}, [&](const Batch& batch, const BatchTensors& t) {
    EvalTally one_batch;
    alone.score(batch, run.model->forward(t.inputs), one_batch);
    by_batch += one_batch.all.loss_sum;
  });
  CHECK(by_batch != a.loss_sum);
}

TEST_CASE("an evaluation shared among the ranks gives one process's tally, bit for bit") {
  // modadd scores example by example; dyck (lm mode) also keeps a tally per
  // length. Batches of 7 of 40 examples: 6 batches, the last one short.
  for (const std::string task : {"modadd", "dyck"}) {
    CAPTURE(task);
    const ModelRun run = small_run(task, 40);
    const auto [alone, over_ranks] = evaluators_of(run, *run.task);
    for (const std::string& split : run.task->eval_splits()) {
      CAPTURE(split);
      const EvalTally a = alone.evaluate_split(split).tally;
      const EvalTally b = over_ranks.evaluate_split(split).tally;
      CHECK(a.all.examples == 40);
      check_same_tally(b.all, a.all);
      REQUIRE(b.by_group.size() == a.by_group.size());
      for (const auto& [key, tally] : a.by_group) {
        REQUIRE(b.by_group.count(key) == 1);
        check_same_tally(b.by_group.at(key), tally);
      }
      if (task == "dyck") CHECK(!a.by_group.empty());
    }
  }
}

int main(int argc, char** argv) {
  dist::init(argc, argv);
  doctest::Context context(argc, argv);
  const int code = context.run();
  // A failure on one rank fails the job.
  const std::vector<std::string> codes = dist::all_gather(std::to_string(code));
  int worst = 0;
  for (const std::string& c : codes) worst = std::max(worst, std::stoi(c));
  dist::finalize();
  return worst;
}
