// The `text` task: character-level language modelling (see tasks/text.h for
// the corpus, split, vocabulary and metric rules).
#include "tasks/text.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numbers>
#include <string_view>
#include <utility>

#include "base/error.h"
#include "base/file_io.h"
#include "tasks/tokenizer.h"

namespace tapir {

namespace fs = std::filesystem;

namespace {

constexpr size_t kBinaryProbe = 8192;  // bytes searched for a NUL in directory files

// Every regular file below dir in sorted path order, without hidden entries.
std::vector<std::string> files_below(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().starts_with(".")) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec)) files.push_back(it->path().generic_string());
  }
  TAPIR_CHECK(!ec, "text: option path: cannot list directory '", dir, "' (", ec.message(), ")");
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

std::string read_text_corpus(const std::string& path) {
  TAPIR_CHECK(!path.empty(),
              "text: option path is required (a file, comma-separated files or a directory)");
  std::string corpus;
  size_t from = 0;
  while (from <= path.size()) {
    const size_t comma = std::min(path.find(',', from), path.size());
    const std::string entry = path.substr(from, comma - from);
    from = comma + 1;
    TAPIR_CHECK(!entry.empty(), "text: option path = '", path, "' has an empty entry");
    std::error_code ec;
    const fs::file_status status = fs::status(entry, ec);
    TAPIR_CHECK(status.type() != fs::file_type::not_found, "text: option path: '", entry,
                "' does not exist");
    if (fs::is_directory(status)) {
      size_t used = 0;
      for (const std::string& file : files_below(entry)) {
        const std::string bytes = read_file(file);
        if (bytes.empty()) continue;
        if (std::string_view(bytes).substr(0, kBinaryProbe).find('\0') != std::string::npos)
          continue;
        corpus += bytes;
        ++used;
      }
      TAPIR_CHECK(used > 0, "text: option path: directory '", entry,
                  "' holds no non-empty text files");
    } else {
      TAPIR_CHECK(fs::is_regular_file(status), "text: option path: '", entry,
                  "' is not a file or directory (",
                  ec ? ec.message() : std::string("not a regular file"), ")");
      const std::string bytes = read_file(entry);
      TAPIR_CHECK(!bytes.empty(), "text: option path: file '", entry, "' is empty");
      corpus += bytes;
    }
  }
  return corpus;
}

int64_t text_test_begin(int64_t bytes, double test_frac) {
  return bytes - std::llround(test_frac * double(bytes));
}

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Bytes from a vocab_string(): pairs of hex digits, strictly increasing.
std::vector<unsigned char> parse_vocab(const std::string& hex) {
  TAPIR_CHECK(!hex.empty() && hex.size() % 2 == 0 && hex.size() <= 512,
              "text: option vocab: expected 1 to 256 pairs of hex digits, got ", hex.size(),
              " characters");
  std::vector<unsigned char> bytes;
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = hex_digit(hex[i]), lo = hex_digit(hex[i + 1]);
    TAPIR_CHECK(hi >= 0 && lo >= 0, "text: option vocab: '", hex.substr(i, 2), "' at character ", i,
                " is not two hex digits");
    const auto byte = static_cast<unsigned char>(hi * 16 + lo);
    TAPIR_CHECK(bytes.empty() || byte > bytes.back(), "text: option vocab: byte ", hex.substr(i, 2),
                " at character ", i, " is not above the one before it");
    bytes.push_back(byte);
  }
  return bytes;
}

}  // namespace

std::string byte_name(unsigned char byte) {
  if (byte == '\n') return "\\n";
  if (byte == '\t') return "\\t";
  if (byte == '\r') return "\\r";
  if (byte == ' ') return "\u2423";  // ␣
  if (byte > ' ' && byte < 0x7f) return std::string(1, static_cast<char>(byte));
  const char* digits = "0123456789abcdef";
  std::string name = "\\x";
  name += digits[byte >> 4];
  name += digits[byte & 15];
  return name;
}

double bits_per_char(const Tally& tally) {
  return tally.loss() / std::numbers::ln2;
}

TextTask::TextTask(const TaskOptions& o) : TextTask(o, true, "", "") {}

TextTask::TextTask(const TaskOptions& o, std::string corpus, std::string source)
    : TextTask(o, false, std::move(corpus), std::move(source)) {}

TextTask::TextTask(const TaskOptions& o, bool from_path, std::string corpus, std::string source)
    : source_(std::move(source)),
      corpus_(std::move(corpus)),
      context_(o.get_int("context", 128, 1, 1 << 20)),
      eval_size_(o.get_int("eval-size", 2000, 1, 1000000)),
      data_seed_(static_cast<uint64_t>(o.get_int("data-seed", 0, 0, INT64_MAX))) {
  const double arch_frac = o.get_double("arch-frac", 0.2, 0.0, 0.9);
  const double test_frac = o.get_double("test-frac", 0.1, 0.01, 0.5);
  const std::string vocab_hex = o.get_string("vocab", "");
  tokenizer_path_ = o.get_string("tokenizer", "");
  // Given and empty (an unset shell variable): a run that could be neither
  // evaluated nor resumed; without the option, the corpus's bytes are the
  // vocabulary.
  TAPIR_CHECK(!o.has("tokenizer") || !tokenizer_path_.empty(),
              "text: option tokenizer: expected the path of a SentencePiece model (`tapir "
              "tokenizer train`), got an empty one; leave the option out to use the bytes");
  TAPIR_CHECK(vocab_hex.empty() || tokenizer_path_.empty(),
              "text: options vocab and tokenizer cannot be given together (the tokenizer's "
              "pieces are the vocabulary)");
  if (from_path) {
    const std::string path = o.get_string("path", "");
    corpus_ = read_text_corpus(path);
    source_ = "path=" + path;
  } else {
    // Read, so that an unknown option's message lists path among the known ones.
    TAPIR_CHECK(o.get_string("path", "").empty(), "text: option path cannot be given with the ",
                source_);
    TAPIR_CHECK(!corpus_.empty(), "text: the ", source_, " is empty");
  }

  const auto n = static_cast<int64_t>(corpus_.size());
  const int64_t test_begin = text_test_begin(n, test_frac);
  const int64_t arch_begin = test_begin - std::llround(arch_frac * double(test_begin));
  train_ = {0, arch_begin};
  arch_ = {arch_begin, test_begin};
  test_ = {test_begin, n};
  if (tokenizer_path_.empty())
    build_byte_vocab(vocab_hex);
  else
    build_subword_vocab();
  for (const char* split : {"train", "arch", "test"}) {
    if (split == std::string("arch") && arch_frac == 0) continue;
    const Range bytes = split_range(split), tokens = token_range(split);
    const char* unit = tokenizer_ ? " tokens" : " bytes";
    TAPIR_CHECK(tokens.size() >= context_ + 1, "text: the ", split, " split of the corpus (", n,
                " bytes, ", source_, ") has ", tokens.size(), unit, tokenizer_ ? " (" : "",
                tokenizer_ ? std::to_string(bytes.size()) + " bytes)" : "",
                ", too few for option context = ", context_, " (a window needs context + 1", unit,
                "); use a longer corpus or a smaller context");
  }
}

void TextTask::build_byte_vocab(const std::string& vocab_hex) {
  if (vocab_hex.empty()) {
    std::array<bool, 256> seen{};
    for (int64_t i = 0; i < test_.begin; ++i) seen[static_cast<unsigned char>(corpus_[i])] = true;
    for (int b = 0; b < 256; ++b)
      if (seen[b]) bytes_.push_back(static_cast<unsigned char>(b));
  } else {
    bytes_ = parse_vocab(vocab_hex);
  }
  unk_ = static_cast<int32_t>(bytes_.size());
  ids_.fill(unk_);
  for (size_t i = 0; i < bytes_.size(); ++i) {
    ids_[bytes_[i]] = static_cast<int32_t>(i);
    vocab_.names.push_back(byte_name(bytes_[i]));
  }
  vocab_.names.push_back("<unk>");
  byte_length_.assign(vocab_.names.size(), 1);  // every id is one byte, <unk> too
  tokens_.resize(corpus_.size());
  for (size_t i = 0; i < corpus_.size(); ++i)
    tokens_[i] = ids_[static_cast<unsigned char>(corpus_[i])];
  token_train_ = train_;
  token_arch_ = arch_;
  token_test_ = test_;
}

void TextTask::build_subword_vocab() {
  try {
    tokenizer_ = std::make_shared<const Tokenizer>(Tokenizer::load(tokenizer_path_));
  } catch (const Error& e) {
    fail("text: option tokenizer: ", e.what());
  }
  const Tokenizer& t = *tokenizer_;
  for (int32_t id = 0; id < t.size(); ++id) {
    vocab_.names.push_back(t.name(id));
    byte_length_.push_back(t.byte_length(id));
  }
  unk_ = t.unk_id();
  // Each split is encoded on its own, so no token straddles a boundary, and
  // must decode to its own bytes: bits per byte divides by them.
  for (const char* split : {"train", "arch", "test"}) {
    const Range bytes = split_range(split);
    const std::string_view text = std::string_view(corpus_).substr(
        static_cast<size_t>(bytes.begin), static_cast<size_t>(bytes.size()));
    const std::vector<int32_t> ids = t.encode(text);
    const std::string back = t.decode(ids);
    if (back != text) {
      const auto lost = std::mismatch(back.begin(), back.end(), text.begin(), text.end());
      fail("text: option tokenizer: ", tokenizer_path_, " does not give back the ", split,
           " split (its ", bytes.size(), " bytes decode to ", back.size(),
           ", first differing at byte ", bytes.begin + (lost.second - text.begin()),
           " of the corpus); use a tokenizer of `tapir tokenizer train`, which keeps every byte");
    }
    Range& range = split == std::string("train")  ? token_train_
                   : split == std::string("arch") ? token_arch_
                                                  : token_test_;
    range = {static_cast<int64_t>(tokens_.size()),
             static_cast<int64_t>(tokens_.size() + ids.size())};
    tokens_.insert(tokens_.end(), ids.begin(), ids.end());
  }
}

std::string TextTask::describe() const {
  std::string units = std::to_string(bytes_.size()) + " symbols + <unk>";
  if (tokenizer_)
    units = "tokenizer " + tokenizer_path_ + ": " + std::to_string(vocab_.size()) + " pieces, " +
            std::to_string(tokens_.size()) + " tokens";
  return "text " + source_ + " (" + std::to_string(corpus_.size()) + " bytes, " + units +
         ") context=" + std::to_string(context_) + ": train [0, " + std::to_string(arch_.begin) +
         "), arch [" + std::to_string(arch_.begin) + ", " + std::to_string(test_.begin) +
         "), test [" + std::to_string(test_.begin) + ", " + std::to_string(test_.end) + ")" +
         (tokenizer_ ? " bytes" : "");
}

std::string TextTask::vocab_string() const {
  const char* digits = "0123456789abcdef";
  std::string hex;
  for (unsigned char byte : bytes_) {
    hex += digits[byte >> 4];
    hex += digits[byte & 15];
  }
  return hex;
}

TextTask::Range TextTask::split_range(const std::string& split) const {
  if (split == "train") return train_;
  if (split == "arch") return arch_;
  if (split == "test") return test_;
  fail("text has no split '", split, "' (splits: train, arch, test)");
}

TextTask::Range TextTask::token_range(const std::string& split) const {
  if (split == "train") return token_train_;
  if (split == "arch") return token_arch_;
  if (split == "test") return token_test_;
  fail("text has no split '", split, "' (splits: train, arch, test)");
}

void TextTask::write_window(int64_t start, int64_t b, Batch& out) const {
  for (int64_t t = 0; t < context_; ++t) {
    const int64_t i = out.at(b, t);
    out.tokens[i] = tokens_[static_cast<size_t>(start + t)];
    out.targets[i] = tokens_[static_cast<size_t>(start + t + 1)];
    out.mask[i] = 1.0f;
  }
}

void TextTask::sample(const std::string& split, int64_t batch_size, Rng& rng, Batch& out) const {
  const Range range = token_range(split);
  TAPIR_CHECK(range.size() >= context_ + 1, "text: the ", split,
              " split is empty (arch-frac is 0)");
  out.reset(batch_size, context_, pad_token());
  // Window starts lie in [begin, end - context - 1]: the window's last target
  // is the split's last token at most.
  for (int64_t b = 0; b < batch_size; ++b)
    write_window(range.begin + rng.randint(range.size() - context_), b, out);
}

int64_t TextTask::eval_offset(const Range& range) const {
  // At most size - context - 1, so at least one window fits after it.
  return static_cast<int64_t>(data_seed_ %
                              static_cast<uint64_t>(std::min(context_, range.size() - context_)));
}

int64_t TextTask::eval_size(const std::string& split) const {
  const Range range = token_range(split);
  if (range.size() < context_ + 1) return 0;
  const int64_t windows = (range.size() - eval_offset(range) - 1) / context_;
  return std::min(eval_size_, windows);
}

void TextTask::eval_batch(const std::string& split, int64_t begin, int64_t count,
                          Batch& out) const {
  const Range range = token_range(split);
  TAPIR_CHECK(begin >= 0 && count >= 0 && begin + count <= eval_size(split), "text: windows [",
              begin, ", ", begin + count, ") outside split ", split, " of ", eval_size(split));
  out.reset(count, context_, pad_token());
  if (count == 0) return;  // an empty split has no offset
  const int64_t first = range.begin + eval_offset(range);
  for (int64_t b = 0; b < count; ++b) write_window(first + (begin + b) * context_, b, out);
}

void TextTask::score(const Batch& batch, const float* logits, const float* losses,
                     EvalTally& tally) const {
  EvalTally windows;
  Task::score(batch, logits, losses, windows);
  Tally tokens = windows.all;  // a window being all right says little: count tokens
  tokens.examples = tokens.tokens;
  tokens.correct = tokens.tokens_correct;
  for (size_t i = 0; i < batch.targets.size(); ++i)
    if (batch.mask[i] != 0) tokens.bytes += byte_length_[static_cast<size_t>(batch.targets[i])];
  tally.add(tokens);
}

TAPIR_REGISTER_TASK(kTextTask, "text", "language modelling over files: bytes or subword pieces",
                    make_task_of<TextTask>, {"--schedule", "cosine"}, {"--min-lr-ratio", "0.05"});

}  // namespace tapir
