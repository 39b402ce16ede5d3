// `tapir tokenizer`: subword tokenizers for the text task. `tokenizer train`
// trains a SentencePiece model (BPE or unigram, tasks/tokenizer.h) on the
// part of a corpus that the text task trains on (every byte before its test
// split), writes it whole or not at all, and says how many bytes a token
// stands for on the training text and on the held-out text. `tokenizer
// encode` shows how a model cuts a text. The work is lab/tokenizer_job.h's.
#include <memory>

#include "lab/tokenizer_job.h"
#include "tasks/tokenizer.h"
#include "tools/commands.h"

namespace tapir {

Command add_tokenizer_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("tokenizer", "Train a subword tokenizer, or show how one cuts a text");
  cmd->require_subcommand(1);
  auto* train_cmd = cmd->add_subcommand(
      "train", "Train a SentencePiece tokenizer on the training part of a corpus");
  auto o = std::make_shared<TokenizerTrainOptions>();
  train_cmd->add_option("--path", o->path, "Corpus: a file, comma-separated files or a directory")
      ->required();
  train_cmd->add_option("-o,--out", o->out, "Model file to write (.model)")->required();
  train_cmd->add_option("--type", o->type, "Model type")
      ->check(CLI::IsMember({"bpe", "unigram"}))
      ->capture_default_str();
  train_cmd
      ->add_option("--vocab-size", o->vocab_size,
                   "Pieces, the 256 byte pieces, <unk> and one per character the corpus keeps "
                   "(--character-coverage) included: a text of 60 characters needs about 320")
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
            if (train_cmd->parsed()) return train_tokenizer_file(*o);
            return show_tokenizer_encoding(*model, *text);
          }};
}

}  // namespace tapir
