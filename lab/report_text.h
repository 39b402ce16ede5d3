// Plain-text reporting: evaluation results as text (the progress of the
// commands that train, lab/progress.h, prints them), durations, and decoded
// examples (`tasks show`).
// Sits in lab/, on optim/; used by lab/compare.cpp and the commands in tools/.
#pragma once
#include <string>
#include <vector>

#include "optim/trainer.h"

namespace tapir {

// "test acc 0.9871 loss 0.0412 | train acc 1.0000 loss 0.0010"
std::string format_eval(const std::vector<EvalResult>& results);
// A per-group table ("length  examples  accuracy") for a split, or "" if the
// task has no groups.
std::string format_groups(const EvalResult& result, const std::string& group_name);
std::string format_duration(double seconds);

// Row b of a batch as one line, its group key first ("[length 3] "). When
// the masked positions end the example and each feeds its target back as
// the next input (a prompt and its continuation):
//   input: 1 2 + 9 =   target: 2 1 $
// otherwise (recall queries) the whole input and each masked position's
// expected token:
//   input: k7 v3 k7 _   targets: @2 v3
std::string format_example(const Task& task, const Batch& batch, int64_t b);

}  // namespace tapir
