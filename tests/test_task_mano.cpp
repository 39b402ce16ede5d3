// Tests of the mano task (tasks/mano.cpp). Each expression is parsed and
// evaluated here by a recursive-descent reader of the prefix tokens, written
// apart from the generator.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "task_checks.h"

using namespace task_checks;

namespace {

// Reads one prefix expression starting at seq[pos] over tokens 0..p-1
// (values) and p, p+1, p+2 (+, -, *); advances pos and counts operators.
int64_t evaluate(const std::vector<int32_t>& seq, size_t& pos, int64_t p, int64_t& ops) {
  REQUIRE(pos < seq.size());
  const int32_t token = seq[pos++];
  if (token < p) return token;
  REQUIRE(token <= p + 2);
  ++ops;
  const int64_t left = evaluate(seq, pos, p, ops);
  const int64_t right = evaluate(seq, pos, p, ops);
  if (token == p) return (left + right) % p;
  if (token == p + 1) return ((left - right) % p + p) % p;
  return (left * right) % p;
}

// Checks every row and returns how many rows had each operation count.
std::map<int32_t, int64_t> check_rows(const tapir::Task& task, const tapir::Batch& batch, int64_t p,
                                      int64_t max_ops) {
  check_layout(task, batch);
  CHECK(batch.T == 2 * max_ops + 2);
  std::map<int32_t, int64_t> by_ops;
  for (int64_t r = 0; r < batch.B; ++r) {
    const std::vector<int32_t> seq = row_sequence(batch, r, task.pad_token());
    CAPTURE(task.vocab().decode(seq.data(), static_cast<int64_t>(seq.size())));
    size_t pos = 0;
    int64_t ops = 0;
    const int64_t value = evaluate(seq, pos, p, ops);
    // The expression is followed by `=` and its value, and nothing else.
    REQUIRE(pos + 2 == seq.size());
    REQUIRE(seq[pos] == p + 3);
    REQUIRE(seq[pos + 1] == value);
    REQUIRE(ops >= 1);
    REQUIRE(ops <= max_ops);
    REQUIRE(batch.group[r] == ops);
    for (int64_t t = 0; t < batch.T; ++t)
      REQUIRE(batch.mask[batch.at(r, t)] == (t == static_cast<int64_t>(pos) ? 1.0f : 0.0f));
    ++by_ops[static_cast<int32_t>(ops)];
  }
  return by_ops;
}

}  // namespace

TEST_CASE("mano: answers, operation counts, masks and groups") {
  auto task = make("mano");
  CHECK(task->eval_splits() == std::vector<std::string>{"test"});
  CHECK(task->group_name() == "L");
  const auto by_ops = check_rows(*task, eval_all(*task, "test"), 23, 8);
  check_rows(*task, sample(*task, "train", 2000, 3), 23, 8);
  check_rows(*task, sample(*task, "arch", 500, 4), 23, 8);
  // L is uniform on 1..8: 2000 examples give each about 250.
  REQUIRE(by_ops.size() == 8);
  for (const auto& [ops, n] : by_ops) CHECK(n > 150);
}

TEST_CASE("mano: other moduli and lengths") {
  auto task = make("mano", {{"mod", "97"}, {"max-ops", "20"}, {"eval-size", "500"}});
  const auto by_ops = check_rows(*task, eval_all(*task, "test"), 97, 20);
  CHECK(by_ops.size() == 20);
  auto two = make("mano", {{"mod", "2"}, {"max-ops", "3"}});
  check_rows(*two, sample(*two, "train", 500, 2), 2, 3);
}

TEST_CASE("mano: tree shapes vary, not only chains") {
  // Record, for the root, how many operations its left subtree holds.
  auto task = make("mano", {{"max-ops", "6"}});
  const tapir::Batch batch = eval_all(*task, "test");
  std::set<int64_t> left_sizes_at_six;
  for (int64_t r = 0; r < batch.B; ++r) {
    const std::vector<int32_t> seq = row_sequence(batch, r, task->pad_token());
    if (batch.group[r] != 6) continue;
    size_t pos = 1;
    int64_t left_ops = 0;
    evaluate(seq, pos, 23, left_ops);
    left_sizes_at_six.insert(left_ops);
  }
  CHECK(left_sizes_at_six == std::set<int64_t>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("mano: the same seed gives the same data, another seed other data") {
  check_determinism("mano", {{"eval-size", "200"}}, {"test", "train", "arch"});
}

TEST_CASE("mano: train, arch and test hold disjoint expressions") {
  // One operation mod 5: 3 * 25 = 75 expressions in all.
  auto task = make("mano", {{"mod", "5"}, {"max-ops", "1"}});
  std::set<std::vector<int32_t>> parts[3];
  const char* splits[3] = {"train", "arch", "test"};
  for (int p = 0; p < 3; ++p) {
    const tapir::Batch batch = sample(*task, splits[p], 5000, 5 + p);
    for (int64_t r = 0; r < batch.B; ++r) {
      std::vector<int32_t> seq = row_sequence(batch, r, task->pad_token());
      parts[p].insert(seq);
    }
  }
  for (int p = 0; p < 3; ++p) {
    CHECK(!parts[p].empty());
    for (int q = p + 1; q < 3; ++q)
      for (const auto& seq : parts[p]) CHECK(parts[q].count(seq) == 0);
  }
  CHECK(parts[0].size() + parts[1].size() + parts[2].size() == 75);
}

TEST_CASE("mano: bad options are rejected naming the option") {
  check_rejected("mano", {{"mod", "21"}}, "mod");
  check_rejected("mano", {{"mod", "1"}}, "mod");
  check_rejected("mano", {{"mod", "1024"}}, "mod");
  check_rejected("mano", {{"max-ops", "0"}}, "max-ops");
  check_rejected("mano", {{"eval-size", "-1"}}, "eval-size");
  check_rejected("mano", {{"data-seed", "x"}}, "data-seed");
  check_rejected("mano", {{"ops", "3"}}, "ops");
  auto task = make("mano");
  tapir::Batch out;
  CHECK_THROWS_WITH_AS(task->eval_batch("test_long", 0, 1, out), doctest::Contains("test_long"),
                       tapir::Error);
}
