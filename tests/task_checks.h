// Checks every generated task's tests share (tests/test_task_*.cpp): reading
// a batch row back as its full sequence, the layout and determinism
// contracts of tasks/task.h, and option errors.
#pragma once
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "engine/rng.h"
#include "tasks/task.h"
#include "tasks/text.h"

namespace task_checks {

using tapir::Batch;
using tapir::Task;
using tapir::TaskOptions;

inline std::unique_ptr<Task> make(const std::string& name,
                                  std::map<std::string, std::string> options = {}) {
  return tapir::make_task(name, TaskOptions(std::move(options)));
}

// Row `row` as the example's full sequence: its tokens up to the first pad,
// then the target of the last of them.
inline std::vector<int32_t> row_sequence(const Batch& batch, int64_t row, int32_t pad) {
  std::vector<int32_t> seq;
  int64_t t = 0;
  while (t < batch.T && batch.tokens[batch.at(row, t)] != pad)
    seq.push_back(batch.tokens[batch.at(row, t++)]);
  if (t > 0) seq.push_back(batch.targets[batch.at(row, t - 1)]);
  return seq;
}

// Layout common to every task: targets are the next token, positions past
// the example are padding with mask 0, masked positions have a real target,
// and no row is longer than the task's max_length().
inline void check_layout(const Task& task, const Batch& batch) {
  const int32_t pad = task.pad_token();
  REQUIRE(batch.T <= task.max_length());
  for (int64_t b = 0; b < batch.B; ++b) {
    const auto n = static_cast<int64_t>(row_sequence(batch, b, pad).size()) - 1;
    REQUIRE(n >= 1);
    for (int64_t t = 0; t < batch.T; ++t) {
      const int64_t i = batch.at(b, t);
      if (t + 1 < n) REQUIRE(batch.targets[i] == batch.tokens[i + 1]);
      if (t >= n) {
        REQUIRE(batch.tokens[i] == pad);
        REQUIRE(batch.targets[i] == pad);
        REQUIRE(batch.mask[i] == 0.0f);
      }
      if (batch.mask[i] != 0.0f) {
        REQUIRE(batch.mask[i] == 1.0f);
        REQUIRE(batch.targets[i] != pad);
        REQUIRE(batch.targets[i] >= 0);
        REQUIRE(batch.targets[i] < task.vocab().size());
      }
    }
  }
}

inline bool same(const Batch& a, const Batch& b) {
  return a.B == b.B && a.T == b.T && a.tokens == b.tokens && a.targets == b.targets &&
         a.mask == b.mask && a.group == b.group;
}

inline Batch eval_all(const Task& task, const std::string& split) {
  Batch out;
  task.eval_batch(split, 0, task.eval_size(split), out);
  return out;
}

inline Batch sample(const Task& task, const std::string& split, int64_t n, uint64_t seed) {
  tapir::Rng rng(seed, 1);
  Batch out;
  task.sample(split, n, rng, out);
  return out;
}

// Same options: identical evaluation sets (also slice by slice) and samples;
// another data seed: other evaluation sets and other training samples.
inline void check_determinism(const std::string& name, std::map<std::string, std::string> options,
                              const std::vector<std::string>& splits) {
  options.insert_or_assign("data-seed", std::string("7"));
  auto a = make(name, options), b = make(name, options);
  options.insert_or_assign("data-seed", std::string("8"));
  auto other = make(name, options);
  for (const std::string& split : splits) {
    CAPTURE(split);
    const Batch all = eval_all(*a, split);
    CHECK(same(all, eval_all(*b, split)));
    CHECK_FALSE(same(all, eval_all(*other, split)));
    Batch slice;
    a->eval_batch(split, 3, 5, slice);
    for (int64_t r = 0; r < 5; ++r)
      CHECK(row_sequence(slice, r, a->pad_token()) == row_sequence(all, r + 3, a->pad_token()));
    CHECK(same(sample(*a, split, 64, 1), sample(*b, split, 64, 1)));
    CHECK_FALSE(same(sample(*a, split, 64, 1), sample(*a, split, 64, 2)));
  }
  // The data seed moves the hash holdout, so the same draws keep other examples.
  CHECK_FALSE(same(sample(*a, "train", 64, 1), sample(*other, "train", 64, 1)));
}

// Building the task fails with a message that names `option`.
inline void check_rejected(const std::string& name, std::map<std::string, std::string> options,
                           const std::string& option) {
  CAPTURE(option);
  CHECK_THROWS_WITH_AS(make(name, options), doctest::Contains(option.c_str()), tapir::Error);
}

// The entropy in nats of the split's token frequencies: the loss of the
// best text model that ignores its context (chance for a language model).
inline double unigram_entropy(const tapir::TextTask& task, const std::string& split) {
  const tapir::TextTask::Range range = task.token_range(split);
  std::map<int32_t, double> counts;
  for (int64_t i = range.begin; i < range.end; ++i)
    counts[task.tokens()[static_cast<size_t>(i)]] += 1;
  double entropy = 0;
  for (const auto& [id, n] : counts) {
    const double p = n / double(range.size());
    entropy -= p * std::log(p);
  }
  return entropy;
}

}  // namespace task_checks
