// SentencePiece behind tapir's tokenizer (tasks/tokenizer.h).
#include "tasks/tokenizer.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <cstdio>
#include <filesystem>
#include <regex>
#include <unordered_map>

#include "base/error.h"
#include "base/file_io.h"

namespace tapir {

namespace {

constexpr std::string_view kSpaceMark = "\u2581";  // ▁, SentencePiece's space
constexpr std::string_view kSpaceName = "\u2423";  // ␣, tapir's name for a space

// The lines of a text that training reads, as views into it.
class LineIterator final : public sentencepiece::SentenceIterator {
 public:
  LineIterator(std::string_view text, int64_t max_line) {
    size_t begin = 0;
    while (begin < text.size()) {
      const size_t end = std::min(text.find('\n', begin), text.size());
      const size_t length = end - begin;
      if (length > 0 && static_cast<int64_t>(length) <= max_line)
        lines_.emplace_back(text.substr(begin, length));
      begin = end + 1;
    }
  }
  bool done() const override { return next_ >= lines_.size(); }
  void Next() override { ++next_; }
  const std::string& value() const override { return lines_[next_]; }
  sentencepiece::util::Status status() const override { return {}; }
  bool empty() const { return lines_.empty(); }

 private:
  std::vector<std::string> lines_;
  size_t next_ = 0;
};

// The length of the well-formed UTF-8 character at the start of `s`
// (Unicode's table 3-7: no overlong forms, no surrogates, at most
// U+10FFFF), or 0 when its first byte does not begin one.
size_t utf8_length(std::string_view s) {
  const auto byte = [&s](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the second byte's range
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    n = 2;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    n = 3;
    if (b0 == 0xe0) lo = 0xa0;
    if (b0 == 0xed) hi = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    n = 4;
    if (b0 == 0xf0) lo = 0x90;
    if (b0 == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (s.size() < n || byte(1) < lo || byte(1) > hi) return 0;
  for (size_t i = 2; i < n; ++i)
    if (byte(i) < 0x80 || byte(i) > 0xbf) return 0;
  return n;
}

// SentencePiece's reason without the source file, line and expression
// that begin its messages ("./src/x.cc(660) [a == b] Vocabulary size ...").
std::string reason(const sentencepiece::util::Status& status) {
  std::string text = status.message();
  const size_t bracket = text.find("] ");
  if (text.starts_with("./") && bracket != std::string::npos) text = text.substr(bracket + 2);
  if (text.starts_with("./")) text.clear();  // nothing but where it failed
  return text;
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// SentencePiece's reason for a failed training in tapir's words: its two
// messages about the vocabulary's size as what to give instead, and its own
// option names as tapir's flags.
std::string training_reason(const sentencepiece::util::Status& status, const TokenizerSpec& spec) {
  const std::string text = reason(status);
  std::smatch m;
  char coverage[32];
  std::snprintf(coverage, sizeof coverage, "%g", spec.character_coverage);
  static const std::regex small(R"(smaller than required_chars\. (\d+) vs (\d+))");
  if (std::regex_search(text, m, small))
    return "--vocab-size " + m[1].str() + " is below the " + m[2].str() +
           " pieces this text needs (the 256 byte pieces, <unk> and the characters "
           "--character-coverage " +
           coverage + " keeps); give --vocab-size " + m[2].str() +
           " or more, or a lower --character-coverage";
  static const std::regex high(
      R"(Vocabulary size too high \((\d+)\)\. Please set it to a value <= (\d+))");
  if (std::regex_search(text, m, high))
    return "--vocab-size " + m[1].str() + " is more pieces than this text can fill; give at most " +
           m[2].str();
  std::string out = replace_all(text, "--character_coverage", "--character-coverage");
  out = replace_all(out, "character_coverage", "--character-coverage");
  return replace_all(out, "vocab_size", "--vocab-size");
}

}  // namespace

struct Tokenizer::Model {
  sentencepiece::SentencePieceProcessor processor;
};

std::string train_tokenizer(std::string_view text, const TokenizerSpec& spec) {
  TAPIR_CHECK(spec.type == "bpe" || spec.type == "unigram", "tokenizer type '", spec.type,
              "' is not one of bpe, unigram");
  TAPIR_CHECK(spec.vocab_size > kTokenizerReservedPieces, "tokenizer vocabulary size ",
              spec.vocab_size, " leaves no piece beyond the 256 bytes and <unk>: give more than ",
              kTokenizerReservedPieces);
  LineIterator lines(text, spec.max_line);
  TAPIR_CHECK(!lines.empty(), "tokenizer: the text has no non-empty line of at most ",
              spec.max_line, " bytes to train on");
  // Settings that keep every byte (tasks/tokenizer.h); no <s> or </s>.
  const std::unordered_map<std::string, std::string> settings = {
      {"model_type", spec.type},
      {"vocab_size", std::to_string(spec.vocab_size)},
      {"character_coverage", std::to_string(spec.character_coverage)},
      {"normalization_rule_name", "identity"},
      {"add_dummy_prefix", "false"},
      {"remove_extra_whitespaces", "false"},
      {"byte_fallback", "true"},
      {"bos_id", "-1"},
      {"eos_id", "-1"},
      {"unk_id", "0"},
      {"max_sentence_length", std::to_string(spec.max_line)},
      {"num_threads", std::to_string(spec.threads)},
      {"minloglevel", "2"}};
  std::string model;
  const sentencepiece::util::Status status =
      sentencepiece::SentencePieceTrainer::Train(settings, &lines, &model);
  TAPIR_CHECK(status.ok(), "tokenizer training failed: ", training_reason(status, spec));
  return model;
}

Tokenizer Tokenizer::load(const std::string& path) {
  TAPIR_CHECK(std::filesystem::exists(path), "tokenizer file '", path,
              "' does not exist (train one with `tapir tokenizer train`)");
  // A folder or a device: read_file says which.
  return from_bytes(read_file(path), "tokenizer file '" + path + "'");
}

Tokenizer Tokenizer::from_bytes(const std::string& model, const std::string& what) {
  auto m = std::make_shared<Model>();
  const sentencepiece::util::Status status = m->processor.LoadFromSerializedProto(model);
  TAPIR_CHECK(status.ok(), what, " is not a SentencePiece model",
              reason(status).empty() ? "" : " (" + reason(status) + ")");
  Tokenizer t;
  const sentencepiece::SentencePieceProcessor& p = m->processor;
  const int pieces = p.GetPieceSize();
  TAPIR_CHECK(pieces > 0, what, " holds no pieces");
  t.byte_id_.fill(p.unk_id());
  for (int id = 0; id < pieces; ++id) {
    std::string surface;
    if (p.IsByte(id)) {
      const int byte = std::stoi(p.IdToPiece(id).substr(3, 2), nullptr, 16);  // "<0xHH>"
      surface = std::string(1, static_cast<char>(byte));
      t.byte_id_[static_cast<size_t>(byte)] = id;
    } else if (p.IsUnknown(id)) {
      surface = "\xef\xbf\xbd";  // U+FFFD: the text it replaced is lost
    } else if (!p.IsControl(id) && !p.IsUnused(id)) {
      surface = replace_all(p.IdToPiece(id), kSpaceMark, " ");
    }
    t.surface_.push_back(std::move(surface));
  }
  t.model_ = std::move(m);
  return t;
}

std::vector<int32_t> Tokenizer::encode(std::string_view text) const {
  std::vector<int32_t> out;
  std::vector<int> ids;
  size_t begin = 0;  // the well-formed stretch not yet encoded begins here
  const auto encode_stretch = [&](size_t end) {
    if (end == begin) return;
    const sentencepiece::util::Status status =
        model_->processor.Encode(text.substr(begin, end - begin), &ids);
    TAPIR_CHECK(status.ok(), "tokenizer: cannot encode a text of ", end - begin, " bytes (",
                reason(status), ")");
    out.insert(out.end(), ids.begin(), ids.end());
  };
  size_t at = 0;
  while (at < text.size()) {
    const size_t n = utf8_length(text.substr(at));
    if (n > 0) {
      at += n;
      continue;
    }
    encode_stretch(at);
    out.push_back(byte_id_[static_cast<unsigned char>(text[at])]);
    begin = ++at;
  }
  encode_stretch(at);
  return out;
}

std::string Tokenizer::decode(const std::vector<int32_t>& ids) const {
  std::string text;
  for (int32_t id : ids) {
    TAPIR_CHECK(id >= 0 && id < size(), "tokenizer: id ", id, " outside [0, ", size(), ")");
    text += surface_[static_cast<size_t>(id)];
  }
  return text;
}

const std::string& Tokenizer::piece(int32_t id) const {
  TAPIR_CHECK(id >= 0 && id < size(), "tokenizer: id ", id, " outside [0, ", size(), ")");
  return model_->processor.IdToPiece(id);
}

std::string Tokenizer::name(int32_t id) const {
  return replace_all(piece(id), kSpaceMark, kSpaceName);
}

int32_t Tokenizer::unk_id() const {
  return model_->processor.unk_id();
}

}  // namespace tapir
