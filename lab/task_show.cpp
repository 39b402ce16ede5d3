// `tapir tasks list` and `tapir tasks show` (lab/task_show.h).
#include "lab/task_show.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "lab/report_text.h"
#include "optim/recommend.h"
#include "tasks/text.h"
#include "tasks/text_sample.h"

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

}  // namespace

int list_tasks() {
  for (const TaskSpec& spec : task_registry())
    std::printf("%-8s %s\n", spec.name.c_str(), spec.summary.c_str());
  return 0;
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

}  // namespace tapir
