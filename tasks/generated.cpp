// The shared pieces of the generated tasks (tasks/generated.h).
#include "tasks/generated.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace tapir {

const char* part_name(Part part) {
  switch (part) {
    case Part::train:
      return "train";
    case Part::arch:
      return "arch";
    case Part::test:
      return "test";
  }
  return "?";
}

Holdout::Holdout(uint64_t data_seed, double test_frac, double arch_frac)
    : key_(splitmix64(data_seed ^ 0x686f6c646f7574ull)),  // "holdout": keeps seed 0 nonzero
      test_frac_(test_frac),
      arch_frac_(arch_frac) {}

Part Holdout::part_of(std::span<const int32_t> content) const {
  // splitmix64 chained over the ids (a bijection per step, so order and
  // length both change the result), starting from the length.
  uint64_t h = splitmix64(key_ ^ content.size());
  for (int32_t id : content) h = splitmix64(h ^ static_cast<uint32_t>(id));
  // The top 53 bits as a double in [0, 1): exact, so the part is the same on
  // every platform.
  const double u = static_cast<double>(h >> 11) * 0x1.0p-53;
  if (u < test_frac_) return Part::test;
  if (u < test_frac_ + (1.0 - test_frac_) * arch_frac_) return Part::arch;
  return Part::train;
}

GeneratedOptions::GeneratedOptions(const TaskOptions& o)
    : eval_size(o.get_int("eval-size", 2000, 1, 10'000'000)),
      data_seed(static_cast<uint64_t>(o.get_int("data-seed", 0, 0, INT64_MAX))),
      holdout(data_seed, o.get_double("test-frac", 0.1, 0.01, 0.5),
              o.get_double("arch-frac", 0.2, 0.0, 0.9)) {}

std::string GeneratedOptions::describe() const {
  char text[160];
  std::snprintf(text, sizeof text, "test-frac=%g arch-frac=%g eval-size=%lld data-seed=%llu",
                holdout.test_frac(), holdout.arch_frac(), static_cast<long long>(eval_size),
                static_cast<unsigned long long>(data_seed));
  return text;
}

Rng eval_example_rng(uint64_t data_seed, int split, int64_t index) {
  // Streams 0..15 of the data seed are left to the tasks' own purposes.
  return Rng(data_seed, 16 + static_cast<uint64_t>(split)).split(static_cast<uint64_t>(index));
}

void write_example(const Example& ex, int64_t b, Batch& out) {
  const auto T = static_cast<int64_t>(ex.seq.size()) - 1;
  TAPIR_CHECK(T >= 1 && T <= out.T && b >= 0 && b < out.B, "example of ", T,
              " positions does not fit row ", b, " of a (", out.B, ", ", out.T, ") batch");
  for (int64_t t = 0; t < T; ++t) {
    const int64_t i = out.at(b, t);
    out.tokens[i] = ex.seq[t];
    out.targets[i] = ex.seq[t + 1];
    out.mask[i] = t >= ex.mask_from ? 1.0f : 0.0f;
  }
  out.group[b] = ex.group;
}

void check_eval_range(const Task& task, const std::string& split, int64_t begin, int64_t count,
                      int64_t size) {
  TAPIR_CHECK(begin >= 0 && count >= 0 && begin + count <= size, task.name(), ": examples [", begin,
              ", ", begin + count, ") outside the ", size, " examples of split ", split);
}

void check_splits_have_examples(const Task& task, const Holdout& holdout) {
  // 11 evaluation examples: one per depth bucket of needle's haystack, and
  // the first 11 lengths of copy's sets.
  constexpr int64_t kProbe = 11;
  Rng rng(0, 0);
  Batch batch;
  task.sample("train", 1, rng, batch);
  if (holdout.arch_frac() > 0) task.sample("arch", 1, rng, batch);
  for (const std::string& split : task.eval_splits())
    task.eval_batch(split, 0, std::min(kProbe, task.eval_size(split)), batch);
}

int GeneratedTask::split_number(const std::string& split) const {
  if (split == "train") return kTrainSplit;
  if (split == "arch") return kArchSplit;
  const std::vector<std::string> evals = eval_splits();
  for (size_t i = 0; i < evals.size(); ++i)
    if (split == evals[i]) return kTestSplit + static_cast<int>(i);
  std::string known = "train, arch";
  for (const std::string& s : evals) known += ", " + s;
  fail(name(), " has no split '", split, "' (splits: ", known, ")");
}

void GeneratedTask::reset_rows(int split, int64_t rows, Batch& out) const {
  if (is_regression())
    out.reset_frames(rows, row_length(split), frame_dim());
  else
    out.reset(rows, row_length(split), pad_token());
}

void GeneratedTask::sample(const std::string& split, int64_t batch_size, Rng& rng,
                           Batch& out) const {
  const int s = split_number(split);
  reset_rows(s, batch_size, out);
  for (int64_t b = 0; b < batch_size; ++b) write_row(s, -1, rng, b, out);
}

int64_t GeneratedTask::eval_size(const std::string& split) const {
  split_number(split);  // rejects an unknown split
  return eval_set_size();
}

void GeneratedTask::eval_batch(const std::string& split, int64_t begin, int64_t count,
                               Batch& out) const {
  const int s = split_number(split);
  check_eval_range(*this, split, begin, count, eval_set_size());
  reset_rows(s, count, out);
  for (int64_t b = 0; b < count; ++b) {
    Rng rng = eval_example_rng(data_seed(), eval_stream(s), begin + b);
    write_row(s, begin + b, rng, b, out);
  }
}

}  // namespace tapir
