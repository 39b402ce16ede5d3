#include "tools/run_folder.h"

#include "tools/train_options.h"

namespace tapir {

Device usable_device(const std::string& name) {
  const Device d = parse_device(name);
  require_device(d);
  return d;
}

TaskOptions parse_task_overrides(const std::vector<std::string>& name_values) {
  TaskOptions overrides;
  set_task_options(name_values, {}, overrides);
  return overrides;
}

}  // namespace tapir
