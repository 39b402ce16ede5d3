// `tapir tasks`: what the tasks are before training on them. `tasks list`
// prints every registered task with its summary; `tasks show NAME` builds a
// task from its options and prints its description, its splits and decoded
// examples with their targets (lab/task_show.h).
#include <memory>

#include "lab/task_show.h"
#include "tools/commands.h"
#include "tools/train_options.h"

namespace tapir {

struct TasksShowOptions {
  std::string name, split = "train";
  int64_t n = 5;
  uint64_t seed = 0;
  std::vector<std::string> task_opts;
};

Command add_tasks_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("tasks", "List the tasks or show one's examples");
  cmd->require_subcommand(1);
  auto* list = cmd->add_subcommand("list", "Every task with a one-line summary");
  auto* show = cmd->add_subcommand("show", "A task's splits and decoded examples");
  auto o = std::make_shared<TasksShowOptions>();
  show->allow_extras();
  show->add_option("name", o->name, "Task name (see `tapir tasks list`)")->required();
  show->add_option("--n", o->n, "Examples to show")
      ->check(CLI::Range(int64_t{1}, int64_t{1000}))
      ->capture_default_str();
  show->add_option("--split", o->split, "Split to show")->capture_default_str();
  show->add_option("--seed", o->seed, "Sampling seed for train and arch")->capture_default_str();
  show->add_option("--opt", o->task_opts, "Task option as name=value (or --name value)");
  return {cmd, [o, list, show]() {
            if (list->parsed()) return list_tasks();
            TaskOptions options;
            set_task_options(o->task_opts, extra_arguments(*show), options);
            return show_task(o->name, options, o->split, o->n, o->seed);
          }};
}

}  // namespace tapir
