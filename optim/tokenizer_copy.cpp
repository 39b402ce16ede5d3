// A folder's copy of the subword tokenizer (optim/tokenizer_copy.h).
#include "optim/tokenizer_copy.h"

#include <filesystem>

#include "base/file_io.h"

namespace tapir {

namespace fs = std::filesystem;

void keep_given_tokenizer(TaskOptions& options, const TaskOptions& stored) {
  if (options.has(kTokenizerOption) && stored.has(kTokenizerOption))
    options.set(kTokenizerOption, stored.values().at(kTokenizerOption));
}

void use_own_tokenizer(TaskOptions& options, const std::string& dir) {
  const std::string copy = (fs::path(dir) / kTokenizerCopy).string();
  if (options.has(kTokenizerOption) && fs::exists(copy)) options.set(kTokenizerOption, copy);
}

std::string tokenizer_path(const TaskOptions& options) {
  return options.has(kTokenizerOption) ? options.values().at(kTokenizerOption) : "";
}

std::string given_tokenizer(const TaskOptions& options) {
  const std::string path = tokenizer_path(options);
  constexpr int64_t kMaxTokenizerBytes = int64_t{256} << 20;  // models run to a few MB
  return path.empty() ? "" : read_file(path, kMaxTokenizerBytes);
}

}  // namespace tapir
