// The record of what a run is, and its check (optim/run_identity.h).
#include "optim/run_identity.h"

#include <filesystem>
#include <map>
#include <vector>

#include "base/file_io.h"
#include "optim/tokenizer_copy.h"
#include "tasks/text.h"

namespace tapir {

namespace fs = std::filesystem;

namespace {

// Whether the dotted name is a task option ("task_options.p" of a run,
// "base.task_options.p" of a search).
bool is_task_option(const std::string& name) {
  const size_t at = name.find("task_options.");
  return at != std::string::npos && (at == 0 || name[at - 1] == '.');
}

// The tokenizer option is the run's copy or the file given: its content is
// in the inputs, its path is no part of what the run is.
bool is_tokenizer_option(const std::string& name) {
  const std::string option = std::string("task_options.") + kTokenizerOption;
  return is_task_option(name) && name.size() >= option.size() &&
         name.compare(name.size() - option.size(), option.size(), option) == 0;
}

void check_fields(const Json& recorded, const Json& now, const std::string& path,
                  const std::string& config_path, const IdentityAllowance& allowed) {
  const std::map<std::string, Json> was = json_leaves(recorded), is = json_leaves(now);
  for (const auto& [name, value] : was) {
    if (is_tokenizer_option(name) || allowed.fields.count(name)) continue;
    const auto it = is.find(name);
    const std::string current = it == is.end() ? "absent" : to_json(it->second);
    TAPIR_CHECK(it != is.end() && it->second == value, config_path, ": ", name, " is ", current,
                ", but ", path, " was trained with ", to_json(value), " (", config_path,
                " was changed after training); put back ", to_json(value), ", or start a new ",
                allowed.kind);
  }
  // A field the record lacks is one added since (its default) or one a
  // person added: a task option the run never had changes its data.
  for (const auto& [name, value] : is) {
    if (!is_task_option(name) || is_tokenizer_option(name) || allowed.fields.count(name) ||
        was.count(name))
      continue;
    fail(config_path, ": ", name, " is ", to_json(value), ", but ", path,
         " was trained without it (", config_path,
         " was changed after training); remove it, or start a new ", allowed.kind);
  }
}

}  // namespace

std::vector<RunInput> run_inputs(const TrainConfig& config) {
  std::vector<RunInput> files = {{"arch_file", "architecture file", config.arch_file},
                                 {"tokenizer", "tokenizer", tokenizer_path(config.task_options)}};
  if (config.task == "text" && config.task_options.has("path"))
    files.push_back({"corpus", "corpus", config.task_options.values().at("path")});
  return files;
}

std::string input_fingerprint(const RunInput& input) {
  std::error_code ec;
  if (input.path.empty()) return "";
  if (std::string(input.role) == "corpus")  // a file or a folder of files
    return fs::exists(input.path, ec) ? bytes_fingerprint(read_text_corpus(input.path)) : "";
  return fs::is_regular_file(input.path, ec) ? file_fingerprint(input.path) : "";
}

Json run_identity(const Json& fields, const TrainConfig& reads) {
  Json inputs = Json::object();
  for (const RunInput& input : run_inputs(reads))
    if (const std::string fingerprint = input_fingerprint(input); !fingerprint.empty())
      inputs.set(input.role, fingerprint);
  Json record = Json::object();
  record.set("config", fields);
  record.set("inputs", inputs);
  return record;
}

IdentityAllowance reader_allowance() {
  IdentityAllowance allowed;
  allowed.fields = {"steps", "schedule.total", "device", "threads", "eval_limit", "eval_batch"};
  return allowed;
}

void check_run_identity(const SafeTensorsFile& file, const std::string& path,
                        const std::string& config_path, const Json& fields,
                        const TrainConfig& reads, const IdentityAllowance& allowed) {
  const Json now = run_identity(fields, reads);
  const std::string text = file.metadata_value(kRunIdentityKey);
  if (text.empty()) {
    // Before the record: the model's configuration alone.
    const std::string model = file.metadata_value("model_config");
    if (model.empty()) return;
    Json recorded = Json::object(), current = Json::object();
    const Json* current_model = fields.find("model");
    if (current_model == nullptr) return;
    recorded.set("model", parse_json(model));
    current.set("model", *current_model);
    check_fields(recorded, current, path, config_path, allowed);
    return;
  }
  Json recorded;
  try {
    recorded = parse_json(text);
  } catch (const Error& e) {
    fail(path, ": metadata '", kRunIdentityKey, "' is not JSON (", e.what(), ")");
  }
  TAPIR_CHECK(recorded.is_object() && recorded.find("config") && recorded.find("inputs") &&
                  recorded.at("config").is_object() && recorded.at("inputs").is_object(),
              path, ": metadata '", kRunIdentityKey,
              "' is not a run's record (expected its config and inputs)");
  check_fields(recorded.at("config"), now.at("config"), path, config_path, allowed);
  for (const RunInput& input : run_inputs(reads)) {
    const std::string role = input.role;
    if ((role == "corpus" && !allowed.corpus) || (role == "tokenizer" && !allowed.tokenizer))
      continue;
    const Json* was = recorded.at("inputs").find(role);
    const Json* is = now.at("inputs").find(role);
    if (was == nullptr || is == nullptr) continue;  // not there now: its reader says so
    TAPIR_CHECK(
        *was == *is, input.path, " is not the ", input.what, " ", path, " was trained with (",
        was->is_string() ? was->as_string() : to_json(*was), " recorded, ", is->as_string(),
        " now); put back the file the ", allowed.kind, " read, or start a new ", allowed.kind,
        role == "corpus" ? " (an evaluation reads another corpus on purpose with --opt path=FILE)"
                         : "");
  }
}

}  // namespace tapir
