// Tests for the needle task (tasks/needle.cpp), both modes: the answers are
// recomputed from the decoded context, keys and values come from disjoint
// ranges, keys are distinct, the depth groups match the needle's position,
// the held-out parts share no example and the data seed fixes the sets.
#include <doctest/doctest.h>

#include <cmath>
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

std::unique_ptr<tapir::Task> make_needle(std::map<std::string, std::string> options = {}) {
  return tapir::make_task("needle", TaskOptions(std::move(options)));
}

std::vector<int32_t> row(const Batch& batch, int64_t b) {
  return {batch.tokens.begin() + batch.at(b, 0), batch.tokens.begin() + batch.at(b, batch.T)};
}

// Checks an mqar row from its names alone; returns the number of queries.
int64_t check_mqar_row(const tapir::Task& task, const Batch& batch, int64_t b, int64_t pairs,
                       int64_t keys) {
  const tapir::Vocab& vocab = task.vocab();
  auto name = [&](int64_t t) { return vocab.names.at(batch.tokens[batch.at(b, t)]); };
  std::map<std::string, std::string> value_of;
  std::set<std::string> values;
  for (int64_t j = 0; j < pairs; ++j) {
    const int32_t k = batch.tokens[batch.at(b, 2 * j)], v = batch.tokens[batch.at(b, 2 * j + 1)];
    REQUIRE(name(2 * j)[0] == 'k');
    REQUIRE(name(2 * j + 1)[0] == 'v');
    CHECK(k < keys);  // keys and values from disjoint id ranges
    CHECK(v >= keys);
    CHECK(value_of.count(name(2 * j)) == 0);  // distinct keys
    value_of[name(2 * j)] = name(2 * j + 1);
    values.insert(name(2 * j + 1));
  }
  CHECK(values.size() == size_t(pairs));
  std::set<std::string> asked;
  for (int64_t t = 0; t < batch.T; ++t) {
    const int64_t i = batch.at(b, t);
    if (t < 2 * pairs) {
      CHECK(batch.mask[i] == 0.0f);
      continue;
    }
    if (name(t) == "_") {
      CHECK(batch.mask[i] == 0.0f);
      continue;
    }
    // A query: an even offset into the region, a key of the pairs, asked once,
    // and its target the paired value.
    CHECK((t - 2 * pairs) % 2 == 0);
    REQUIRE(value_of.count(name(t)) == 1);
    CHECK(asked.insert(name(t)).second);
    CHECK(batch.mask[i] == 1.0f);
    CHECK(vocab.names.at(batch.targets[i]) == value_of[name(t)]);
  }
  CHECK(batch.group[b] == pairs);
  return static_cast<int64_t>(asked.size());
}

// Checks a haystack row; returns the needle's position.
int64_t check_haystack_row(const tapir::Task& task, const Batch& batch, int64_t b) {
  const tapir::Vocab& vocab = task.vocab();
  auto name = [&](int64_t t) { return vocab.names.at(batch.tokens[batch.at(b, t)]); };
  const int64_t C = batch.T;
  int64_t needle = -1;
  for (int64_t t = 0; t < C - 2; ++t) {
    if (name(t)[0] == 'f') continue;
    if (needle < 0) {
      needle = t;
      REQUIRE(name(t)[0] == 'k');
    } else {
      CHECK(t == needle + 1);
      CHECK(name(t)[0] == 'v');
    }
  }
  REQUIRE(needle >= 0);
  CHECK(name(C - 2) == "?");
  CHECK(name(C - 1) == name(needle));
  for (int64_t t = 0; t < C; ++t) CHECK(batch.mask[batch.at(b, t)] == (t == C - 1 ? 1.0f : 0.0f));
  CHECK(vocab.names.at(batch.targets[batch.at(b, C - 1)]) == name(needle + 1));
  const double percent = 100.0 * double(needle) / double(C - 4);
  CHECK(batch.group[b] == 10 * std::lround(percent / 10.0));
  return needle;
}

}  // namespace

TEST_CASE("needle mqar: answers are the values of the asked keys") {
  auto task = make_needle();
  CHECK(task->vocab().size() == 64 + 64 + 2);
  CHECK(task->max_length() == 128);
  CHECK(task->group_name() == "pairs");
  Rng rng(1);
  Batch batch;
  task->sample("train", 300, rng, batch);
  CHECK(batch.T == 64);
  for (int64_t b = 0; b < batch.B; ++b) CHECK(check_mqar_row(*task, batch, b, 8, 64) == 8);
  task->eval_batch("test_long", 0, 100, batch);
  CHECK(batch.T == 128);
  for (int64_t b = 0; b < batch.B; ++b) CHECK(check_mqar_row(*task, batch, b, 16, 64) == 16);

  auto fewer = make_needle({{"queries", "3"}, {"keys", "20"}, {"values", "30"}});
  fewer->sample("arch", 100, rng, batch);
  for (int64_t b = 0; b < batch.B; ++b) CHECK(check_mqar_row(*fewer, batch, b, 8, 20) == 3);
}

TEST_CASE("needle mqar: power-a pulls queries to the start of the query region") {
  auto early_share = [](const std::string& power_a) {
    auto task = make_needle({{"power-a", power_a}});
    Rng rng(2);
    Batch batch;
    task->sample("train", 500, rng, batch);
    int64_t early = 0, all = 0;
    for (int64_t i = 0; i < batch.B * batch.T; ++i) {
      if (batch.mask[i] == 0.0f) continue;
      const int64_t slot = (i % batch.T - 16) / 2;  // 24 slots after 8 pairs
      early += slot < 12;
      ++all;
    }
    return double(early) / double(all);
  };
  const double power_law = early_share("0.01"), uniform = early_share("1");
  CHECK(uniform == doctest::Approx(0.5).epsilon(0.1));
  CHECK(power_law > uniform + 0.1);
}

TEST_CASE("needle haystack: the answer is the needle's value; groups are its depth") {
  auto task = make_needle({{"mode", "haystack"}});
  CHECK(task->vocab().size() == 64 + 64 + 16 + 2);
  CHECK(task->max_length() == 128);
  CHECK(task->group_name() == "depth");
  Rng rng(3);
  Batch batch;
  task->sample("train", 500, rng, batch);
  CHECK(batch.T == 64);
  std::set<int32_t> groups;
  for (int64_t b = 0; b < batch.B; ++b) {
    check_haystack_row(*task, batch, b);
    groups.insert(batch.group[b]);
  }
  CHECK(groups.size() == 11);
  for (const std::string split : {"test", "test_long"}) {
    task->eval_batch(split, 0, 220, batch);
    CHECK(batch.T == (split == "test" ? 64 : 128));
    for (int64_t b = 0; b < batch.B; ++b) {
      check_haystack_row(*task, batch, b);
      CHECK(batch.group[b] == 10 * (b % 11));  // evaluation depths are controlled
    }
  }
}

TEST_CASE("needle: train, arch and test share no example") {
  // Small option spaces, where collisions would be common.
  const std::vector<std::map<std::string, std::string>> configs = {
      {{"mode", "haystack"}, {"keys", "2"}, {"values", "2"}, {"fillers", "2"}, {"context", "8"}},
      {{"keys", "4"}, {"values", "4"}, {"pairs", "2"}, {"queries", "1"}, {"context", "8"}}};
  for (const auto& config : configs) {
    auto task = make_needle(config);
    Rng rng(4);
    Batch batch;
    std::set<std::vector<int32_t>> train, arch, test;
    for (auto [split, seen] : {std::pair{"train", &train}, {"arch", &arch}}) {
      task->sample(split, 20000, rng, batch);
      for (int64_t b = 0; b < batch.B; ++b) seen->insert(row(batch, b));
    }
    task->eval_batch("test", 0, 2000, batch);
    for (int64_t b = 0; b < batch.B; ++b) test.insert(row(batch, b));
    CHECK(train.size() > 10);
    CHECK(!arch.empty());
    CHECK(!test.empty());
    for (const auto& r : test) CHECK(train.count(r) + arch.count(r) == 0);
    for (const auto& r : arch) CHECK(train.count(r) == 0);
  }
}

TEST_CASE("needle: the data seed fixes eval sets and samples") {
  for (const std::string mode : {"mqar", "haystack"}) {
    auto a = make_needle({{"mode", mode}, {"data-seed", "3"}});
    auto b = make_needle({{"mode", mode}, {"data-seed", "3"}});
    auto c = make_needle({{"mode", mode}, {"data-seed", "4"}});
    Batch x, y, z;
    a->eval_batch("test", 0, 50, x);
    b->eval_batch("test", 0, 50, y);
    c->eval_batch("test", 0, 50, z);
    CHECK(x.tokens == y.tokens);
    CHECK(x.tokens != z.tokens);
    b->eval_batch("test", 10, 5, y);
    for (int64_t i = 0; i < 5; ++i) CHECK(row(y, i) == row(x, 10 + i));
    Rng r1(8), r2(8), r3(8);
    a->sample("train", 32, r1, x);
    b->sample("train", 32, r2, y);
    c->sample("train", 32, r3, z);
    CHECK(x.tokens == y.tokens);
    CHECK(x.tokens != z.tokens);
  }
}

TEST_CASE("needle rejects bad options naming them") {
  auto message = [](std::map<std::string, std::string> options) {
    return error_of([&] { make_needle(std::move(options)); });
  };
  CHECK(message({{"mode", "recall"}}).find("mode") != std::string::npos);
  CHECK(message({{"pairs", "9"}, {"keys", "8"}}).find("pairs") != std::string::npos);
  CHECK(message({{"pairs", "9"}, {"values", "8"}}).find("values = 8") != std::string::npos);
  CHECK(message({{"queries", "9"}}).find("queries") != std::string::npos);
  CHECK(message({{"context", "30"}}).find("context") != std::string::npos);
  CHECK(message({{"test-pairs", "65"}}).find("test-pairs") != std::string::npos);
  CHECK(message({{"test-context", "60"}}).find("test-context") != std::string::npos);
  CHECK(message({{"power-a", "0"}}).find("power-a") != std::string::npos);
  CHECK(message({{"mode", "haystack"}, {"pairs", "4"}}).find("pairs") != std::string::npos);
  CHECK(message({{"mode", "haystack"}, {"test-context", "32"}}).find("test-context") !=
        std::string::npos);
  CHECK(message({{"mode", "haystack"}, {"context", "4"}}).find("context") != std::string::npos);
  CHECK(message({{"eval-size", "-1"}}).find("eval-size") != std::string::npos);
  // One key, one value, one pair: a single sequence cannot fill three parts.
  CHECK(message({{"keys", "1"}, {"values", "1"}, {"context", "4"}}).find("keys=1") !=
        std::string::npos);
  // Five needle positions of one key, value and filler: too few for the
  // eleven depths of the evaluation sets.
  CHECK(message({{"mode", "haystack"},
                 {"keys", "1"},
                 {"values", "1"},
                 {"fillers", "1"},
                 {"context", "8"}})
            .find("fillers=1") != std::string::npos);
  auto task = make_needle({{"arch-frac", "0"}});
  Rng rng(1);
  Batch batch;
  CHECK(error_of([&] { task->sample("arch", 1, rng, batch); }).find("arch-frac") !=
        std::string::npos);
  CHECK(error_of([&] { task->eval_size("long"); }).find("long") != std::string::npos);
}
