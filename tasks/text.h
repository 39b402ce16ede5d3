// Language modelling (task `text`) over a text file, several files or a
// directory (a code corpus), on bytes or, with option `tokenizer`, on the
// pieces of a subword tokenizer (tasks/tokenizer.h).
//
// Corpus. Option `path` is a file, comma-separated files (concatenated in the
// order given), or a directory: every regular file below it, in sorted path
// order, skipping names that start with '.' (such as .git) and files that
// hold a NUL byte in their first 8 KiB (binaries). Files are concatenated
// byte for byte with nothing between them.
//
// Splits, by position in the concatenated corpus of N bytes:
//   test  = the last test-frac (default 0.1) of the bytes   [test_begin, N)
//   arch  = the last arch-frac (0.2) of what precedes test  [arch_begin, test_begin)
//   train = the rest                                        [0, arch_begin)
// Contiguous blocks: every byte belongs to exactly one split. A window of
// context + 1 bytes (tokens = window[0:T], targets = window[1:T+1], mask all
// 1) never crosses a split boundary. sample() draws window starts uniformly;
// the evaluation set of a split is its consecutive non-overlapping windows,
// starting data-seed mod min(context, split bytes - context) bytes into the
// split (seed 0: at its first byte), at most eval-size of them.
//
// Vocabulary. Token ids 0..V-1 are the distinct bytes of the training text
// (train + arch) in increasing order and id V is `<unk>`, which every other
// byte maps to; <unk> is also pad_token() (text batches are never padded).
// vocab_string() writes the bytes as hex digits ("0a20216162..."); passing
// that string back as option `vocab` rebuilds exactly these ids whatever the
// corpus, so that an evaluation on another text can feed the model the ids it
// was trained on. A run keeps it only when it was given as an option.
//
// Subwords. With option `tokenizer` (a model file of `tapir tokenizer
// train`) the splits are cut by bytes exactly as above, each split is then
// encoded on its own, and windows, starts and offsets count tokens instead
// of bytes. The vocabulary is the tokenizer's pieces (ids as the model
// numbers them, its <unk> the pad token); option `vocab` is refused with it.
// A tokenizer that does not give back the bytes of every split is refused.
//
// Metric. score() counts each token as an example, so the tally's
// accuracy() and token_accuracy() are both next-token accuracy and loss()
// is the mean loss in nats per token; bits per character is loss() / ln 2
// (bits_per_char), and the tally's bytes (what the scored targets stand
// for) give bits per byte (Tally::bits_per_byte), the one scale on which
// byte and subword models compare.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tasks/task.h"
#include "tasks/tokenizer.h"

namespace tapir {

class TextTask final : public Task {
 public:
  // The corpus named by option `path` (required).
  explicit TextTask(const TaskOptions& options);
  // A corpus given in memory, named `source` in describe() and in errors;
  // option `path` may not be given with it. `tapir tasks show text` uses
  // this with the built-in sample (tasks/text_sample.h).
  TextTask(const TaskOptions& options, std::string corpus, std::string source);

  std::string name() const override { return "text"; }
  std::string describe() const override;
  const Vocab& vocab() const override { return vocab_; }
  int32_t pad_token() const override { return unk_; }
  int64_t max_length() const override { return context_; }
  std::vector<std::string> eval_splits() const override { return {"test"}; }

  void sample(const std::string& split, int64_t batch_size, Rng& rng, Batch& out) const override;
  int64_t eval_size(const std::string& split) const override;
  void eval_batch(const std::string& split, int64_t begin, int64_t count,
                  Batch& out) const override;
  void score(const Batch& batch, const float* logits, const float* losses,
             EvalTally& tally) const override;

  // The vocabulary's bytes as two lowercase hex digits each, increasing
  // (empty with a tokenizer).
  std::string vocab_string() const;

  struct Range {
    int64_t begin = 0, end = 0;  // offsets [begin, end)
    int64_t size() const { return end - begin; }
  };
  // A split ("train", "arch" or "test") as bytes of corpus(), and as
  // positions in the token stream (the same numbers without a tokenizer).
  Range split_range(const std::string& split) const;
  Range token_range(const std::string& split) const;
  // The tokenizer of option `tokenizer`; null for bytes.
  const Tokenizer* tokenizer() const { return tokenizer_.get(); }
  // The corpus as token ids, split by split (token_range says where each is).
  const std::vector<int32_t>& tokens() const { return tokens_; }
  const std::string& corpus() const { return corpus_; }
  int32_t id_of(unsigned char byte) const { return ids_[byte]; }  // bytes only

 private:
  TextTask(const TaskOptions& options, bool from_path, std::string corpus, std::string source);
  int64_t eval_offset(const Range& range) const;
  void write_window(int64_t start, int64_t b, Batch& out) const;
  void build_byte_vocab(const std::string& vocab_hex);
  void build_subword_vocab();

  std::string source_, corpus_;  // source_: "path=FILE" or what the corpus was given as
  int64_t context_ = 0, eval_size_ = 0;
  uint64_t data_seed_ = 0;
  Range train_, arch_, test_;                    // bytes
  Range token_train_, token_arch_, token_test_;  // positions in tokens_
  std::vector<int32_t> tokens_;                  // the corpus as token ids, split by split
  std::vector<int32_t> byte_length_;             // id -> bytes of text it stands for
  std::string tokenizer_path_;
  std::shared_ptr<const Tokenizer> tokenizer_;
  std::vector<unsigned char> bytes_;  // the vocabulary's bytes, increasing
  std::array<int32_t, 256> ids_{};    // byte -> token id (unk_ if absent)
  int32_t unk_ = 0;
  Vocab vocab_;
};

// The corpus named by a `path` option (a file, comma-separated files or a
// directory, as above); fails naming what is missing or empty.
std::string read_text_corpus(const std::string& path);
// Where the test split of a corpus of `bytes` bytes begins.
int64_t text_test_begin(int64_t bytes, double test_frac);

// The printable name of a byte in the vocabulary: "\n", "\t" and "\r" as
// backslash escapes, space as "␣", other printable ASCII as itself, every
// other byte as "\xNN".
std::string byte_name(unsigned char byte);

// Bits per character from a tally scored by TextTask: loss() / ln 2.
double bits_per_char(const Tally& tally);

}  // namespace tapir
