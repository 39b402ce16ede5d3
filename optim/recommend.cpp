#include "optim/recommend.h"

#include <charconv>
#include <utility>

#include "base/error.h"

namespace tapir {

namespace {

template <typename T>
T parse_setting(const TaskSetting& s, const std::string& task) {
  T value{};
  const char* end = s.value.data() + s.value.size();
  const auto [ptr, ec] = std::from_chars(s.value.data(), end, value);
  TAPIR_CHECK(ec == std::errc() && ptr == end, "task ", task, " recommends ", s.flag, " '", s.value,
              "', which is not a number of the flag's type");
  return value;
}

// Where each recommendable flag lands in the configuration.
using Setter = void (*)(TrainConfig&, const TaskSetting&);
const std::vector<std::pair<std::string, Setter>>& setters() {
  static const std::vector<std::pair<std::string, Setter>> table = {
      {"--width", [](TrainConfig& c,
                     const TaskSetting& s) { c.model.width = parse_setting<int64_t>(s, c.task); }},
      {"--heads", [](TrainConfig& c,
                     const TaskSetting& s) { c.model.heads = parse_setting<int64_t>(s, c.task); }},
      {"--layers",
       [](TrainConfig& c, const TaskSetting& s) {
         c.model.layers = parse_setting<int64_t>(s, c.task);
       }},
      {"--batch",
       [](TrainConfig& c, const TaskSetting& s) { c.batch = parse_setting<int64_t>(s, c.task); }},
      {"--lr", [](TrainConfig& c,
                  const TaskSetting& s) { c.schedule.base_lr = parse_setting<double>(s, c.task); }},
      {"--weight-decay",
       [](TrainConfig& c, const TaskSetting& s) {
         c.optimizer.weight_decay = parse_setting<double>(s, c.task);
       }},
      {"--warmup",
       [](TrainConfig& c, const TaskSetting& s) {
         c.schedule.warmup = parse_setting<int64_t>(s, c.task);
       }},
      {"--schedule", [](TrainConfig& c,
                        const TaskSetting& s) { c.schedule.kind = parse_schedule_kind(s.value); }},
      {"--min-lr-ratio",
       [](TrainConfig& c, const TaskSetting& s) {
         c.schedule.min_ratio = parse_setting<double>(s, c.task);
       }},
  };
  return table;
}

}  // namespace

std::vector<TaskSetting> apply_recommended(TrainConfig& c,
                                           const std::function<bool(const std::string&)>& given) {
  std::vector<TaskSetting> applied;
  for (const TaskSetting& s : task_spec(c.task).recommended) {
    Setter set = nullptr;
    for (const auto& [flag, setter] : setters())
      if (flag == s.flag) set = setter;
    TAPIR_CHECK(set != nullptr, "task ", c.task, " recommends ", s.flag,
                ", which is not a flag a task may set");
    if (given && given(s.flag)) continue;
    set(c, s);
    applied.push_back(s);
  }
  return applied;
}

std::string format_settings(const std::vector<TaskSetting>& settings) {
  std::string out;
  for (const TaskSetting& s : settings) out += (out.empty() ? "" : " ") + s.flag + " " + s.value;
  return out;
}

std::vector<std::string> recommendable_flags() {
  std::vector<std::string> flags;
  for (const auto& entry : setters()) flags.push_back(entry.first);
  return flags;
}

}  // namespace tapir
