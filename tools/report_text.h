// Plain-text reporting of training: the progress line on a terminal and the
// evaluation lines, shared by the commands that train.
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
// Events that print a live progress line (when stdout is a terminal and not
// quiet) and one line per evaluation (unless quiet).
TrainEvents console_events(const Trainer& trainer, bool quiet);
std::string format_duration(double seconds);

}  // namespace tapir
