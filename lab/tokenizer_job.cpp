// `tapir tokenizer train` and `tapir tokenizer encode` (lab/tokenizer_job.h).
#include "lab/tokenizer_job.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string_view>

#include "base/error.h"
#include "base/file_io.h"
#include "tasks/text.h"
#include "tasks/tokenizer.h"

namespace tapir {

namespace {

// Bytes per token of `text` under `tokenizer`, as "N tokens, B bytes per token".
std::string compression(const Tokenizer& tokenizer, std::string_view text) {
  const size_t tokens = tokenizer.encode(text).size();
  char buf[96];
  std::snprintf(buf, sizeof buf, "%zu tokens, %.3f bytes per token", tokens,
                tokens ? double(text.size()) / double(tokens) : 0.0);
  return buf;
}

// Characters of UTF-8 text (bytes that do not continue a character).
int display_width(const std::string& text) {
  int width = 0;
  for (unsigned char c : text) width += (c & 0xc0) != 0x80;
  return width;
}

}  // namespace

int train_tokenizer_file(const TokenizerTrainOptions& o) {
  TAPIR_CHECK(o.force || !std::filesystem::exists(o.out), "tokenizer train: ", o.out,
              " already exists (use --force to overwrite it)");
  const std::string corpus = read_text_corpus(o.path);
  if (std::filesystem::is_regular_file(o.path)) refuse_output_over_inputs(o.out, {o.path});
  const auto test_begin =
      static_cast<size_t>(text_test_begin(static_cast<int64_t>(corpus.size()), o.test_frac));
  const std::string_view seen = std::string_view(corpus).substr(0, test_begin);
  TokenizerSpec spec;
  spec.type = o.type;
  spec.vocab_size = o.vocab_size;
  spec.character_coverage = o.coverage;
  const std::string model = train_tokenizer(seen, spec);
  const Tokenizer tokenizer = Tokenizer::from_bytes(model, "the trained model");
  write_file_atomic(o.out, model);
  std::printf("wrote %s: %s, %lld pieces, trained on the first %zu of %zu bytes of %s\n",
              o.out.c_str(), o.type.c_str(), static_cast<long long>(tokenizer.size()), seen.size(),
              corpus.size(), o.path.c_str());
  std::printf("  trained-on text: %s\n", compression(tokenizer, seen).c_str());
  std::printf("  held-out text:   %s\n",
              compression(tokenizer, std::string_view(corpus).substr(test_begin)).c_str());
  std::printf("use it with: --opt tokenizer=%s\n", o.out.c_str());
  return 0;
}

int show_tokenizer_encoding(const std::string& model, const std::string& text) {
  const Tokenizer tokenizer = Tokenizer::load(model);
  const std::vector<int32_t> ids = tokenizer.encode(text);
  std::printf("%zu bytes, %zu tokens:\n", text.size(), ids.size());
  for (int32_t id : ids) {
    const std::string name = tokenizer.name(id);
    std::printf("  %6d  %s%*s %d bytes\n", id, name.c_str(), std::max(0, 16 - display_width(name)),
                "", tokenizer.byte_length(id));
  }
  return 0;
}

}  // namespace tapir
