// Modular addition: every answer recomputed, splits disjoint and covering
// all p^2 pairs, same seed same data.
#include <doctest/doctest.h>

#include <set>

#include "base/error.h"
#include "tasks/task.h"

using namespace tapir;

namespace {

// Decodes `a + b =` and checks the answer at the last position.
std::pair<int, int> check_example(const Batch& batch, int64_t b, const Vocab& vocab, int p) {
  const int a = std::stoi(vocab.names[batch.tokens[batch.at(b, 0)]]);
  const int c = std::stoi(vocab.names[batch.tokens[batch.at(b, 2)]]);
  CHECK(vocab.names[batch.tokens[batch.at(b, 1)]] == "+");
  CHECK(vocab.names[batch.tokens[batch.at(b, 3)]] == "=");
  CHECK(std::stoi(vocab.names[batch.targets[batch.at(b, 3)]]) == (a + c) % p);
  for (int t = 0; t < 3; ++t) CHECK(batch.mask[batch.at(b, t)] == 0.0f);
  CHECK(batch.mask[batch.at(b, 3)] == 1.0f);
  return {a, c};
}

}  // namespace

TEST_CASE("modadd: answers, disjoint splits that cover every pair, determinism") {
  const int p = 13;
  TaskOptions options({{"p", "13"}, {"train-frac", "0.6"}, {"arch-frac", "0.25"}});
  auto task = make_task("modadd", options);
  const Vocab& vocab = task->vocab();
  CHECK(vocab.size() == p + 2);
  std::set<std::pair<int, int>> seen;
  int64_t total = 0;
  for (const std::string split : {"train", "arch", "test"}) {
    Batch batch;
    const int64_t n = task->eval_size(split);
    task->eval_batch(split, 0, n, batch);
    for (int64_t b = 0; b < n; ++b) seen.insert(check_example(batch, b, vocab, p));
    total += n;
  }
  CHECK(total == p * p);
  CHECK(static_cast<int64_t>(seen.size()) == p * p);                 // disjoint and covering
  CHECK(task->eval_size("train") + task->eval_size("arch") == 101);  // 0.6 * 169, rounded
  CHECK(task->eval_size("arch") == 25);

  // Samples come from the train split only, and the same seed repeats them.
  Batch train;
  task->eval_batch("train", 0, task->eval_size("train"), train);
  std::set<std::pair<int, int>> train_pairs;
  for (int64_t b = 0; b < train.B; ++b)
    train_pairs.insert({train.tokens[train.at(b, 0)], train.tokens[train.at(b, 2)]});
  Rng r1(5, 1), r2(5, 1);
  Batch s1, s2;
  task->sample("train", 64, r1, s1);
  task->sample("train", 64, r2, s2);
  CHECK(s1.tokens == s2.tokens);
  for (int64_t b = 0; b < s1.B; ++b) {
    check_example(s1, b, vocab, p);
    CHECK(train_pairs.count({s1.tokens[s1.at(b, 0)], s1.tokens[s1.at(b, 2)]}) == 1);
  }
  auto other = make_task(
      "modadd", TaskOptions(std::map<std::string, std::string>{{"p", "13"}, {"data-seed", "1"}}));
  Batch o;
  other->eval_batch("test", 0, 10, o);
  Batch mine;
  task->eval_batch("test", 0, 10, mine);
  CHECK(o.tokens != mine.tokens);
}

TEST_CASE("modadd: bad options are refused by name") {
  CHECK_THROWS_WITH_AS(
      make_task("modadd", TaskOptions(std::map<std::string, std::string>{{"p", "1"}})),
      doctest::Contains("option p = 1 is outside the allowed range"), Error);
  CHECK_THROWS_WITH_AS(
      make_task("modadd", TaskOptions(std::map<std::string, std::string>{{"q", "5"}})),
      doctest::Contains("has no option 'q'"), Error);
  CHECK_THROWS_WITH_AS(
      make_task("modadd", TaskOptions(std::map<std::string, std::string>{{"train-frac", "1"}})),
      doctest::Contains("empty train or test split"), Error);
  CHECK_THROWS_WITH_AS(make_task("nosuchtask", TaskOptions()),
                       doctest::Contains("unknown task 'nosuchtask'"), Error);
}
