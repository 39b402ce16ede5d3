// parse_json: nlohmann-json's SAX parser reads the text and a builder turns
// its events into a Json. The builder adds the checks the library leaves out
// (duplicate keys, nesting depth, numbers that underflow) and words every
// error as "invalid JSON at byte N: ...".
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "base/error.h"
#include "base/json.h"

namespace tapir {

namespace {

constexpr size_t kMaxDepth = 64;

[[noreturn]] void fail_at(size_t byte, const std::string& what) {
  fail("invalid JSON at byte ", byte, ": ", what);
}

std::string describe_byte(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7f) return std::string("'") + c + "'";
  static const char* const hex = "0123456789abcdef";
  return std::string("byte 0x") + hex[byte >> 4] + hex[byte & 0xf];
}

// Gives the lexer the text byte by byte and counts the bytes it has taken,
// so that the builder's own checks can name a byte.
class CountingReader {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingReader(const char* at, size_t* taken) : at_(at), taken_(taken) {}
  reference operator*() const { return *at_; }
  CountingReader& operator++() {
    ++at_;
    ++*taken_;
    return *this;
  }
  CountingReader operator++(int) {
    CountingReader before = *this;
    ++*this;
    return before;
  }
  bool operator==(const CountingReader& other) const { return at_ == other.at_; }

 private:
  const char* at_;
  size_t* taken_;
};

// nlohmann's message reads "... syntax error while parsing <context> -
// <problem>", the problem being "unexpected <token>..." or the lexer's
// complaint. Only the problem can quote the input, so the first " - " after
// the context splits them.
struct LibraryMessage {
  std::string_view context;
  std::string_view problem;
};

LibraryMessage split_message(std::string_view what) {
  constexpr std::string_view kWhile = "syntax error while parsing ";
  const size_t start = what.find(kWhile);
  if (start == std::string_view::npos) return {"", what};
  const std::string_view rest = what.substr(start + kWhile.size());
  const size_t dash = rest.find(" - ");
  if (dash == std::string_view::npos) return {"", rest};
  return {rest.substr(0, dash), rest.substr(dash + 3)};
}

class Builder {
 public:
  Builder(std::string_view text, const size_t& taken) : text_(text), taken_(taken) {}

  Json take() { return std::move(root_); }
  // True once the top-level value is complete: what follows can only be
  // whitespace.
  bool done() const { return started_ && open_.empty(); }

  bool null() { return add(Json()); }
  bool boolean(bool value) { return add(Json(value)); }
  bool number_integer(int64_t value) { return add(Json(value)); }
  bool number_unsigned(uint64_t value) {
    if (value > static_cast<uint64_t>(INT64_MAX)) return add(Json(static_cast<double>(value)));
    return add(Json(static_cast<int64_t>(value)));
  }
  bool number_float(double value, const std::string& literal) {
    // The library reads 1e-400 as 0; a literal with a nonzero digit before
    // its exponent that reads as 0 has underflowed.
    const size_t digit = literal.find_first_of("123456789");
    if (value == 0.0 && digit < literal.find_first_of("eE"))
      fail_at(text_.rfind(literal, taken_ - literal.size()), "number out of range");
    return add(Json(value));
  }
  bool string(std::string& value) { return add(Json(std::move(value))); }
  bool binary(nlohmann::json::binary_t&) { return false; }  // JSON text has none

  bool start_object(size_t) {
    open(Json::object());
    keys_.emplace_back();
    return true;
  }
  bool key(std::string& key) {
    if (!keys_.back().insert(key).second)
      fail_at(taken_ - 1, "duplicate key " + tapir::quoted(key));
    key_ = std::move(key);
    return true;
  }
  bool end_object() {
    keys_.pop_back();
    open_.pop_back();
    return true;
  }
  bool start_array(size_t) {
    open(Json::array());
    return true;
  }
  bool end_array() {
    open_.pop_back();
    return true;
  }

  // Called once, for the first error the library finds; position counts
  // the bytes read and token quotes what was read since the last string or
  // number began.
  bool parse_error(size_t position, const std::string& token,
                   const nlohmann::json::exception& error) {
    const auto [context, problem] = split_message(error.what());
    const size_t start = token_start(position, token, problem);
    const std::string first = start == text_.size() ? "end of input" : describe_byte(text_[start]);
    if (error.id == 406) fail_at(start, "number out of range");  // beyond double range
    // The lexer ends a number after a leading 0, so the next digit starts a token.
    if (start > 0 && start < text_.size() && text_[start - 1] == '0' && text_[start] >= '0' &&
        text_[start] <= '9')
      fail_at(start, "leading zeros are not allowed");
    const bool lexer = !problem.starts_with("unexpected ");
    if (context == "value" && done()) fail_at(start, "unexpected " + first + " after the value");
    if (context == "object key" && !(lexer && text_.substr(start).starts_with('"')))
      fail_at(start, "expected a string key");
    if (context == "object separator") fail_at(start, "expected ':', got " + first);
    if (context == "array") fail_at(start, "expected ',' or ']', got " + first);
    if (context == "object") fail_at(start, "expected ',' or '}', got " + first);
    if (!lexer) fail_at(start, "unexpected " + first);
    lexer_error(problem, start, std::min(position - 1, text_.size()));
  }

 private:
  // Where the token the lexer stopped in starts, position being the bytes
  // it read (the end of input counts as one; so does a NUL byte, which ends
  // the input for the lexer).
  size_t token_start(size_t position, const std::string& token, std::string_view problem) const {
    const size_t stop = std::min(position - 1, text_.size());
    if (problem.starts_with("unexpected end of input") || problem.starts_with("unexpected '"))
      return stop;
    if (problem.starts_with("unexpected true") || problem.starts_with("unexpected null"))
      return position - 4;
    if (problem.starts_with("unexpected false")) return position - 5;
    if (problem.starts_with("invalid literal")) return literal_start(stop);
    // A number or a string: token holds its bytes, a control byte (only ever
    // the last) spelled "<U+XXXX>".
    const size_t end = std::min(position, text_.size());
    size_t length = token.size();
    if (end == position && end > 0 && static_cast<unsigned char>(text_[end - 1]) < 0x20)
      length -= 7;
    return end - std::min(length, end);
  }

  // A literal given up on at stop: the true, false or null it began, else
  // the byte at stop, which begins no token.
  size_t literal_start(size_t stop) const {
    for (std::string_view word : {"true", "false", "null"}) {
      for (size_t k = 1; k < word.size() && k <= stop; ++k)
        if (text_.substr(stop - k, k) == word.substr(0, k)) return stop - k;
    }
    return stop;
  }

  // The lexer's complaint about the token from start, which it gave up on
  // at stop, in tapir's words.
  [[noreturn]] void lexer_error(std::string_view problem, size_t start, size_t stop) const {
    const std::string got = stop == text_.size() ? "end of input" : describe_byte(text_[stop]);
    if (problem.starts_with("invalid literal")) {
      const char c = text_[start];
      if (c == 't' || c == 'f' || c == 'n') fail_at(start, "invalid literal");
      fail_at(start, "unexpected " + describe_byte(c));
    }
    if (problem.starts_with("invalid number; expected digit after '-'"))
      fail_at(stop, "expected a digit after the sign");
    if (problem.starts_with("invalid number; expected digit after '.'"))
      fail_at(stop, "expected a digit after '.'");
    if (problem.starts_with("invalid number")) fail_at(stop, "expected a digit after the exponent");
    if (problem.starts_with("invalid string: missing closing quote"))
      fail_at(start, "unterminated string");
    if (problem.starts_with("invalid string: control character"))
      fail_at(stop, "unescaped control character " + got + " in string");
    if (problem.starts_with("invalid string: forbidden character after backslash")) {
      if (stop == text_.size()) fail_at(stop, "unterminated string");
      fail_at(stop, "invalid escape \\" + got);
    }
    if (problem.starts_with("invalid string: '\\u'")) {
      // The escape's hex digits follow its 'u', which is no hex digit.
      size_t digits = stop;
      while (std::isxdigit(static_cast<unsigned char>(text_[digits - 1]))) --digits;
      if (text_.size() - digits < 4) fail_at(digits, "truncated \\u escape");
      fail_at(stop, "invalid hex digit " + got + " in \\u escape");
    }
    if (problem.starts_with("invalid string: surrogate U+D800"))
      fail_at(stop, "unpaired high surrogate");
    if (problem.starts_with("invalid string: surrogate U+DC00"))
      fail_at(stop, "unpaired low surrogate");
    if (problem.starts_with("invalid string: ill-formed UTF-8"))
      fail_at(stop, "invalid UTF-8 in string");
    fail_at(stop, std::string(problem));
  }

  bool add(Json value) {
    place(std::move(value));
    return true;
  }

  Json* place(Json value) {
    started_ = true;
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Json& parent = *open_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.as_array().back();
    }
    Json::Object& members = parent.as_object();
    members.emplace_back(std::move(key_), std::move(value));
    return &members.back().second;
  }

  void open(Json container) {
    // taken_ is just past the '[' or '{'.
    if (open_.size() >= kMaxDepth)
      fail_at(taken_ - 1, "nesting deeper than " + std::to_string(kMaxDepth));
    open_.push_back(place(std::move(container)));
  }

  std::string_view text_;
  const size_t& taken_;
  Json root_;
  bool started_ = false;
  std::vector<Json*> open_;  // the arrays and objects being filled, innermost last
  std::vector<std::unordered_set<std::string>> keys_;  // per open object
  std::string key_;
};

}  // namespace

Json parse_json(std::string_view text) {
  // The library skips a UTF-8 byte-order mark; JSON text has none.
  if (text.starts_with('\xef')) fail_at(0, "unexpected byte 0xef");
  size_t taken = 0;
  Builder builder(text, taken);
  const char* begin = text.data();
  nlohmann::json::sax_parse(CountingReader(begin, &taken),
                            CountingReader(begin + text.size(), &taken), &builder);
  // The lexer stops at a NUL byte as if the input ended there.
  if (taken < text.size() || (!text.empty() && text.back() == '\0'))
    fail_at(taken - 1, "unexpected byte 0x00 after the value");
  return builder.take();
}

}  // namespace tapir
