// Json value accessors, and to_json, which hands the value to nlohmann-json
// to write. The parser lives in json_parse.cpp.
#include "base/json.h"

#include <algorithm>

#include <nlohmann/json.hpp>

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

nlohmann::ordered_json to_library(const Json& value) {
  switch (value.kind()) {
    case Json::Kind::null:
      return nullptr;
    case Json::Kind::boolean:
      return value.as_bool();
    case Json::Kind::integer:
      return value.as_int();
    case Json::Kind::real:
      return value.as_double();
    case Json::Kind::string:
      return value.as_string();
    case Json::Kind::array: {
      nlohmann::ordered_json items = nlohmann::ordered_json::array();
      for (const Json& item : value.as_array()) items.push_back(to_library(item));
      return items;
    }
    case Json::Kind::object: {
      nlohmann::ordered_json members = nlohmann::ordered_json::object();
      for (const auto& [key, item] : value.as_object()) members[key] = to_library(item);
      return members;
    }
  }
  return nullptr;
}

}  // namespace

std::string quoted(std::string_view text) {
  return "'" + printable(text) + "'";
}

std::string printable(std::string_view text) {
  std::string out;
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
  return out;
}

std::string to_json(const Json& value, int indent) {
  try {
    return to_library(value).dump(indent);
  } catch (const nlohmann::json::type_error& error) {
    // A string that is not UTF-8: written, it would not read back.
    const std::string_view what = error.what();
    fail("JSON: ", what.substr(what.find("] ") + 2));
  }
}

namespace {

void add_leaves(const Json& j, const std::string& prefix, std::map<std::string, Json>& out) {
  if (!j.is_object() || j.size() == 0) {
    out[prefix] = j;
    return;
  }
  for (const auto& [name, value] : j.as_object())
    add_leaves(value, prefix.empty() ? name : prefix + "." + name, out);
}

}  // namespace

std::map<std::string, Json> json_leaves(const Json& j) {
  std::map<std::string, Json> out;
  add_leaves(j, "", out);
  return out;
}

std::vector<std::string> json_differences(const Json& a, const Json& b) {
  const std::map<std::string, Json> x = json_leaves(a), y = json_leaves(b);
  std::vector<std::string> names;
  for (const auto& [name, value] : x) {
    const auto it = y.find(name);
    if (it == y.end() || !(it->second == value)) names.push_back(name);
  }
  for (const auto& [name, value] : y)
    if (!x.count(name)) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace tapir
