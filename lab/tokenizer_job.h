// `tapir tokenizer`'s work once its flags are read (tools/cmd_tokenizer.cpp):
// train a SentencePiece model (BPE or unigram, tasks/tokenizer.h) on the
// part of a corpus that the text task trains on (every byte before its test
// split), write it whole or not at all, and say how many bytes a token
// stands for on the training text and on the held-out text; or show how a
// model cuts a text. Sits in lab/, on tasks/tokenizer.h and tasks/text.h.
#pragma once
#include <cstdint>
#include <string>

namespace tapir {

struct TokenizerTrainOptions {
  std::string path, out, type = "bpe";
  int64_t vocab_size = 1024;
  double test_frac = 0.1, coverage = 1.0;
  bool force = false;
};

// Trains on the corpus at o.path and writes o.out; the exit code (0).
int train_tokenizer_file(const TokenizerTrainOptions& o);
// The pieces the model file `model` cuts `text` into, one line each with its
// id and length in bytes; the exit code (0).
int show_tokenizer_encoding(const std::string& model, const std::string& text);

}  // namespace tapir
