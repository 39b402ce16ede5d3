// Tests of the plain-text formatting in lab/report_text.h that does not
// need a training run: decoded examples as `tapir tasks show` prints them.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lab/report_text.h"
#include "tasks/task.h"

namespace {

// Row 0 of a one-row batch: the given tokens, targets and mask.
tapir::Batch one_row(const tapir::Task& task, const std::vector<std::string>& tokens,
                     const std::vector<std::string>& targets, const std::vector<float>& mask,
                     int64_t T, int32_t group) {
  tapir::Batch batch;
  batch.reset(1, T, task.pad_token());
  for (size_t t = 0; t < tokens.size(); ++t) {
    batch.tokens[t] = task.vocab().id(tokens[t]);
    batch.targets[t] = task.vocab().id(targets[t]);
    batch.mask[t] = mask[t];
  }
  batch.group[0] = group;
  return batch;
}

}  // namespace

TEST_CASE("format_example: a prompt and its continuation") {
  auto add = tapir::make_task("add", tapir::TaskOptions());
  // `1 2 + 9 = 2 1 $` read as next-token prediction, padded to 9 positions.
  const tapir::Batch batch =
      one_row(*add, {"1", "2", "+", "9", "=", "2", "1"}, {"2", "+", "9", "=", "2", "1", "$"},
              {0, 0, 0, 0, 1, 1, 1}, 9, 2);
  CHECK(tapir::format_example(*add, batch, 0) == "[digits 2] input: 1 2 + 9 =   target: 2 1 $");
}

TEST_CASE("format_example: targets that are not the next input are listed by position") {
  auto needle = tapir::make_task(
      "needle",
      tapir::TaskOptions({{"keys", "8"}, {"values", "8"}, {"pairs", "1"}, {"context", "4"}}));
  const tapir::Batch batch = one_row(*needle, {"k7", "v3", "k7", "_"},
                                     {"<pad>", "<pad>", "v3", "<pad>"}, {0, 0, 1, 0}, 4, 1);
  CHECK(tapir::format_example(*needle, batch, 0) == "[pairs 1] input: k7 v3 k7 _   targets: @2 v3");
}
