// Json value accessors and the writer. The parser lives in json_parse.cpp.
#include "base/json.h"

#include <charconv>
#include <cmath>

#include "base/error.h"

namespace tapir {

const char* json_kind_name(Json::Kind kind) {
  switch (kind) {
    case Json::Kind::null:
      return "null";
    case Json::Kind::boolean:
      return "bool";
    case Json::Kind::integer:
      return "integer";
    case Json::Kind::real:
      return "number";
    case Json::Kind::string:
      return "string";
    case Json::Kind::array:
      return "array";
    case Json::Kind::object:
      return "object";
  }
  return "?";
}

Json Json::object() {
  Json json;
  json.value_ = Object{};
  return json;
}

void Json::throw_unsigned_too_large() {
  fail("JSON: unsigned integer does not fit in int64");
}

void Json::throw_kind(const char* expected) const {
  fail("JSON: expected ", expected, ", got ", json_kind_name(kind()));
}

bool Json::as_bool() const {
  if (!is_bool()) throw_kind("bool");
  return std::get<bool>(value_);
}

int64_t Json::as_int() const {
  if (!is_int()) throw_kind("integer");
  return std::get<int64_t>(value_);
}

double Json::as_double() const {
  if (is_int()) return static_cast<double>(std::get<int64_t>(value_));
  if (kind() != Kind::real) throw_kind("number");
  return std::get<double>(value_);
}

const std::string& Json::as_string() const {
  if (!is_string()) throw_kind("string");
  return std::get<std::string>(value_);
}

const Json::Array& Json::as_array() const {
  if (!is_array()) throw_kind("array");
  return std::get<Array>(value_);
}

Json::Array& Json::as_array() {
  if (!is_array()) throw_kind("array");
  return std::get<Array>(value_);
}

const Json::Object& Json::as_object() const {
  if (!is_object()) throw_kind("object");
  return std::get<Object>(value_);
}

Json::Object& Json::as_object() {
  if (!is_object()) throw_kind("object");
  return std::get<Object>(value_);
}

const Json* Json::find(std::string_view key) const {
  for (const Member& member : as_object()) {
    if (member.first == key) return &member.second;
  }
  return nullptr;
}

const Json& Json::at(std::string_view key) const {
  const Json* found = find(key);
  if (found == nullptr) fail("JSON: missing key '", key, "'");
  return *found;
}

Json& Json::set(std::string key, Json value) {
  Object& members = as_object();
  for (Member& member : members) {
    if (member.first == key) {
      member.second = std::move(value);
      return *this;
    }
  }
  members.emplace_back(std::move(key), std::move(value));
  return *this;
}

Json& Json::push_back(Json value) {
  as_array().push_back(std::move(value));
  return *this;
}

size_t Json::size() const {
  if (is_array()) return as_array().size();
  if (is_object()) return as_object().size();
  throw_kind("array or object");
}

namespace {

void write_string(std::string& out, std::string_view text) {
  static const char* const hex = "0123456789abcdef";
  out += '"';
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (byte < 0x20) {
          out += "\\u00";
          out += hex[byte >> 4];
          out += hex[byte & 0xf];
        } else {
          out += c;  // UTF-8 passes through unchanged
        }
    }
  }
  out += '"';
}

void write_double(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  const std::string_view text(buffer, static_cast<size_t>(result.ptr - buffer));
  out += text;
  // "3" would read back as an integer; keep the value a double.
  if (text.find_first_of(".e") == std::string_view::npos) out += ".0";
}

void write_newline(std::string& out, int indent, int depth) {
  if (indent < 0) return;
  out += '\n';
  out.append(static_cast<size_t>(indent) * static_cast<size_t>(depth), ' ');
}

void write_value(std::string& out, const Json& value, int indent, int depth) {
  switch (value.kind()) {
    case Json::Kind::null:
      out += "null";
      return;
    case Json::Kind::boolean:
      out += value.as_bool() ? "true" : "false";
      return;
    case Json::Kind::integer:
      out += std::to_string(value.as_int());
      return;
    case Json::Kind::real:
      write_double(out, value.as_double());
      return;
    case Json::Kind::string:
      write_string(out, value.as_string());
      return;
    case Json::Kind::array: {
      const Json::Array& items = value.as_array();
      out += '[';
      for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += ',';
        write_newline(out, indent, depth + 1);
        write_value(out, items[i], indent, depth + 1);
      }
      if (!items.empty()) write_newline(out, indent, depth);
      out += ']';
      return;
    }
    case Json::Kind::object: {
      const Json::Object& members = value.as_object();
      out += '{';
      for (size_t i = 0; i < members.size(); ++i) {
        if (i > 0) out += ',';
        write_newline(out, indent, depth + 1);
        write_string(out, members[i].first);
        out += indent < 0 ? ":" : ": ";
        write_value(out, members[i].second, indent, depth + 1);
      }
      if (!members.empty()) write_newline(out, indent, depth);
      out += '}';
      return;
    }
  }
}

}  // namespace

std::string quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += "0123456789abcdef"[byte >> 4];
      out += "0123456789abcdef"[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string to_json(const Json& value, int indent) {
  std::string out;
  write_value(out, value, indent, 0);
  return out;
}

}  // namespace tapir
