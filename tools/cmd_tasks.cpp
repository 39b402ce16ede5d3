// `tapir tasks`: what the tasks are before training on them. `tasks list`
// prints every registered task with its summary; `tasks show NAME` builds a
// task from its options (so impossible options fail here as they would in
// `train`) and prints its description, its splits and decoded examples with
// their targets. `tasks show text` without a path shows a built-in sample
// text (tasks/text_sample.h).
#include <algorithm>
#include <cstdio>

#include "lab/report_text.h"
#include "optim/recommend.h"
#include "tasks/text.h"
#include "tasks/text_sample.h"
#include "tools/commands.h"
#include "tools/train_options.h"

namespace tapir {

namespace {

// The task to show. `text` without a corpus shows the built-in sample, so
// that every task can be looked at without options; training still needs
// option path.
std::unique_ptr<Task> task_to_show(const std::string& name, const TaskOptions& options) {
  if (name != "text" || options.has("path")) return make_task(name, options);
  auto task = std::make_unique<TextTask>(options, std::string(text_sample()), "built-in sample");
  options.check_all_used(name);
  std::printf(
      "text: no corpus given, so this is a built-in sample of %zu bytes; give a corpus with "
      "--path FILE (a file, comma-separated files or a directory)\n",
      text_sample().size());
  return task;
}

int show_task(const std::string& name, const TaskOptions& options, const std::string& split,
              int64_t n, uint64_t seed) {
  std::unique_ptr<Task> task = task_to_show(name, options);
  std::printf("%s\n", task->describe().c_str());
  std::printf("vocabulary: %lld tokens; longest sequence: %lld tokens",
              static_cast<long long>(task->vocab().size()),
              static_cast<long long>(task->max_length()));
  if (!task->group_name().empty()) std::printf("; grouped by %s", task->group_name().c_str());
  std::printf("\n");
  const std::vector<TaskSetting>& recommended = task_spec(name).recommended;
  if (recommended.empty())
    std::printf("recommended training settings: none (train's defaults)\n");
  else
    std::printf(
        "recommended training settings: %s (train, search, compare, transfer and robust-compare "
        "use them for every flag you do not give)\n",
        format_settings(recommended).c_str());

  const std::vector<std::string> eval_splits = task->eval_splits();
  std::vector<std::string> splits = {"train", "arch"};
  for (const std::string& s : eval_splits)
    if (std::find(splits.begin(), splits.end(), s) == splits.end()) splits.push_back(s);
  std::printf("splits (examples in the fixed evaluation set of each; training samples train):\n");
  for (const std::string& s : splits) {
    const bool evaluated =
        std::find(eval_splits.begin(), eval_splits.end(), s) != eval_splits.end();
    std::printf("  %-10s %8lld%s\n", s.c_str(), static_cast<long long>(task->eval_size(s)),
                evaluated ? "  evaluated" : "");
  }

  // Training splits show what training draws; evaluation splits their fixed
  // sets from the start.
  Batch batch;
  const bool sampled = split == "train" || split == "arch";
  if (sampled) {
    Rng rng(seed, 1);
    task->sample(split, n, rng, batch);
    std::printf("\n%lld examples of %s, as training draws them (seed %llu):\n",
                static_cast<long long>(n), split.c_str(), static_cast<unsigned long long>(seed));
  } else {
    n = std::min(n, task->eval_size(split));
    task->eval_batch(split, 0, n, batch);
    std::printf("\nthe first %lld examples of the %s evaluation set:\n", static_cast<long long>(n),
                split.c_str());
  }
  for (int64_t b = 0; b < batch.B; ++b)
    std::printf("  %s\n", format_example(*task, batch, b).c_str());
  return 0;
}

}  // namespace

Command add_tasks_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("tasks", "List the tasks or show one's examples");
  cmd->require_subcommand(1);
  auto* list = cmd->add_subcommand("list", "Every task with a one-line summary");
  auto* show = cmd->add_subcommand("show", "A task's splits and decoded examples");
  struct Options {
    std::string name, split = "train";
    int64_t n = 5;
    uint64_t seed = 0;
    std::vector<std::string> task_opts;
  };
  auto o = std::make_shared<Options>();
  show->allow_extras();
  show->add_option("name", o->name, "Task name (see `tapir tasks list`)")->required();
  show->add_option("--n", o->n, "Examples to show")
      ->check(CLI::Range(int64_t{1}, int64_t{1000}))
      ->capture_default_str();
  show->add_option("--split", o->split, "Split to show")->capture_default_str();
  show->add_option("--seed", o->seed, "Sampling seed for train and arch")->capture_default_str();
  show->add_option("--opt", o->task_opts, "Task option as name=value (or --name value)");
  return {cmd, [o, list, show]() {
            if (list->parsed()) {
              for (const TaskSpec& spec : task_registry())
                std::printf("%-8s %s\n", spec.name.c_str(), spec.summary.c_str());
              return 0;
            }
            TaskOptions options;
            set_task_options(o->task_opts, extra_arguments(*show), options);
            return show_task(o->name, options, o->split, o->n, o->seed);
          }};
}

}  // namespace tapir
