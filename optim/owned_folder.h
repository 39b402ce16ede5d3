// What a run folder (optim/run_folder.h) and a search folder
// (optim/search_folder.h) share: a directory tapir marks as its own
// (base/folder_lock.h), whose files are each written whole to a temporary
// file and renamed (JSON-lines logs are appended line by line), whose
// resume file carries a format label, and whose logs a resume cuts back to
// its step. A folder with an empty path writes nothing: a run or search
// without files (tests). Each kind of folder is a class on top of this one,
// naming its files and what they hold.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/json.h"
#include "engine/safetensors.h"
#include "nn/checkpoint.h"
#include "optim/tokenizer_copy.h"

namespace tapir {

// How a kind of folder names itself in its marker and in its errors.
struct FolderKind {
  const char* marker;  // the kind its marker names: "run folder"
  const char* owner;   // whose folder, in errors: "run"
  const char* config;  // the file that says what the folder holds: "config.json"
  const char* reuse;   // how an existing folder is reused: "use --force to overwrite it"
};

class OwnedFolder {
 public:
  // The files every kind of folder names alike.
  static constexpr const char* kResume = "resume.safetensors";
  static constexpr const char* kArchitecture = "arch.safetensors";
  // A copy of the subword tokenizer of task option `tokenizer`, taken when
  // the folder starts (optim/tokenizer_copy.h).
  static constexpr const char* kTokenizer = kTokenizerCopy;

  const std::string& dir() const { return dir_; }
  // False for a folder without files: then every write does nothing.
  bool writes() const { return !dir_.empty(); }
  std::string file(const char* name) const;
  bool has(const char* name) const;
  // Before a resume touches anything: fails unless the folder's marker (when
  // it has one) names this kind, nothing below the folder is a symbolic link
  // (a resume cuts, removes and rewrites files in place: a link would have
  // it change another folder's) or other than a file or a folder, and none
  // of the files it writes (`written`) is a folder.
  void check_resumable(const std::vector<std::string>& written) const;

 protected:
  OwnedFolder(std::string dir, const FolderKind& kind) : dir_(std::move(dir)), kind_(&kind) {}

  // For `--out DIR [--force]`: whether the folder holds anything; fails,
  // changing nothing, if it does unless force and it is tapir's folder of
  // this kind (its marker, or, from before the marker, a configuration file
  // that `read_config` reads without throwing) whose entries tapir can
  // replace: nothing below it a symbolic link or other than a file or a
  // folder, and none of the files it writes (`written`) a folder.
  bool check_replaceable(bool force, const std::function<void()>& read_config,
                         const std::vector<std::string>& written) const;
  // Creates the folder, and `inner` in it, and marks it as of this kind.
  void create_marked(const std::string& inner = "") const;
  // `json` into the file `name`, indented, whole or not at all.
  void write_json(const char* name, const Json& json) const;
  // One line of a JSON-lines log.
  void append(const char* name, const Json& line) const;
  // Flushes the file `name` to the disk, when there is one.
  void sync(const char* name) const;
  // The resume file: the format label `format`, then `meta`.
  void save_resume_file(const char* format, const std::vector<SafeTensorWrite>& writes,
                        const Metadata& meta) const;
  // The resume file, its format label checked.
  SafeTensorsFile load_resume_file(const char* format) const;

 private:
  std::string dir_;
  const FolderKind* kind_;
};

// A JSON-lines log (metrics.jsonl, search.jsonl) cut back to a step: what
// stays, and what was dropped ("" when nothing). Reading is apart from
// writing so that a resume can check every log before it changes any.
struct LogCut {
  std::string path;
  std::string kept;
  bool changed = false;
  std::string note;
  // Writes the kept lines when they differ; returns the note.
  std::string apply() const;
};

// The cut of the log at `path` that drops its lines whose "step" is after
// `step`, and a torn last line (nothing when there is no such file). Any
// other unreadable line is an error naming its line number.
LogCut cut_log_after(const std::string& path, int64_t step);

// cut_log_after(path, step).apply().
std::string drop_log_lines_after(const std::string& path, int64_t step);

}  // namespace tapir
