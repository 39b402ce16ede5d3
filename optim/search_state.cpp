// A search's resume file and resume (optim/search.h): what is saved after
// each evaluation, how it is checked and read back, and how a resumed
// folder is cut back to the saved step.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "base/clock.h"
#include "base/file_io.h"
#include "base/parse.h"
#include "engine/dist.h"
#include "optim/search.h"

namespace tapir {

namespace fs = std::filesystem;

namespace {

constexpr const char* kResumeFormat = "tapir.search-resume.v1";

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
  TAPIR_CHECK(fs::is_directory(dir), "cannot resume ", dir, ": no such folder");
  const std::string config_path = (fs::path(dir) / kConfig).string();
  TAPIR_CHECK(fs::exists(config_path), "cannot resume ", dir, ": no ", kConfig,
              " in it (not a search folder)");
  SearchConfig config = read_json_file(config_path, SearchConfig::from_json);
  const int64_t saved_steps = config.resolved().steps;
  const std::string path = (fs::path(dir) / kResume).string();
  TAPIR_CHECK(fs::exists(path), "cannot resume ", dir, ": no ", kResume,
              " in it (a search saves one at each evaluation, and this one reached none)");
  // Everything is read and checked before anything in the folder changes.
  const SafeTensorsFile file = SafeTensorsFile::load(path);
  check_format(file, path, kResumeFormat);
  const int64_t step = metadata_count(file, path, "step");
  TAPIR_CHECK(step <= saved_steps, path, ": step ", step, " is beyond the search's end (",
              saved_steps, " steps in ", config_path, ")");
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

void Search::add_state(HostBytes& host, std::vector<SafeTensorWrite>& writes,
                       Metadata& meta) const {
  // The shared functions and their optimizer are the search's own loop state.
  add_resume_state("", shared_parameters(), *arch_optimizer_, nullptr,
                   {step_, wall_offset_ + now_seconds() - wall_start_}, host, writes, meta);
  meta.push_back({"untrained_accuracy", accuracy_text(outcome_.untrained_accuracy)});
  meta.push_back({"final_accuracy", accuracy_text(outcome_.final_accuracy)});
  if (outcome_.model0_accuracy >= 0)
    meta.push_back({"model0_accuracy", accuracy_text(outcome_.model0_accuracy)});
  for (int m = 0; m < config_.models; ++m) {
    const Member& member = members_[static_cast<size_t>(m)];
    const std::string prefix = member_prefix(m);
    member.trainer->add_state(prefix, host, writes, meta);
    meta.push_back({prefix + "start", std::to_string(member.start)});
    meta.push_back({prefix + "generation", std::to_string(member.generation)});
    add_rng_state(prefix + "arch_rng", member.arch_rng, host, writes);
  }
}

void Search::restore_state(const SafeTensorsFile& file, const std::string& path) {
  ResumeClock clock;
  read_resume_state(file, path, "", shared_parameters(), *arch_optimizer_, nullptr, clock);
  step_ = clock.step;
  wall_offset_ = clock.wall_s;
  outcome_.untrained_accuracy = metadata_accuracy(file, path, "untrained_accuracy");
  outcome_.final_accuracy = metadata_accuracy(file, path, "final_accuracy");
  // Absent until model 0 has been evaluated (or in files written before it was kept).
  outcome_.model0_accuracy = file.metadata_value("model0_accuracy").empty()
                                 ? -1
                                 : metadata_accuracy(file, path, "model0_accuracy");
  for (int m = 0; m < config_.models; ++m) {
    Member& member = members_[static_cast<size_t>(m)];
    const std::string prefix = member_prefix(m);
    member.trainer->restore_state(file, path, prefix);
    read_rng_state(file, path, prefix + "arch_rng", member.arch_rng);
    // The schedule of starts and restarts follows from the config (every
    // generation lives exactly N steps); a file that disagrees is damaged.
    TAPIR_CHECK(member.generation == 0 || (config_.stagger && member.generation <= step_), path,
                ": metadata '", prefix, "generation' is ", member.generation, ", which a search ",
                config_.stagger ? "at step " + std::to_string(step_) : "without --stagger",
                " cannot have reached");
    const int64_t start = first_start(m) + member.generation * config_.base.steps;
    TAPIR_CHECK(member.start == start && (member.generation == 0 || start <= step_), path,
                ": metadata '", prefix, "start' is ", member.start, ", expected ", start,
                " for generation ", member.generation);
    const int64_t expected = member_steps(m);
    TAPIR_CHECK(member.trainer->step() == expected, path, ": metadata '", prefix, "step' is ",
                member.trainer->step(), ", expected ", expected, " (search step ", step_,
                ", model start ", member.start, ")");
  }
  // Nothing else: a tensor this search does not save is damage.
  HostBytes host;
  std::vector<SafeTensorWrite> writes;
  Metadata meta;
  add_state(host, writes, meta);
  std::set<std::string> known;
  for (const SafeTensorWrite& w : writes) known.insert(w.name);
  reject_unknown_tensors(file, path, known, "this search's state");
}

void Search::save_state() {
  if (out_dir_.empty()) return;
  // The logs first: the resume file never claims a step whose lines could
  // still be lost.
  for (int m = 0; m < config_.models; ++m)
    if (owns(m)) members_[static_cast<size_t>(m)].trainer->sync_metrics();
  // A collective: once it returns every rank has synced its logs.
  if (over_ranks_) gather_members_to_root();
  if (!writes_shared()) return;
  const std::string log = (fs::path(out_dir_) / kLog).string();
  if (fs::exists(log)) sync_file(log);
  HostBytes host;
  std::vector<SafeTensorWrite> writes;
  Metadata meta = {{"format", kResumeFormat}};
  add_state(host, writes, meta);
  save_safetensors((fs::path(out_dir_) / kResume).string(), writes, meta);
}

void Search::truncate_to_step() {
  std::vector<std::string> notes;
  const auto note = [&notes](const std::string& text) {
    if (!text.empty()) notes.push_back(text);
  };
  note(drop_log_lines_after((fs::path(out_dir_) / kLog).string(), step_));
  int64_t later_folders = 0, later_snapshots = 0;
  for (int m = 0; m < config_.models; ++m) {
    const Member& member = members_[static_cast<size_t>(m)];
    const RunFolder folder(member_dir(m, member.generation));
    fs::create_directories(folder.dir());
    folder.write_config(member.trainer->config());  // the device and threads it runs with now
    note(folder.drop_metrics_after(member.trainer->step()));
    // Generations started after the resumed step start again when their time comes.
    for (int64_t g = member.generation + 1; fs::exists(member_dir(m, g)); ++g) {
      fs::remove_all(member_dir(m, g));
      ++later_folders;
    }
  }
  const fs::path snapshots = fs::path(out_dir_) / "snapshots";
  fs::create_directories(snapshots);
  for (const fs::directory_entry& e : fs::directory_iterator(snapshots)) {
    long long at = 0;
    if (std::sscanf(e.path().filename().string().c_str(), "arch-step-%lld.safetensors", &at) == 1 &&
        at > step_) {
      fs::remove(e.path());
      ++later_snapshots;
    }
  }
  if (later_folders > 0)
    notes.push_back("removed " + std::to_string(later_folders) +
                    " model folders started after step " + std::to_string(step_));
  if (later_snapshots > 0)
    notes.push_back("removed " + std::to_string(later_snapshots) + " snapshots taken after step " +
                    std::to_string(step_));
  // The end's files belong to the end: a search that goes on writes them again.
  if (step_ < config_.steps)
    for (const char* name : {"arch.safetensors", "search_result.json"})
      fs::remove(fs::path(out_dir_) / name);
  write_config();
  for (const std::string& n : notes) resume_note_ += (resume_note_.empty() ? "" : "\n") + n;
}

}  // namespace tapir
