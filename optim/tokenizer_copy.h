// The copy of a text task's subword tokenizer (tasks/tokenizer.h) that a
// run folder (optim/run_folder.h) and a search folder
// (optim/search_folder.h) keep: taken when the run or search starts, read
// when it resumes or is opened, whatever became of the file the task option
// `tokenizer` names; the configuration files keep naming the file as given.
// Below the folders, above tasks/.
#pragma once
#include <string>

#include "tasks/task.h"

namespace tapir {

// The text task's option naming a subword tokenizer (tasks/text.h).
inline constexpr const char* kTokenizerOption = "tokenizer";
// The copy's name in a folder.
inline constexpr const char* kTokenizerCopy = "tokenizer.model";

// The path the option `tokenizer` gives ("" without the option), and that
// file read whole ("" likewise).
std::string tokenizer_path(const TaskOptions& options);
std::string given_tokenizer(const TaskOptions& options);
// Points the option at the copy in `dir`, when the option is given and
// the copy exists.
void use_own_tokenizer(TaskOptions& options, const std::string& dir);
// Puts back the option as `stored` (a config file) gives it.
void keep_given_tokenizer(TaskOptions& options, const TaskOptions& stored);

}  // namespace tapir
