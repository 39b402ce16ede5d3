// A search's resume state (optim/search.h): what the resume file holds
// after each evaluation, how it is checked and read back, and resuming a
// search folder (optim/search_folder.h) from it.
#include <cstdio>
#include <set>

#include "base/clock.h"
#include "base/parse.h"
#include "engine/dist.h"
#include "optim/search.h"
#include "optim/search_ranks.h"

namespace tapir {

namespace {

// An accuracy in the resume file's metadata, written with every digit.
std::string accuracy_text(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  return buf;
}

double metadata_accuracy(const SafeTensorsFile& file, const std::string& path,
                         const std::string& key) {
  const double value =
      parse_double(file.metadata_value(key, ""), path + ": metadata '" + key + "'");
  TAPIR_CHECK(value >= 0 && value <= 1, path, ": metadata '", key,
              "': expected an accuracy in [0, 1], got ", value);
  return value;
}

}  // namespace

std::string Search::member_prefix(int m) {
  return "model-" + std::to_string(m) + "/";
}

std::unique_ptr<Search> Search::resume(const std::string& dir, int64_t steps,
                                       std::optional<Device> device, std::optional<int> threads,
                                       bool over_ranks) {
  const SearchFolder folder(dir);
  SearchConfig config = folder.read_config_to_resume();
  use_own_tokenizer(config.base.task_options, dir);  // the copy the search took
  const int64_t saved_steps = config.resolved().steps;
  // Everything is read and checked before anything in the folder changes.
  const SafeTensorsFile file = folder.load_resume();
  const std::string path = folder.file(SearchFolder::kResume);
  const int64_t step = metadata_count(file, path, "step");
  TAPIR_CHECK(step <= saved_steps, path, ": step ", step, " is beyond the search's end (",
              saved_steps, " steps in ", folder.file(SearchFolder::kConfig), ")");
  TAPIR_CHECK(steps <= 0 || steps >= step, "--search-steps ", steps, " is below step ", step,
              " that ", dir, " has reached; a search can only be extended");
  if (steps > 0) config.steps = steps;
  if (device) config.base.device = *device;
  if (threads) config.base.threads = *threads;
  std::unique_ptr<Search> search(new Search(config, dir, over_ranks, &file, path));
  // Rank 0 cuts the folder back; the others wait, so that none appends to
  // a model's log before it is cut.
  if (search->writes_shared()) search->truncate_to_step();
  if (search->over_ranks_) dist::barrier();
  return search;
}

void Search::add_member_state(int m, HostBytes& host, std::vector<SafeTensorWrite>& writes,
                              Metadata& meta) const {
  const Member& member = members_[static_cast<size_t>(m)];
  const std::string prefix = member_prefix(m);
  member.trainer->add_state(prefix, host, writes, meta);
  meta.push_back({prefix + "start", std::to_string(member.start)});
  meta.push_back({prefix + "generation", std::to_string(member.generation)});
  add_rng_state(prefix + "arch_rng", member.arch_rng, host, writes);
}

void Search::restore_member_state(int m, const SafeTensorsFile& file, const std::string& path) {
  Member& member = members_[static_cast<size_t>(m)];
  const std::string prefix = member_prefix(m);
  member.trainer->restore_state(file, path, prefix);
  read_rng_state(file, path, prefix + "arch_rng", member.arch_rng);
}

void Search::add_state(HostBytes& host, std::vector<SafeTensorWrite>& writes, Metadata& meta,
                       const GatheredModels& gathered) const {
  // The shared functions and their optimizer are the search's own loop state.
  add_resume_state("", shared_parameters(), functions_->optimizer(), nullptr,
                   {step_, wall_offset_ + now_seconds() - wall_start_}, host, writes, meta);
  meta.push_back({"untrained_accuracy", accuracy_text(outcome_.untrained_accuracy)});
  meta.push_back({"final_accuracy", accuracy_text(outcome_.final_accuracy)});
  if (outcome_.model0_accuracy >= 0)
    meta.push_back({"model0_accuracy", accuracy_text(outcome_.model0_accuracy)});
  for (int m = 0; m < config_.models; ++m) {
    if (owns(m))
      add_member_state(m, host, writes, meta);
    else if (!gathered.empty())
      copy_entries(*gathered[static_cast<size_t>(dist::owner(m))], member_prefix(m), writes, meta);
  }
}

void Search::restore_state(const SafeTensorsFile& file, const std::string& path) {
  ResumeClock clock;
  read_resume_state(file, path, "", shared_parameters(), functions_->optimizer(), nullptr, clock);
  // Model 0 starts at step 0 and each of its generations where the last
  // ended, so some model is active, and the functions updated, at every step.
  TAPIR_CHECK(functions_->optimizer().steps() == clock.step, path,
              ": metadata 'optimizer_steps' is ", functions_->optimizer().steps(), ", expected ",
              clock.step, " (the shared functions are updated once per search step)");
  step_ = clock.step;
  wall_offset_ = clock.wall_s;
  outcome_.untrained_accuracy = metadata_accuracy(file, path, "untrained_accuracy");
  outcome_.final_accuracy = metadata_accuracy(file, path, "final_accuracy");
  // Absent until model 0 has been evaluated (or in files written before it was kept).
  outcome_.model0_accuracy = file.metadata_value("model0_accuracy").empty()
                                 ? -1
                                 : metadata_accuracy(file, path, "model0_accuracy");
  for (int m = 0; m < config_.models; ++m) {
    check_member_schedule(m, file, path);
    if (owns(m)) restore_member_state(m, file, path);
  }
  // Nothing else: a tensor this search does not save is damage. The
  // tensors of a model another rank owns are that rank's to check.
  HostBytes host;
  std::vector<SafeTensorWrite> writes;
  Metadata meta;
  add_state(host, writes, meta);
  std::set<std::string> known;
  for (const SafeTensorWrite& w : writes) known.insert(w.name);
  for (int m = 0; m < config_.models; ++m)
    if (!owns(m))
      for (const SafeTensorView& v : file.tensors())
        if (v.name.starts_with(member_prefix(m))) known.insert(v.name);
  reject_unknown_tensors(file, path, known, "this search's state");
}

void Search::check_member_schedule(int m, const SafeTensorsFile& file,
                                   const std::string& path) const {
  const Member& member = members_[static_cast<size_t>(m)];
  const std::string prefix = member_prefix(m);
  // The schedule of starts and restarts follows from the config (every
  // generation lives exactly N steps); a file that disagrees is damaged.
  const bool reinit = config_.stagger == Stagger::reinit;
  TAPIR_CHECK(member.generation == 0 || (reinit && member.generation <= step_), path,
              ": metadata '", prefix, "generation' is ", member.generation, ", which a search ",
              reinit ? "at step " + std::to_string(step_) : "without --stagger reinit",
              " cannot have reached");
  const int64_t start = schedule_.start(m, member.generation);
  TAPIR_CHECK(member.start == start && (member.generation == 0 || start <= step_), path,
              ": metadata '", prefix, "start' is ", member.start, ", expected ", start,
              " for generation ", member.generation);
  const int64_t expected = member_steps(m);
  const int64_t steps = metadata_count(file, path, prefix + "step");
  TAPIR_CHECK(steps == expected, path, ": metadata '", prefix, "step' is ", steps, ", expected ",
              expected, " (search step ", step_, ", model start ", member.start, ")");
}

void Search::save_state() {
  if (!folder_.writes()) return;
  // The logs first: the resume file never claims a step whose lines could
  // still be lost.
  for (int m = 0; m < config_.models; ++m)
    if (owns(m)) members_[static_cast<size_t>(m)].trainer->sync_metrics();
  // A collective: once it returns every rank has synced its logs.
  GatheredModels gathered;
  if (over_ranks_)
    gathered = gather_models_to_root(
        config_.models, [this](int m, HostBytes& host, std::vector<SafeTensorWrite>& writes,
                               Metadata& meta) { add_member_state(m, host, writes, meta); });
  if (!writes_shared()) return;
  folder_.sync_log();
  HostBytes host;
  std::vector<SafeTensorWrite> writes;
  Metadata meta;
  add_state(host, writes, meta, gathered);
  folder_.save_resume(writes, meta);
}

void Search::truncate_to_step() {
  // Every model's, built here or not; restore_state checked the steps each
  // model's state has taken against the schedule.
  std::vector<TrainConfig> configs;
  for (int m = 0; m < config_.models; ++m) {
    const Member& member = members_[static_cast<size_t>(m)];
    configs.push_back(member.trainer ? member.trainer->config()
                                     : model_config(m, member.generation));
  }
  std::vector<SearchFolder::ModelAt> models;
  for (int m = 0; m < config_.models; ++m)
    models.push_back({members_[static_cast<size_t>(m)].generation, &configs[static_cast<size_t>(m)],
                      member_steps(m)});
  resume_note_ = folder_.truncate_to(step_, config_, models);
}

}  // namespace tapir
