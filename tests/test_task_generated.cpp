// Tests of the helpers shared by the generated tasks (tasks/generated.h): the
// hash holdout's parts have the stated shares and depend on content and seed
// only, the common options are read once with their ranges, and an example's
// next-token layout lands in a batch row.
#include <doctest/doctest.h>

#include <array>
#include <string>
#include <vector>

#include "base/error.h"
#include "tasks/generated.h"

namespace {

using tapir::Holdout;
using tapir::Part;

tapir::TaskOptions one_option(const std::string& name, const std::string& value) {
  tapir::TaskOptions options;
  options.set(name, value);
  return options;
}

}  // namespace

TEST_CASE("holdout: parts have the stated shares and are a function of content and seed") {
  const Holdout holdout(3, 0.1, 0.2);
  std::array<int64_t, 3> counts{};
  const int64_t n = 100000;
  for (int32_t i = 0; i < n; ++i) {
    const std::vector<int32_t> content = {i % 317, i / 317, 5};
    const Part part = holdout.part_of(content);
    ++counts[static_cast<size_t>(part)];
    CHECK(part == Holdout(3, 0.1, 0.2).part_of(content));  // same seed, same part
  }
  // test 0.1, arch 0.9 * 0.2 = 0.18, train 0.72; sd of each share below 0.0015.
  CHECK(double(counts[static_cast<size_t>(Part::test)]) / n == doctest::Approx(0.1).epsilon(0.06));
  CHECK(double(counts[static_cast<size_t>(Part::arch)]) / n == doctest::Approx(0.18).epsilon(0.04));
  CHECK(double(counts[static_cast<size_t>(Part::train)]) / n ==
        doctest::Approx(0.72).epsilon(0.02));

  // Order, length and seed all move an example.
  int64_t moved_by_order = 0, moved_by_seed = 0, moved_by_length = 0;
  const Holdout other_seed(4, 0.5, 0.0);
  const Holdout half(3, 0.5, 0.0);
  for (int32_t i = 0; i < 1000; ++i) {
    const std::vector<int32_t> ab = {i, i + 1}, ba = {i + 1, i}, abz = {i, i + 1, 0};
    moved_by_order += half.part_of(ab) != half.part_of(ba);
    moved_by_length += half.part_of(ab) != half.part_of(abz);
    moved_by_seed += half.part_of(ab) != other_seed.part_of(ab);
  }
  CHECK(moved_by_order > 400);
  CHECK(moved_by_length > 400);
  CHECK(moved_by_seed > 400);
}

TEST_CASE("generated options: one set of names, defaults and ranges") {
  const tapir::GeneratedOptions defaults{tapir::TaskOptions()};
  CHECK(defaults.eval_size == 2000);
  CHECK(defaults.data_seed == 0);
  CHECK(defaults.holdout.test_frac() == 0.1);
  CHECK(defaults.holdout.arch_frac() == 0.2);
  CHECK(defaults.describe() == "test-frac=0.1 arch-frac=0.2 eval-size=2000 data-seed=0");
  CHECK_THROWS_WITH_AS(tapir::GeneratedOptions(one_option("test-frac", "0.6")),
                       doctest::Contains("test-frac"), tapir::Error);
  CHECK_THROWS_WITH_AS(tapir::GeneratedOptions(one_option("eval-size", "0")),
                       doctest::Contains("eval-size"), tapir::Error);
}

TEST_CASE("write_example: next-token targets, the mask from mask_from, the group") {
  tapir::Batch batch;
  batch.reset(2, 6, 9);
  tapir::Example ex;
  ex.seq = {1, 2, 3, 4, 5};
  ex.mask_from = 2;
  ex.group = 7;
  tapir::write_example(ex, 1, batch);
  const std::vector<int32_t> tokens = {1, 2, 3, 4, 9, 9}, targets = {2, 3, 4, 5, 9, 9};
  const std::vector<float> mask = {0, 0, 1, 1, 0, 0};
  for (int64_t t = 0; t < 6; ++t) {
    CHECK(batch.tokens[batch.at(1, t)] == tokens[t]);
    CHECK(batch.targets[batch.at(1, t)] == targets[t]);
    CHECK(batch.mask[batch.at(1, t)] == mask[t]);
    CHECK(batch.tokens[batch.at(0, t)] == 9);
  }
  CHECK(batch.group[1] == 7);
  CHECK(batch.group[0] == -1);
  ex.seq.assign(8, 1);  // 7 positions do not fit a row of 6
  CHECK_THROWS_AS(tapir::write_example(ex, 0, batch), tapir::Error);
}
