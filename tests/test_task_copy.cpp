// Tests for the copy task (tasks/copy.cpp): rows decode to `$ s | s .`, the
// mask covers exactly the copied part, lengths stay in each split's range,
// the held-out parts never share a string, and the data seed fixes the sets.
#include <doctest/doctest.h>

#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/error.h"
#include "tasks/task.h"
#include "tests/test_support.h"

namespace {

using test_support::error_of;

using tapir::Batch;
using tapir::Rng;
using tapir::TaskOptions;

std::unique_ptr<tapir::Task> make_copy(std::map<std::string, std::string> options = {}) {
  return tapir::make_task("copy", TaskOptions(std::move(options)));
}

// Checks row b against the format by decoding it to names, and returns the
// source string s.
std::vector<std::string> check_row(const tapir::Task& task, const Batch& batch, int64_t b) {
  const tapir::Vocab& vocab = task.vocab();
  auto name = [&](int64_t t) { return vocab.names.at(batch.tokens[batch.at(b, t)]); };
  auto target = [&](int64_t t) { return vocab.names.at(batch.targets[batch.at(b, t)]); };
  REQUIRE(name(0) == "$");
  int64_t bar = 1;
  while (bar < batch.T && name(bar) != "|") ++bar;
  REQUIRE(bar < batch.T);
  const int64_t len = bar - 1;
  std::vector<std::string> s;
  for (int64_t t = 1; t <= len; ++t) s.push_back(name(t));
  for (const std::string& c : s) CHECK(std::isdigit(static_cast<unsigned char>(c[0])));
  CHECK(batch.group[b] == len);
  REQUIRE(2 * len + 2 <= batch.T);
  // The copied part: the positions after `|` repeat s; their targets are s
  // shifted by one and then the final `.`.
  for (int64_t i = 0; i < len; ++i) CHECK(name(bar + 1 + i) == s[static_cast<size_t>(i)]);
  for (int64_t t = 0; t < batch.T; ++t) {
    const bool copied = t >= len + 1 && t <= 2 * len + 1;
    CHECK(batch.mask[batch.at(b, t)] == (copied ? 1.0f : 0.0f));
    if (copied) CHECK(target(t) == (t <= 2 * len ? s[static_cast<size_t>(t - len - 1)] : "."));
    if (t < 2 * len + 1) CHECK(target(t) == name(t + 1));
    if (t >= 2 * len + 2) CHECK(batch.tokens[batch.at(b, t)] == task.pad_token());
  }
  return s;
}

std::string joined(const std::vector<std::string>& s) {
  std::string out;
  for (const std::string& c : s) out += c + ",";
  return out;
}

}  // namespace

TEST_CASE("copy rows are `$ s | s .` with the mask on the copied part") {
  auto task = make_copy();
  CHECK(task->vocab().size() == 14);
  CHECK(task->max_length() == 62);
  CHECK(task->eval_splits() == std::vector<std::string>{"test", "test_long"});
  Rng rng(7);
  Batch batch;
  task->sample("train", 200, rng, batch);
  for (int64_t b = 0; b < batch.B; ++b) check_row(*task, batch, b);
}

TEST_CASE("copy lengths stay in each split's range; eval sets cover every length") {
  auto task = make_copy();
  struct Expect {
    std::string split;
    int64_t lo, hi;
  };
  Rng rng(3);
  Batch batch;
  for (const Expect& e : {Expect{"train", 2, 10}, Expect{"arch", 2, 15}, Expect{"test", 2, 10},
                          Expect{"test_long", 11, 30}}) {
    CAPTURE(e.split);
    std::set<int64_t> seen;
    task->sample(e.split, 400, rng, batch);
    for (int64_t b = 0; b < batch.B; ++b) {
      const auto len = static_cast<int64_t>(check_row(*task, batch, b).size());
      CHECK(len >= e.lo);
      CHECK(len <= e.hi);
      seen.insert(len);
    }
    CHECK(static_cast<int64_t>(seen.size()) == e.hi - e.lo + 1);  // uniform: all lengths appear
    CHECK(batch.T <= task->max_length());
  }
  for (const std::string split : {"test", "test_long"}) {
    CHECK(task->eval_size(split) == 2000);
    task->eval_batch(split, 0, 2000, batch);
    std::map<int64_t, int64_t> per_length;
    for (int64_t b = 0; b < batch.B; ++b) ++per_length[batch.group[b]];
    for (const auto& [len, n] : per_length) CHECK(n >= 2000 / int64_t(per_length.size()));
    CHECK(per_length.begin()->first == (split == "test" ? 2 : 11));
    CHECK(per_length.rbegin()->first == (split == "test" ? 10 : 30));
  }
}

TEST_CASE("copy train, arch and test never share a string") {
  auto task = make_copy();
  Rng rng(11);
  Batch batch;
  auto strings_of = [&](const Batch& b, int64_t max_len) {
    std::set<std::string> out;
    for (int64_t i = 0; i < b.B; ++i) {
      auto s = check_row(*task, b, i);
      if (static_cast<int64_t>(s.size()) <= max_len) out.insert(joined(s));
    }
    return out;
  };
  // Length 2 has only 100 strings: 20000 draws see every train string.
  std::set<std::string> train, arch;
  for (int i = 0; i < 10; ++i) {
    task->sample("train", 2000, rng, batch);
    for (const std::string& s : strings_of(batch, 3)) train.insert(s);
    task->sample("arch", 2000, rng, batch);
    for (const std::string& s : strings_of(batch, 3)) arch.insert(s);
  }
  task->eval_batch("test", 0, 2000, batch);
  const std::set<std::string> test = strings_of(batch, 3);
  CHECK(!test.empty());
  CHECK(!arch.empty());
  CHECK(train.size() > 50);
  for (const std::string& s : test) CHECK(train.count(s) == 0);
  for (const std::string& s : test) CHECK(arch.count(s) == 0);
  for (const std::string& s : arch) CHECK(train.count(s) == 0);
}

TEST_CASE("copy: the data seed fixes eval sets and samples") {
  auto a = make_copy({{"data-seed", "5"}});
  auto b = make_copy({{"data-seed", "5"}});
  auto c = make_copy({{"data-seed", "6"}});
  Batch x, y, z;
  a->eval_batch("test_long", 0, 300, x);
  b->eval_batch("test_long", 0, 300, y);
  c->eval_batch("test_long", 0, 300, z);
  CHECK(x.tokens == y.tokens);
  CHECK(x.tokens != z.tokens);
  // A window into the set is the same examples as the whole set.
  b->eval_batch("test_long", 100, 20, y);
  for (int64_t i = 0; i < 20; ++i) {
    for (int64_t t = 0; t < y.T; ++t)
      CHECK(y.tokens[y.at(i, t)] == (t < x.T ? x.tokens[x.at(100 + i, t)] : a->pad_token()));
  }
  Rng r1(9), r2(9), r3(9);
  a->sample("train", 64, r1, x);
  b->sample("train", 64, r2, y);
  c->sample("train", 64, r3, z);
  CHECK(x.tokens == y.tokens);
  CHECK(x.tokens != z.tokens);
}

TEST_CASE("copy scoring: exact match per length") {
  auto task = make_copy({{"eval-size", "40"}});
  Batch batch;
  task->eval_batch("test", 0, 40, batch);
  const int64_t V = task->vocab().size();
  std::vector<float> logits(static_cast<size_t>(batch.B * batch.T * V), 0.0f);
  std::vector<float> losses(static_cast<size_t>(batch.B * batch.T), 0.5f);
  for (int64_t i = 0; i < batch.B * batch.T; ++i) logits[i * V + batch.targets[i]] = 1.0f;
  // Break one copied symbol of example 0.
  const int64_t len = batch.group[0];
  const int64_t wrong = batch.at(0, len + 1);
  logits[wrong * V + (batch.targets[wrong] + 1) % V] = 2.0f;
  tapir::EvalTally tally;
  task->score(batch, logits.data(), losses.data(), tally);
  CHECK(tally.all.examples == 40);
  CHECK(tally.all.correct == 39);
  CHECK(tally.by_group.size() == 9);
  CHECK(tally.by_group.at(static_cast<int32_t>(len)).correct ==
        tally.by_group.at(static_cast<int32_t>(len)).examples - 1);
  CHECK(tally.all.loss() == doctest::Approx(0.5));
}

TEST_CASE("copy rejects bad options naming them") {
  CHECK(error_of([] { make_copy({{"max-len", "1"}}); }).find("max-len") != std::string::npos);
  CHECK(error_of([] {
          make_copy({{"test-max-len", "10"}});
        }).find("test-max-len") != std::string::npos);
  CHECK(error_of([] {
          make_copy({{"arch-max-len", "9"}});
        }).find("arch-max-len") != std::string::npos);
  CHECK(error_of([] { make_copy({{"alphabet", "1"}}); }).find("alphabet") != std::string::npos);
  CHECK(error_of([] { make_copy({{"eval-size", "0"}}); }).find("eval-size") != std::string::npos);
  CHECK(error_of([] { make_copy({{"lenght", "3"}}); }).find("lenght") != std::string::npos);
  // Two strings of length 1 cannot fill three parts.
  const std::string tiny = error_of([] { make_copy({{"alphabet", "2"}, {"min-len", "1"}}); });
  CHECK(tiny.find("alphabet") != std::string::npos);
  CHECK(tiny.find("min-len") != std::string::npos);
  auto task = make_copy();
  Rng rng(1);
  Batch batch;
  CHECK(error_of([&] { task->sample("valid", 1, rng, batch); }).find("valid") != std::string::npos);
}
