// The strict JSON parser behind parse_json: recursive descent over the bytes,
// with a depth limit so hostile input cannot exhaust the stack.
#include <charconv>
#include <unordered_set>

#include "base/error.h"
#include "base/json.h"

namespace tapir {

namespace {

constexpr int kMaxDepth = 64;

std::string describe_byte(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7f) return std::string("'") + c + "'";
  static const char* const hex = "0123456789abcdef";
  return std::string("byte 0x") + hex[byte >> 4] + hex[byte & 0xf];
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

void append_utf8(std::string& out, uint32_t code_point) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xc0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3f));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xe0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code_point & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code_point & 0x3f));
  }
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Json parse_document() {
    skip_whitespace();
    Json value = parse_value(0);
    skip_whitespace();
    if (pos_ != text_.size())
      error("unexpected " + describe_byte(text_[pos_]) + " after the value");
    return value;
  }

 private:
  [[noreturn]] void error_at(size_t pos, const std::string& what) const {
    fail("invalid JSON at byte ", pos, ": ", what);
  }
  [[noreturn]] void error(const std::string& what) const { error_at(pos_, what); }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }

  void skip_whitespace() {
    while (!at_end()) {
      const char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
      ++pos_;
    }
  }

  void expect(char c) {
    if (at_end()) error(std::string("expected '") + c + "', got end of input");
    if (text_[pos_] != c)
      error(std::string("expected '") + c + "', got " + describe_byte(text_[pos_]));
    ++pos_;
  }

  Json parse_value(int depth) {
    if (at_end()) error("unexpected end of input");
    const char c = text_[pos_];
    switch (c) {
      case '{':
        return parse_object(depth + 1);
      case '[':
        return parse_array(depth + 1);
      case '"':
        return Json(parse_string());
      case 't':
        return parse_literal("true", Json(true));
      case 'f':
        return parse_literal("false", Json(false));
      case 'n':
        return parse_literal("null", Json());
      default:
        if (c == '-' || is_digit(c)) return parse_number();
        error("unexpected " + describe_byte(c));
    }
  }

  Json parse_literal(std::string_view word, Json value) {
    if (text_.substr(pos_, word.size()) != word) error("invalid literal");
    pos_ += word.size();
    return value;
  }

  void skip_digits() {
    while (is_digit(peek())) ++pos_;
  }

  void expect_digit(const char* after) {
    if (!is_digit(peek())) error(std::string("expected a digit after ") + after);
  }

  Json parse_number() {
    const size_t start = pos_;
    if (peek() == '-') ++pos_;
    expect_digit("the sign");
    if (peek() == '0') {
      ++pos_;
      if (is_digit(peek())) error("leading zeros are not allowed");
    } else {
      skip_digits();
    }
    bool is_integer = true;
    if (peek() == '.') {
      ++pos_;
      expect_digit("'.'");
      skip_digits();
      is_integer = false;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      expect_digit("the exponent");
      skip_digits();
      is_integer = false;
    }
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    if (is_integer) {
      int64_t value = 0;
      const auto result = std::from_chars(first, last, value);
      if (result.ec == std::errc() && result.ptr == last) return Json(value);
      // Too large for int64: fall through and keep it as a double.
    }
    double value = 0.0;
    const auto result = std::from_chars(first, last, value);
    if (result.ec != std::errc() || result.ptr != last) error_at(start, "number out of range");
    return Json(value);
  }

  uint32_t parse_hex4() {
    if (text_.size() - pos_ < 4) error("truncated \\u escape");
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_];
      uint32_t digit = 0;
      if (is_digit(c)) {
        digit = static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        digit = static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        digit = static_cast<uint32_t>(c - 'A' + 10);
      } else {
        error("invalid hex digit " + describe_byte(c) + " in \\u escape");
      }
      value = value * 16 + digit;
      ++pos_;
    }
    return value;
  }

  // pos_ is just past the backslash.
  void parse_escape(std::string& out) {
    if (at_end()) error("unterminated string");
    const char c = text_[pos_++];
    switch (c) {
      case '"':
        out += '"';
        return;
      case '\\':
        out += '\\';
        return;
      case '/':
        out += '/';
        return;
      case 'b':
        out += '\b';
        return;
      case 'f':
        out += '\f';
        return;
      case 'n':
        out += '\n';
        return;
      case 'r':
        out += '\r';
        return;
      case 't':
        out += '\t';
        return;
      case 'u':
        break;
      default:
        error_at(pos_ - 1, "invalid escape \\" + describe_byte(c));
    }
    const size_t start = pos_ - 2;
    uint32_t code_point = parse_hex4();
    if (code_point >= 0xdc00 && code_point <= 0xdfff) error_at(start, "unpaired low surrogate");
    if (code_point >= 0xd800 && code_point <= 0xdbff) {
      if (text_.substr(pos_, 2) != "\\u") error_at(start, "unpaired high surrogate");
      pos_ += 2;
      const uint32_t low = parse_hex4();
      if (low < 0xdc00 || low > 0xdfff) error_at(start, "unpaired high surrogate");
      code_point = 0x10000 + ((code_point - 0xd800) << 10) + (low - 0xdc00);
    }
    append_utf8(out, code_point);
  }

  // Copies one multi-byte UTF-8 sequence, refusing overlong forms, encoded
  // surrogates and code points above U+10FFFF.
  void copy_utf8_sequence(std::string& out) {
    const auto lead = static_cast<unsigned char>(text_[pos_]);
    int continuation = 0;
    unsigned char second_low = 0x80, second_high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
      continuation = 1;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      continuation = 2;
      if (lead == 0xe0) second_low = 0xa0;
      if (lead == 0xed) second_high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      continuation = 3;
      if (lead == 0xf0) second_low = 0x90;
      if (lead == 0xf4) second_high = 0x8f;
    } else {
      error("invalid UTF-8 in string");
    }
    if (text_.size() - pos_ <= static_cast<size_t>(continuation)) error("invalid UTF-8 in string");
    for (int i = 1; i <= continuation; ++i) {
      const auto byte = static_cast<unsigned char>(text_[pos_ + static_cast<size_t>(i)]);
      const unsigned char low = i == 1 ? second_low : 0x80;
      const unsigned char high = i == 1 ? second_high : 0xbf;
      if (byte < low || byte > high) error("invalid UTF-8 in string");
    }
    out.append(text_.substr(pos_, static_cast<size_t>(continuation) + 1));
    pos_ += static_cast<size_t>(continuation) + 1;
  }

  std::string parse_string() {
    const size_t start = pos_;
    expect('"');
    std::string out;
    while (true) {
      if (at_end()) error_at(start, "unterminated string");
      const char c = text_[pos_];
      const auto byte = static_cast<unsigned char>(c);
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c == '\\') {
        ++pos_;
        parse_escape(out);
      } else if (byte < 0x20) {
        error("unescaped control character " + describe_byte(c) + " in string");
      } else if (byte < 0x80) {
        out += c;
        ++pos_;
      } else {
        copy_utf8_sequence(out);
      }
    }
  }

  void check_depth(int depth) const {
    if (depth > kMaxDepth) error("nesting deeper than " + std::to_string(kMaxDepth));
  }

  Json parse_array(int depth) {
    check_depth(depth);
    expect('[');
    Json result = Json::array();
    skip_whitespace();
    if (peek() == ']') {
      ++pos_;
      return result;
    }
    while (true) {
      skip_whitespace();
      result.push_back(parse_value(depth));
      skip_whitespace();
      if (at_end()) error("expected ',' or ']', got end of input");
      const char c = text_[pos_++];
      if (c == ']') return result;
      if (c != ',') error_at(pos_ - 1, "expected ',' or ']', got " + describe_byte(c));
    }
  }

  Json parse_object(int depth) {
    check_depth(depth);
    expect('{');
    Json result = Json::object();
    Json::Object& members = result.as_object();
    std::unordered_set<std::string> seen;
    skip_whitespace();
    if (peek() == '}') {
      ++pos_;
      return result;
    }
    while (true) {
      skip_whitespace();
      if (peek() != '"') error("expected a string key");
      const size_t key_start = pos_;
      std::string key = parse_string();
      if (!seen.insert(key).second) error_at(key_start, "duplicate key " + quoted(key));
      skip_whitespace();
      expect(':');
      skip_whitespace();
      Json value = parse_value(depth);
      members.emplace_back(std::move(key), std::move(value));
      skip_whitespace();
      if (at_end()) error("expected ',' or '}', got end of input");
      const char c = text_[pos_++];
      if (c == '}') return result;
      if (c != ',') error_at(pos_ - 1, "expected ',' or '}', got " + describe_byte(c));
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

Json parse_json(std::string_view text) {
  return Parser(text).parse_document();
}

}  // namespace tapir
