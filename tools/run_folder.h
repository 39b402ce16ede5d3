// The device and task-override flags of the commands that open a run folder
// for evaluation (open_run in optim/model_run.h).
#pragma once
#include <string>
#include <vector>

#include "engine/device.h"
#include "tasks/task.h"

namespace tapir {

// The device named by --device, checked to be usable (a one-line error
// naming the device and why not).
Device usable_device(const std::string& name);
// Task options given as name=value (--opt), to override the saved ones.
TaskOptions parse_task_overrides(const std::vector<std::string>& name_values);

}  // namespace tapir
