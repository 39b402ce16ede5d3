// `tapir tasks`' work once its flags are read (tools/cmd_tasks.cpp): every
// registered task with its summary, or one task built from its options (so
// impossible options fail here as they would in `train`) with its
// description, recommended settings, splits and decoded examples. `text`
// without a path shows a built-in sample text (tasks/text_sample.h). Sits
// in lab/, on tasks/ and optim/recommend.h.
#pragma once
#include <cstdint>
#include <string>

#include "tasks/task.h"

namespace tapir {

// One line per registered task: its name and summary; the exit code (0).
int list_tasks();
// The task `name` with `options`: its description, splits and `n` examples
// of `split` (drawn with `seed` for train and arch, the first of the fixed
// set otherwise); the exit code (0).
int show_task(const std::string& name, const TaskOptions& options, const std::string& split,
              int64_t n, uint64_t seed);

}  // namespace tapir
