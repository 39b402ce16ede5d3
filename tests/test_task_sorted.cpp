// Tests of the sorted task (tasks/sorted.cpp): labels agree with a sortedness
// check written here, negatives are one swap away from a sorted sequence,
// lengths follow the splits, evaluation sets are balanced, train and test are
// disjoint, and the shared layout and determinism contracts hold.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "task_checks.h"

using namespace task_checks;

namespace {

struct Decoded {
  std::vector<int32_t> x;  // the symbols
  bool yes = false;
};

// `<bos> x ? label` from a batch row; symbols are ids below `symbols`.
Decoded decode(const Task& task, const Batch& batch, int64_t row, int symbols) {
  const std::vector<int32_t> seq = row_sequence(batch, row, task.pad_token());
  REQUIRE(seq.size() >= 4);
  REQUIRE(seq.front() == task.vocab().id("<bos>"));
  REQUIRE(seq[seq.size() - 2] == task.vocab().id("?"));
  Decoded d;
  d.x.assign(seq.begin() + 1, seq.end() - 2);
  for (int32_t v : d.x) REQUIRE((v >= 0 && v < symbols));
  const int32_t label = seq.back();
  REQUIRE((label == task.vocab().id("yes") || label == task.vocab().id("no")));
  d.yes = label == task.vocab().id("yes");
  return d;
}

bool sorted_by_hand(const std::vector<int32_t>& x) {
  for (size_t i = 1; i < x.size(); ++i)
    if (x[i] < x[i - 1]) return false;
  return true;
}

}  // namespace

TEST_CASE("sorted: labels, negatives one swap from sorted, lengths and the scored position") {
  auto task = make("sorted", {{"symbols", "6"},
                              {"min-len", "3"},
                              {"max-len", "9"},
                              {"test-max-len", "14"},
                              {"eval-size", "400"}});
  for (const std::string split : {"train", "test", "test_long"}) {
    CAPTURE(split);
    const Batch batch = split == "train" ? sample(*task, split, 400, 5) : eval_all(*task, split);
    check_layout(*task, batch);
    int yes = 0;
    for (int64_t b = 0; b < batch.B; ++b) {
      const Decoded d = decode(*task, batch, b, 6);
      CHECK(d.yes == sorted_by_hand(d.x));
      yes += d.yes;
      const auto n = static_cast<int64_t>(d.x.size());
      CHECK(batch.group[b] == n);
      if (split == "test_long") {
        CHECK((n >= 10 && n <= 14));
      } else {
        CHECK((n >= 3 && n <= 9));
      }
      if (!d.yes) {  // differs from its sorted version in exactly two places
        std::vector<int32_t> s = d.x;
        std::sort(s.begin(), s.end());
        int differ = 0;
        for (size_t i = 0; i < s.size(); ++i) differ += s[i] != d.x[i];
        CHECK(differ == 2);
      }
      // Only `?` is scored.
      for (int64_t t = 0; t < batch.T; ++t)
        CHECK(batch.mask[batch.at(b, t)] == (t == n + 1 ? 1.0f : 0.0f));
    }
    if (split == "train") {
      CHECK(yes > 150);
      CHECK(yes < 250);
    } else {
      CHECK(yes == 200);  // even examples sorted, odd ones not
    }
  }
  CHECK(task->max_length() == 16);
}

TEST_CASE("sorted: train and test are disjoint, and the task is deterministic") {
  auto task = make("sorted", {{"symbols", "4"}, {"max-len", "6"}, {"eval-size", "300"}});
  std::set<std::vector<int32_t>> train;
  const Batch batch = sample(*task, "train", 3000, 9);
  for (int64_t b = 0; b < batch.B; ++b) train.insert(decode(*task, batch, b, 4).x);
  const Batch test = eval_all(*task, "test");
  for (int64_t b = 0; b < test.B; ++b) CHECK(train.count(decode(*task, test, b, 4).x) == 0);
  check_determinism("sorted", {{"max-len", "8"}, {"eval-size", "50"}}, {"test", "test_long"});
}

TEST_CASE("sorted: bad options are refused by name") {
  check_rejected("sorted", {{"symbols", "1"}}, "symbols");
  check_rejected("sorted", {{"min-len", "9"}, {"max-len", "8"}}, "min-len");
  check_rejected("sorted", {{"max-len", "8"}, {"test-max-len", "8"}}, "test-max-len");
  check_rejected("sorted", {{"mode", "lm"}}, "mode");
  CHECK_THROWS_WITH_AS(make("sorted")->eval_size("valid"), doctest::Contains("valid"),
                       tapir::Error);
}
