// Tasks' recommended training settings (TaskSpec::recommended) applied to a
// training configuration. A command that trains applies the settings of its
// task for every flag the user did not give, on the command line or in a
// --config file; what the user gives always wins, and config.json records
// the values used, so a resumed run never re-applies them.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "optim/train_config.h"

namespace tapir {

// Sets each of c.task's recommended settings whose flag `given` says was not
// given; returns the settings it applied, in the task's order. `given` may
// be null: nothing was given.
std::vector<TaskSetting> apply_recommended(TrainConfig& c,
                                           const std::function<bool(const std::string&)>& given);

// "--layers 1 --batch 512" for settings.
std::string format_settings(const std::vector<TaskSetting>& settings);

// The flags a task may recommend.
std::vector<std::string> recommendable_flags();

}  // namespace tapir
