// Subword tokenizers for the text task: SentencePiece models (Kudo and
// Richardson 2018; BPE or unigram), trained by `tapir tokenizer train` and
// read by option `tokenizer` of the text task.
//
// A model tapir trains keeps every byte: no normalization, no dummy prefix
// before a text, whitespace kept as it is (a space inside a piece is shown
// as U+2581 "▁"), and 256 byte pieces ("<0x0A>") for any byte no other
// piece covers (a newline: SentencePiece trains on lines). SentencePiece
// reads text as UTF-8, so encode() hands it the well-formed stretches only
// and writes each byte between them (not UTF-8) as its byte piece; decode()
// is tapir's own concatenation of each piece's bytes (its surface). So a
// text encodes and decodes to itself byte for byte, and each piece stands
// for a fixed number of bytes of text (byte_length), which bits per byte
// divides by. A model made elsewhere may lose text (an <unk>, whose surface
// is U+FFFD, or normalization): the text task refuses a corpus that does
// not come back whole.
//
// The SentencePiece library (Debian libsentencepiece-dev) stays behind this
// header: nothing above tasks/ sees it.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tapir {

// What `tapir tokenizer train` builds.
struct TokenizerSpec {
  std::string type = "bpe";         // "bpe" or "unigram"
  int64_t vocab_size = 1024;        // pieces, the 256 byte pieces and <unk> included
  double character_coverage = 1.0;  // characters kept as pieces; the rest fall back to bytes
  int64_t max_line = 1 << 16;       // longer lines are left out of training (still encodable)
  int threads = 1;                  // training threads (one: the same model on every machine)
};

// The 256 byte pieces and <unk>: vocab_size must exceed this.
constexpr int64_t kTokenizerReservedPieces = 257;

// Trains a model on `text` (read as lines; empty lines and lines longer
// than spec.max_line bytes are left out) and returns the model file's
// bytes. Fails with SentencePiece's reason (a vocabulary too large for the
// text, say) in one line.
std::string train_tokenizer(std::string_view text, const TokenizerSpec& spec);

class Tokenizer {
 public:
  // A model file; fails naming `path` when it is missing or not a model.
  static Tokenizer load(const std::string& path);
  // A model file's bytes; `what` names them in errors.
  static Tokenizer from_bytes(const std::string& model, const std::string& what);

  int64_t size() const { return static_cast<int64_t>(surface_.size()); }
  std::vector<int32_t> encode(std::string_view text) const;
  std::string decode(const std::vector<int32_t>& ids) const;
  // The piece as the model holds it ("▁the", "<0x0A>", "<unk>").
  const std::string& piece(int32_t id) const;
  // The piece as a vocabulary name: a space shown as "␣" (as the
  // character-level vocabulary shows it).
  std::string name(int32_t id) const;
  // Bytes of text the piece stands for: its surface, the piece with each
  // "▁" a space; one byte for a byte piece, none for a control piece, the
  // three of U+FFFD for <unk>.
  int32_t byte_length(int32_t id) const {
    return static_cast<int32_t>(surface_[static_cast<size_t>(id)].size());
  }
  int32_t unk_id() const;

 private:
  struct Model;
  std::shared_ptr<const Model> model_;
  std::vector<std::string> surface_;    // id -> the bytes it decodes to
  std::array<int32_t, 256> byte_id_{};  // byte -> its byte piece
};

}  // namespace tapir
