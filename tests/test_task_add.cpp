// Tests of the add task (tasks/add.cpp). Every answer is recomputed here from
// the decoded operands, in 128-bit integers rather than the generator's digit
// columns.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "task_checks.h"

using namespace task_checks;

namespace {

__extension__ using u128 = unsigned __int128;

constexpr int32_t kPlus = 10, kEquals = 11, kEnd = 12;

struct Decoded {
  std::vector<int32_t> a, b, answer;
  int64_t equals_at = 0;
};

Decoded decode(const std::vector<int32_t>& seq) {
  Decoded d;
  const auto plus = std::find(seq.begin(), seq.end(), kPlus);
  const auto equals = std::find(seq.begin(), seq.end(), kEquals);
  REQUIRE(plus != seq.end());
  REQUIRE(equals != seq.end());
  REQUIRE(plus < equals);
  REQUIRE(seq.back() == kEnd);
  d.a.assign(seq.begin(), plus);
  d.b.assign(plus + 1, equals);
  d.answer.assign(equals + 1, seq.end() - 1);
  d.equals_at = equals - seq.begin();
  return d;
}

u128 value(const std::vector<int32_t>& digits) {
  u128 v = 0;
  for (int32_t x : digits) {
    REQUIRE(x >= 0);
    REQUIRE(x <= 9);
    v = v * 10 + static_cast<u128>(x);
  }
  return v;
}

std::vector<int32_t> digits_of(u128 v) {
  std::vector<int32_t> out;
  do {
    out.push_back(static_cast<int32_t>(v % 10));
    v /= 10;
  } while (v);
  std::reverse(out.begin(), out.end());
  return out;
}

bool well_formed(const std::vector<int32_t>& number) {
  return !number.empty() && (number.size() == 1 || number[0] != 0);
}

// Checks every row of a batch and returns the operand lengths seen.
std::set<std::pair<size_t, size_t>> check_rows(const tapir::Task& task, const tapir::Batch& batch,
                                               bool reverse, size_t lo, size_t hi) {
  check_layout(task, batch);
  std::set<std::pair<size_t, size_t>> lengths;
  for (int64_t r = 0; r < batch.B; ++r) {
    const std::vector<int32_t> seq = row_sequence(batch, r, task.pad_token());
    const Decoded d = decode(seq);
    CAPTURE(task.vocab().decode(seq.data(), static_cast<int64_t>(seq.size())));
    REQUIRE(well_formed(d.a));
    REQUIRE(well_formed(d.b));
    REQUIRE(d.a.size() >= lo);
    REQUIRE(d.a.size() <= hi);
    REQUIRE(d.b.size() >= lo);
    REQUIRE(d.b.size() <= hi);
    std::vector<int32_t> expected = digits_of(value(d.a) + value(d.b));
    if (reverse) std::reverse(expected.begin(), expected.end());
    REQUIRE(d.answer == expected);
    REQUIRE(batch.group[r] == static_cast<int32_t>(std::max(d.a.size(), d.b.size())));
    // The loss covers exactly the targets after `=`: answer digits and `$`.
    for (int64_t t = 0; t < batch.T; ++t) {
      const bool counted = t >= d.equals_at && t + 1 < static_cast<int64_t>(seq.size());
      REQUIRE(batch.mask[batch.at(r, t)] == (counted ? 1.0f : 0.0f));
    }
    lengths.insert({d.a.size(), d.b.size()});
  }
  return lengths;
}

std::string unordered(const std::vector<int32_t>& seq) {
  const Decoded d = decode(seq);
  u128 x = value(d.a), y = value(d.b);
  if (x > y) std::swap(x, y);
  return std::to_string(static_cast<uint64_t>(x)) + "," + std::to_string(static_cast<uint64_t>(y));
}

}  // namespace

TEST_CASE("add: answers, lengths, masks and groups, in both orientations") {
  for (const char* reverse : {"false", "true"}) {
    CAPTURE(reverse);
    auto task = make("add", {{"reverse", reverse}});
    CHECK(task->eval_splits() == std::vector<std::string>{"test", "test_long"});
    const bool rev = std::string(reverse) == "true";
    const auto test = check_rows(*task, eval_all(*task, "test"), rev, 1, 5);
    check_rows(*task, sample(*task, "train", 2000, 3), rev, 1, 5);
    check_rows(*task, sample(*task, "arch", 500, 4), rev, 1, 5);
    const auto longer = check_rows(*task, eval_all(*task, "test_long"), rev, 6, 7);
    // Every pair of operand lengths appears, in and beyond the training range.
    CHECK(test.size() == 25);
    CHECK(longer.size() == 4);
    CHECK(eval_all(*task, "test_long").T == task->max_length());
  }
}

TEST_CASE("add: twenty-digit operands and one digit past them") {
  auto task = make("add", {{"digits", "20"}, {"extra-digits", "1"}, {"eval-size", "300"}});
  check_rows(*task, eval_all(*task, "test"), false, 1, 20);
  check_rows(*task, eval_all(*task, "test_long"), false, 21, 21);
  CHECK(task->max_length() == 3 * 21 + 3);
}

TEST_CASE("add: the vocabulary spells the documented example, and carries occur") {
  auto task = make("add", {{"digits", "2"}});
  const tapir::Batch batch = sample(*task, "train", 4000, 11);
  bool seen_carry = false;
  for (int64_t r = 0; r < batch.B; ++r) {
    const std::vector<int32_t> seq = row_sequence(batch, r, task->pad_token());
    const Decoded d = decode(seq);
    if (d.answer.size() > std::max(d.a.size(), d.b.size())) seen_carry = true;
  }
  CHECK(seen_carry);
  const std::vector<int32_t> seq = {1, 2, kPlus, 9, kEquals, 2, 1, kEnd};
  CHECK(task->vocab().decode(seq.data(), 8) == "1 2 + 9 = 2 1 $");
}

TEST_CASE("add: the same seed gives the same data, another seed other data") {
  check_determinism("add", {{"eval-size", "200"}}, {"test", "test_long", "train", "arch"});
}

TEST_CASE("add: train, arch and test hold disjoint unordered pairs") {
  auto task = make("add", {{"digits", "2"}});
  std::set<std::string> parts[3];
  const char* splits[3] = {"train", "arch", "test"};
  for (int p = 0; p < 3; ++p) {
    const tapir::Batch batch = sample(*task, splits[p], 60000, 5 + p);
    for (int64_t r = 0; r < batch.B; ++r)
      parts[p].insert(unordered(row_sequence(batch, r, task->pad_token())));
    const tapir::Batch eval = eval_all(*task, splits[p]);
    for (int64_t r = 0; r < eval.B; ++r)
      parts[p].insert(unordered(row_sequence(eval, r, task->pad_token())));
  }
  for (int p = 0; p < 3; ++p)
    for (int q = p + 1; q < 3; ++q)
      for (const std::string& pair : parts[p]) CHECK(parts[q].count(pair) == 0);
  // 5050 unordered pairs of 0..99: about 10% test, 18% arch, 72% train.
  const double total = double(parts[0].size() + parts[1].size() + parts[2].size());
  CHECK(total > 4800);
  CHECK(parts[2].size() / total == doctest::Approx(0.10).epsilon(0.3));
  CHECK(parts[1].size() / total == doctest::Approx(0.18).epsilon(0.3));
}

TEST_CASE("add: bad options are rejected naming the option") {
  check_rejected("add", {{"digits", "0"}}, "digits");
  check_rejected("add", {{"digits", "21"}}, "digits");
  check_rejected("add", {{"extra-digits", "0"}}, "extra-digits");
  check_rejected("add", {{"reverse", "maybe"}}, "reverse");
  check_rejected("add", {{"eval-size", "0"}}, "eval-size");
  check_rejected("add", {{"test-frac", "0.9"}}, "test-frac");
  check_rejected("add", {{"arch-frac", "1"}}, "arch-frac");
  check_rejected("add", {{"digit", "3"}}, "digit");
  auto task = make("add");
  tapir::Batch out;
  tapir::Rng rng(1);
  CHECK_THROWS_WITH_AS(task->sample("valid", 1, rng, out), doctest::Contains("valid"),
                       tapir::Error);
  CHECK_THROWS_AS(task->eval_batch("test", 1990, 20, out), tapir::Error);
}
