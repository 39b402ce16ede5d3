// `tapir tokenizer`: subword tokenizers for the text task. `tokenizer train`
// trains a SentencePiece model (BPE or unigram, tasks/tokenizer.h) on the
// part of a corpus that the text task trains on (every byte before its test
// split), writes it whole or not at all, and says how many bytes a token
// stands for on the training text and on the held-out text. `tokenizer
// encode` shows how a model cuts a text.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "base/error.h"
#include "base/file_io.h"
#include "tasks/text.h"
#include "tasks/tokenizer.h"
#include "tools/commands.h"

namespace tapir {

namespace {

struct TrainOptions {
  std::string path, out, type = "bpe";
  int64_t vocab_size = 1024;
  double test_frac = 0.1, coverage = 1.0;
  bool force = false;
};

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

int train(const TrainOptions& o) {
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

int encode(const std::string& model, const std::string& text) {
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

}  // namespace

Command add_tokenizer_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("tokenizer", "Train a subword tokenizer, or show how one cuts a text");
  cmd->require_subcommand(1);
  auto* train_cmd = cmd->add_subcommand(
      "train", "Train a SentencePiece tokenizer on the training part of a corpus");
  auto o = std::make_shared<TrainOptions>();
  train_cmd->add_option("--path", o->path, "Corpus: a file, comma-separated files or a directory")
      ->required();
  train_cmd->add_option("-o,--out", o->out, "Model file to write (.model)")->required();
  train_cmd->add_option("--type", o->type, "Model type")
      ->check(CLI::IsMember({"bpe", "unigram"}))
      ->capture_default_str();
  train_cmd
      ->add_option("--vocab-size", o->vocab_size, "Pieces, the 256 byte pieces and <unk> included")
      ->check(CLI::Range(kTokenizerReservedPieces + 1, int64_t{1} << 20))
      ->capture_default_str();
  train_cmd
      ->add_option("--test-frac", o->test_frac,
                   "The corpus's last part, left out as the text task's test split")
      ->check(CLI::Range(0.01, 0.5))
      ->capture_default_str();
  train_cmd
      ->add_option("--character-coverage", o->coverage,
                   "Share of characters kept as pieces; the rarest fall back to bytes")
      ->check(CLI::Range(0.9, 1.0))
      ->capture_default_str();
  train_cmd->add_flag("--force", o->force, "Overwrite an existing model file");

  auto* encode_cmd = cmd->add_subcommand("encode", "Show the pieces a tokenizer cuts a text into");
  auto model = std::make_shared<std::string>();
  auto text = std::make_shared<std::string>();
  encode_cmd->add_option("model", *model, "Model file of `tapir tokenizer train`")->required();
  encode_cmd->add_option("text", *text, "Text to encode")->required();
  return {cmd, [o, train_cmd, model, text]() {
            if (train_cmd->parsed()) return train(*o);
            return encode(*model, *text);
          }};
}

}  // namespace tapir
