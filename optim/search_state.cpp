// A search's resume state (optim/search_state.h): what the resume file
// holds after each evaluation, and how it is checked and read back.
#include "optim/search_state.h"

#include <cstdio>
#include <set>

#include "base/parse.h"
#include "engine/dist.h"

namespace tapir {

namespace {

// Model m's names in the file.
std::string model_prefix(int m) {
  return "model-" + std::to_string(m) + "/";
}

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

ModelStart SearchState::model_start(const SafeTensorsFile& file, const std::string& path, int m) {
  const std::string prefix = model_prefix(m);
  const int64_t start = metadata_count(file, path, prefix + "start");
  return {start, metadata_count(file, path, prefix + "generation")};
}

void SearchState::add_model(const ModelPool& pool, int m, HostBytes& host,
                            std::vector<SafeTensorWrite>& writes, Metadata& meta) {
  const ModelPool::Member& model = pool.member(m);
  const std::string prefix = model_prefix(m);
  model.trainer->add_state(prefix, host, writes, meta);
  meta.push_back({prefix + "start", std::to_string(model.at.start)});
  meta.push_back({prefix + "generation", std::to_string(model.at.generation)});
  add_rng_state(prefix + "arch_rng", model.arch_rng, host, writes);
}

void SearchState::restore_model(ModelPool& pool, int m, const SafeTensorsFile& file,
                                const std::string& path) {
  ModelPool::Member& model = pool.member(m);
  const std::string prefix = model_prefix(m);
  model.trainer->restore_state(file, path, prefix);
  read_rng_state(file, path, prefix + "arch_rng", model.arch_rng);
}

void SearchState::add(const ModelPool& pool, SharedFunctions& functions, HostBytes& host,
                      std::vector<SafeTensorWrite>& writes, Metadata& meta,
                      const GatheredModels& gathered) const {
  // The shared functions and their optimizer are the search's own loop state.
  add_resume_state("", functions.parameters(), functions.optimizer(), nullptr, clock, host, writes,
                   meta);
  meta.push_back({"untrained_accuracy", accuracy_text(outcome.untrained_accuracy)});
  meta.push_back({"final_accuracy", accuracy_text(outcome.final_accuracy)});
  if (outcome.model0_accuracy >= 0)
    meta.push_back({"model0_accuracy", accuracy_text(outcome.model0_accuracy)});
  for (int m = 0; m < pool.size(); ++m) {
    if (pool.owns(m))
      add_model(pool, m, host, writes, meta);
    else if (!gathered.empty())
      copy_entries(*gathered[static_cast<size_t>(dist::owner(m))], model_prefix(m), writes, meta);
  }
}

SearchState SearchState::restore(const SafeTensorsFile& file, const std::string& path,
                                 ModelPool& pool, SharedFunctions& functions) {
  SearchState state;
  read_resume_state(file, path, "", functions.parameters(), functions.optimizer(), nullptr,
                    state.clock);
  // Model 0 starts at step 0 and each of its generations where the last
  // ended, so some model is active, and the functions updated, at every step.
  TAPIR_CHECK(functions.optimizer().steps() == state.clock.step, path,
              ": metadata 'optimizer_steps' is ", functions.optimizer().steps(), ", expected ",
              state.clock.step, " (the shared functions are updated once per search step)");
  state.outcome.untrained_accuracy = metadata_accuracy(file, path, "untrained_accuracy");
  state.outcome.final_accuracy = metadata_accuracy(file, path, "final_accuracy");
  // Absent until model 0 has been evaluated (or in files written before it was kept).
  state.outcome.model0_accuracy = file.metadata_value("model0_accuracy").empty()
                                      ? -1
                                      : metadata_accuracy(file, path, "model0_accuracy");
  for (int m = 0; m < pool.size(); ++m) {
    check_schedule(pool, m, state.clock.step, file, path);
    if (pool.owns(m)) restore_model(pool, m, file, path);
  }
  // Nothing else: a tensor this search does not save is damage. The
  // tensors of a model another rank owns are that rank's to check.
  HostBytes host;
  std::vector<SafeTensorWrite> writes;
  Metadata meta;
  state.add(pool, functions, host, writes, meta);
  std::set<std::string> known;
  for (const SafeTensorWrite& w : writes) known.insert(w.name);
  for (int m = 0; m < pool.size(); ++m)
    if (!pool.owns(m))
      for (const SafeTensorView& v : file.tensors())
        if (v.name.starts_with(model_prefix(m))) known.insert(v.name);
  reject_unknown_tensors(file, path, known, "this search's state");
  return state;
}

void SearchState::check_schedule(const ModelPool& pool, int m, int64_t step,
                                 const SafeTensorsFile& file, const std::string& path) {
  const ModelStart at = pool.member(m).at;
  const std::string prefix = model_prefix(m);
  // The schedule of starts and restarts follows from the config (every
  // generation lives exactly N steps); a file that disagrees is damaged.
  const bool reinit = pool.schedule().mode == Stagger::reinit;
  TAPIR_CHECK(at.generation == 0 || (reinit && at.generation <= step), path, ": metadata '", prefix,
              "generation' is ", at.generation, ", which a search ",
              reinit ? "at step " + std::to_string(step) : "without --stagger reinit",
              " cannot have reached");
  const int64_t start = pool.schedule().start(m, at.generation);
  TAPIR_CHECK(at.start == start && (at.generation == 0 || start <= step), path, ": metadata '",
              prefix, "start' is ", at.start, ", expected ", start, " for generation ",
              at.generation);
  const int64_t expected = pool.steps_taken(m, step);
  const int64_t steps = metadata_count(file, path, prefix + "step");
  TAPIR_CHECK(steps == expected, path, ": metadata '", prefix, "step' is ", steps, ", expected ",
              expected, " (search step ", step, ", model start ", at.start, ")");
}

void SearchState::save(const SearchFolder& folder, ModelPool& pool, SharedFunctions& functions,
                       const Metadata& identity) const {
  if (!folder.writes()) return;
  // The logs first: the resume file never claims a step whose lines could
  // still be lost.
  for (int m = 0; m < pool.size(); ++m)
    if (pool.owns(m)) pool.trainer(m).sync_metrics();
  // A collective: once it returns every rank has synced its logs.
  GatheredModels gathered;
  if (pool.over_ranks())
    gathered = gather_models_to_root(
        pool.size(), [&pool](int m, HostBytes& host, std::vector<SafeTensorWrite>& writes,
                             Metadata& meta) { add_model(pool, m, host, writes, meta); });
  if (!pool.writes_shared()) return;
  folder.sync_log();
  HostBytes host;
  std::vector<SafeTensorWrite> writes;
  Metadata meta;
  add(pool, functions, host, writes, meta, gathered);
  meta.insert(meta.end(), identity.begin(), identity.end());
  folder.save_resume(writes, meta);
}

}  // namespace tapir
