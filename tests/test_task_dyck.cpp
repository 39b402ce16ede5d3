// Tests of the dyck task (tasks/dyck.cpp) and of dyck_is_balanced. Membership
// is decided here by a depth counter and a stack of types written for the
// tests; the length-conditioned sampler is compared with plain rejection
// sampling of the Hewitt et al. process, also written here.
#include "tasks/dyck.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "task_checks.h"

using namespace task_checks;

namespace {

// Brackets 0..k-1 open, k..2k-1 close.
bool in_dyck(const std::vector<int>& s, int k, int m) {
  std::vector<int> open_types;
  int depth = 0;
  for (int x : s) {
    if (x < 0 || x >= 2 * k) return false;
    if (x < k) {
      open_types.push_back(x);
      if (++depth > m) return false;
      continue;
    }
    if (depth == 0 || open_types[depth - 1] != x - k) return false;
    open_types.pop_back();
    --depth;
  }
  return depth == 0;
}

int max_depth(const std::vector<int>& s, int k) {
  int depth = 0, deepest = 0;
  for (int x : s) deepest = std::max(deepest, depth += x < k ? 1 : -1);
  return deepest;
}

// The Hewitt et al. sampler, rejected until the length lies in (lo, hi].
std::vector<int> hewitt_rejection(tapir::Rng& rng, int k, int m, int lo, int hi) {
  for (;;) {
    std::vector<int> out, stack;
    for (;;) {
      if (static_cast<int>(out.size()) > hi) break;
      const bool must_close = static_cast<int>(stack.size()) == m;
      if (stack.empty() && rng.randint(2) == 0) break;
      if (!stack.empty() && (must_close || rng.randint(2) == 0)) {
        out.push_back(k + stack.back());
        stack.pop_back();
      } else {
        stack.push_back(static_cast<int>(rng.randint(k)));
        out.push_back(stack.back());
      }
    }
    const int n = static_cast<int>(out.size());
    if (stack.empty() && n > lo && n <= hi) return out;
  }
}

struct Row {
  std::vector<int> brackets;
  bool has_label = false, label = false;
};

// Decodes and checks the layout of every row of a batch of either mode.
std::vector<Row> read_rows(const tapir::Task& task, const tapir::Batch& batch, int k, bool accept,
                           int lo, int hi) {
  check_layout(task, batch);
  const tapir::Vocab& v = task.vocab();
  std::vector<Row> rows;
  for (int64_t r = 0; r < batch.B; ++r) {
    const std::vector<int32_t> seq = row_sequence(batch, r, task.pad_token());
    CAPTURE(v.decode(seq.data(), static_cast<int64_t>(seq.size())));
    REQUIRE(seq.front() == v.id("<bos>"));
    const size_t tail = accept ? 2 : 1;  // `$`, or `?` and the label
    Row row;
    row.brackets.assign(seq.begin() + 1, seq.end() - static_cast<int64_t>(tail));
    for (int x : row.brackets) REQUIRE(x < 2 * k);
    const auto n = static_cast<int>(row.brackets.size());
    REQUIRE(n >= lo);
    REQUIRE(n <= hi);
    REQUIRE(batch.group[r] == n);
    if (accept) {
      REQUIRE(seq[seq.size() - 2] == v.id("?"));
      const int32_t label = seq.back();
      REQUIRE((label == v.id("yes") || label == v.id("no")));
      row.has_label = true;
      row.label = label == v.id("yes");
    } else {
      REQUIRE(seq.back() == v.id("$"));
    }
    // lm counts every position of the example; accept only the one at `?`.
    for (int64_t t = 0; t < batch.T; ++t) {
      const bool counted = accept ? t == n + 1 : t <= n;
      REQUIRE(batch.mask[batch.at(r, t)] == (counted ? 1.0f : 0.0f));
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

TEST_CASE("dyck_is_balanced against the test's own checker") {
  CHECK(tapir::dyck_is_balanced({}, 2, 1));
  CHECK(tapir::dyck_is_balanced({0, 1, 3, 2}, 2, 2));        // ( [ ] )
  CHECK_FALSE(tapir::dyck_is_balanced({0, 1, 3, 2}, 2, 1));  // too deep
  CHECK_FALSE(tapir::dyck_is_balanced({0, 1, 2, 3}, 2, 2));  // ( [ ) ]
  CHECK_FALSE(tapir::dyck_is_balanced({2, 0}, 2, 2));        // ) (
  CHECK_FALSE(tapir::dyck_is_balanced({0, 0, 2}, 2, 2));     // unclosed
  CHECK_FALSE(tapir::dyck_is_balanced({0, 4}, 2, 2));        // not a bracket
  tapir::Rng rng(3);
  int balanced = 0;
  for (int i = 0; i < 50000; ++i) {
    std::vector<int> s(static_cast<size_t>(2 * rng.randint(4)));
    for (int& x : s) x = static_cast<int>(rng.randint(4));
    const bool expected = in_dyck(s, 2, 2);
    REQUIRE(tapir::dyck_is_balanced(s, 2, 2) == expected);
    balanced += expected;
  }
  CHECK(balanced > 500);
}

TEST_CASE("dyck lm: balanced strings, length bounds per split, masks and groups") {
  auto task = make("dyck");
  CHECK(task->eval_splits() == std::vector<std::string>{"test", "test_long"});
  CHECK(task->max_length() == 81);
  std::set<int> lengths;
  for (const std::string split : {"train", "arch", "test", "test_long"}) {
    CAPTURE(split);
    const bool longer = split == "test_long";
    const int lo = longer ? 41 : 2, hi = longer ? 80 : 40;
    for (const Row& row : read_rows(*task, eval_all(*task, split), 2, false, lo, hi)) {
      REQUIRE(in_dyck(row.brackets, 2, 4));
      if (!longer) lengths.insert(static_cast<int>(row.brackets.size()));
    }
    read_rows(*task, sample(*task, split, 300, 9), 2, false, lo, hi);
  }
  CHECK(lengths.size() == 20);  // 2, 4, ..., 40
}

TEST_CASE("dyck lm: length-conditioned draws match rejection sampling") {
  // test_long has no hash holdout, so its draws follow the process exactly.
  auto task = make("dyck", {{"types", "2"},
                            {"depth", "3"},
                            {"max-len", "8"},
                            {"test-max-len", "20"},
                            {"eval-size", "20000"}});
  const std::vector<Row> rows = read_rows(*task, eval_all(*task, "test_long"), 2, false, 9, 20);
  tapir::Rng rng(12);
  std::map<int, int64_t> ours_len, ref_len, ours_depth, ref_depth;
  for (const Row& row : rows) {
    ++ours_len[static_cast<int>(row.brackets.size())];
    ++ours_depth[max_depth(row.brackets, 2)];
    const std::vector<int> ref = hewitt_rejection(rng, 2, 3, 8, 20);
    ++ref_len[static_cast<int>(ref.size())];
    ++ref_depth[max_depth(ref, 2)];
  }
  // Two-sample chi-square over the bins of each statistic: lengths 10..20
  // (5 degrees of freedom) and depths 1..3 (2); the bounds have tail
  // probability below 1e-5.
  auto chi2 = [](std::map<int, int64_t> a, std::map<int, int64_t> b) {
    double sum = 0;
    for (auto& [key, n] : a) {
      const double x = double(n), y = double(b[key]);
      sum += (x - y) * (x - y) / (x + y);
    }
    return sum;
  };
  CHECK(ours_len.size() == 6);
  CHECK(chi2(ours_len, ref_len) < 30.0);
  CHECK(chi2(ours_depth, ref_depth) < 24.0);
}

TEST_CASE("dyck: improbable length ranges are drawn without waiting") {
  // With depth 1 a string of 200 brackets has probability about 2^-100 under
  // the process; conditioning makes it as cheap as any other.
  auto task = make("dyck", {{"types", "3"},
                            {"depth", "1"},
                            {"min-len", "150"},
                            {"max-len", "200"},
                            {"test-max-len", "260"},
                            {"eval-size", "100"}});
  for (const Row& row : read_rows(*task, eval_all(*task, "test_long"), 3, false, 201, 260))
    CHECK(in_dyck(row.brackets, 3, 1));
  for (const Row& row : read_rows(*task, eval_all(*task, "test"), 3, false, 150, 200))
    CHECK(in_dyck(row.brackets, 3, 1));
}

TEST_CASE("dyck accept: labels, exact balance, length-matched negatives") {
  auto task = make("dyck", {{"mode", "accept"}, {"types", "3"}, {"depth", "3"}});
  CHECK(task->max_length() == 82);
  for (const std::string split : {"test", "test_long", "train", "arch"}) {
    CAPTURE(split);
    const bool longer = split == "test_long";
    const int lo = longer ? 41 : 2, hi = longer ? 80 : 40;
    const std::vector<Row> rows = read_rows(*task, eval_all(*task, split), 3, true, lo, hi);
    int64_t positives = 0;
    double length_sum[2] = {0, 0};
    for (const Row& row : rows) {
      REQUIRE(row.label == in_dyck(row.brackets, 3, 3));
      positives += row.label;
      length_sum[row.label] += double(row.brackets.size());
    }
    CHECK(positives == 1000);
    // Negatives are corruptions of positives of the same length, so without
    // a holdout (test_long) the mean lengths agree to within sampling noise
    // (sd of their difference about 0.5). The hashed splits select strings: of the
    // three positive strings of length 2 (a quarter of the mass) a part may
    // hold none while holding many of their corruptions, so their means may
    // differ by more.
    if (longer) CHECK(std::abs(length_sum[0] - length_sum[1]) / 1000.0 < 2.5);
    // Random batches are balanced by a fair coin: 2000 labels, sd about 22.
    int64_t sampled = 0;
    for (const Row& row : read_rows(*task, sample(*task, split, 2000, 5), 3, true, lo, hi)) {
      REQUIRE(row.label == in_dyck(row.brackets, 3, 3));
      sampled += row.label;
    }
    CHECK(std::abs(sampled - 1000) < 110);
  }
}

TEST_CASE("dyck lm score: the closing-bracket share must exceed 0.8 at every open position") {
  auto task = make("dyck");
  const tapir::Vocab& v = task->vocab();
  const int64_t V = v.size();
  const int32_t open_round = v.id("("), open_square = v.id("["), close_round = v.id(")"),
                close_square = v.id("]");
  // Two copies of `<bos> ( [ ] )` predicting `( [ ] ) $`. The stack is
  // non-empty after positions 1, 2 and 3, whose right closing brackets are
  // ), ] and ).
  tapir::Batch batch;
  batch.reset(2, 6, task->pad_token());
  const int32_t tokens[5] = {v.id("<bos>"), open_round, open_square, close_square, close_round};
  const int32_t targets[5] = {open_round, open_square, close_square, close_round, v.id("$")};
  std::vector<float> logits(static_cast<size_t>(2 * 6 * V), 0.0f);
  std::vector<float> losses(12, 0.0f);
  for (int b = 0; b < 2; ++b) {
    batch.group[b] = 4;
    for (int t = 0; t < 5; ++t) {
      batch.tokens[batch.at(b, t)] = tokens[t];
      batch.targets[batch.at(b, t)] = targets[t];
      batch.mask[batch.at(b, t)] = 1.0f;
      losses[batch.at(b, t)] = 0.5f;
      // A large logit on an opening bracket must not matter.
      logits[batch.at(b, t) * V + open_round] = 10.0f;
    }
    auto set = [&](int t, int32_t token, float value) {
      logits[static_cast<size_t>(batch.at(b, t) * V + token)] = value;
    };
    set(1, close_round, 3.0f);                   // share e^3 / (e^3 + 1) = 0.95
    set(2, close_square, b == 0 ? 2.0f : 1.0f);  // 0.88 passes, 0.73 fails
    set(3, close_round, 3.0f);
  }
  tapir::EvalTally tally;
  task->score(batch, logits.data(), losses.data(), tally);
  CHECK(tally.all.examples == 2);
  CHECK(tally.all.correct == 1);
  CHECK(tally.all.tokens == 6);
  CHECK(tally.all.tokens_correct == 5);
  CHECK(tally.all.loss_sum == doctest::Approx(5.0));
  // The loss is the mean over all ten masked positions, scored or not.
  CHECK(tally.all.loss_tokens == 10);
  CHECK(tally.all.loss() == doctest::Approx(0.5));
  REQUIRE(tally.by_group.count(4) == 1);
  CHECK(tally.by_group[4].correct == 1);

  // The first row alone passes; the second alone fails.
  tapir::EvalTally first;
  batch.B = 1;
  task->score(batch, logits.data(), losses.data(), first);
  CHECK(first.all.correct == 1);
  CHECK(first.all.tokens_correct == 3);
}

TEST_CASE("dyck accept score: argmax of yes/no at `?`") {
  auto task = make("dyck", {{"mode", "accept"}});
  const tapir::Vocab& v = task->vocab();
  const int64_t V = v.size();
  tapir::Batch batch;
  batch.reset(1, 4, task->pad_token());
  const int32_t tokens[4] = {v.id("<bos>"), v.id("("), v.id(")"), v.id("?")};
  for (int t = 0; t < 4; ++t) batch.tokens[t] = tokens[t];
  batch.targets[3] = v.id("yes");
  batch.mask[3] = 1.0f;
  std::vector<float> logits(static_cast<size_t>(4 * V), 0.0f), losses(4, 0.25f);
  logits[3 * V + v.id("yes")] = 1.0f;
  tapir::EvalTally tally;
  task->score(batch, logits.data(), losses.data(), tally);
  CHECK(tally.all.correct == 1);
  CHECK(tally.all.tokens == 1);
  logits[3 * V + v.id("no")] = 2.0f;
  tapir::EvalTally wrong;
  task->score(batch, logits.data(), losses.data(), wrong);
  CHECK(wrong.all.correct == 0);
}

TEST_CASE("dyck: the same seed gives the same data, another seed other data") {
  check_determinism("dyck", {{"eval-size", "200"}}, {"test", "test_long", "train", "arch"});
  check_determinism("dyck", {{"eval-size", "200"}, {"mode", "accept"}},
                    {"test", "test_long", "train", "arch"});
}

TEST_CASE("dyck: train, arch and test hold disjoint strings") {
  for (const std::string mode : {"lm", "accept"}) {
    CAPTURE(mode);
    // Two bracket types, depth 3, up to 8 brackets: 258 strings, which the
    // samples cover.
    auto task = make("dyck", {{"types", "2"}, {"depth", "3"}, {"max-len", "8"}, {"mode", mode}});
    const bool accept = mode == "accept";
    std::set<std::vector<int>> parts[3];
    const char* splits[3] = {"train", "arch", "test"};
    for (int p = 0; p < 3; ++p)
      for (const Row& row :
           read_rows(*task, sample(*task, splits[p], 20000, 5 + p), 2, accept, 2, 8))
        parts[p].insert(row.brackets);
    for (int p = 0; p < 3; ++p) {
      CHECK(!parts[p].empty());
      for (int q = p + 1; q < 3; ++q)
        for (const auto& s : parts[p]) CHECK(parts[q].count(s) == 0);
    }
    if (!accept) CHECK(parts[0].size() + parts[1].size() + parts[2].size() == 258);
  }
}

TEST_CASE("dyck: vocabulary names for many types") {
  auto task = make("dyck", {{"types", "6"}});
  const tapir::Vocab& v = task->vocab();
  CHECK(v.id("<") == 3);
  CHECK(v.id("o5") == 5);
  CHECK(v.id(")") == 6);
  CHECK(v.id("c5") == 11);
  CHECK(std::set<std::string>(v.names.begin(), v.names.end()).size() == v.names.size());
  for (const Row& row : read_rows(*task, eval_all(*task, "test"), 6, false, 2, 40))
    CHECK(in_dyck(row.brackets, 6, 4));
}

TEST_CASE("dyck: bad options are rejected naming the option") {
  check_rejected("dyck", {{"depth", "0"}}, "depth");
  check_rejected("dyck", {{"types", "0"}}, "types");
  check_rejected("dyck", {{"max-len", "100"}}, "test-max-len");
  check_rejected("dyck", {{"max-len", "80"}}, "test-max-len");
  check_rejected("dyck", {{"min-len", "50"}}, "min-len");
  check_rejected("dyck", {{"min-len", "3"}, {"max-len", "3"}}, "min-len");
  check_rejected("dyck", {{"max-len", "40"}, {"test-max-len", "41"}}, "test-max-len");
  check_rejected("dyck", {{"mode", "classify"}}, "mode");
  check_rejected("dyck", {{"eval-size", "0"}}, "eval-size");
  check_rejected("dyck", {{"depht", "3"}}, "depht");
  // One string in all ("()"): two of the three parts are empty, which is
  // refused at construction, not at the first batch.
  check_rejected("dyck", {{"types", "1"}, {"min-len", "2"}, {"max-len", "2"}}, "max-len=2");
}
