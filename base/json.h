// A small JSON value, read and written by nlohmann-json (base/json_parse.cpp,
// base/json.cpp), which this header does not show. Used for safetensors
// headers, run configs and metrics lines; it sits at the bottom of the stack
// next to error.h and depends on nothing else in tapir.
//
// Objects keep insertion order. Integer literals that fit in int64 stay exact
// (byte offsets need that); every other number is a double.
#pragma once
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace tapir {

// Integer types a Json number can be built from. bool has its own
// constructor and char is more likely a mistake than a number.
template <typename T>
concept JsonInteger = std::integral<T> && !std::same_as<T, bool> && !std::same_as<T, char>;

class Json {
 public:
  using Array = std::vector<Json>;
  using Member = std::pair<std::string, Json>;
  using Object = std::vector<Member>;
  // Order matches the alternatives of the variant below.
  enum class Kind : uint8_t { null, boolean, integer, real, string, array, object };

  Json() = default;
  Json(std::nullptr_t) {}
  Json(bool value) : value_(value) {}
  // Unsigned values above INT64_MAX throw.
  template <JsonInteger T>
  Json(T value) : value_(to_int64(value)) {}
  Json(double value) : value_(value) {}
  Json(std::string value) : value_(std::move(value)) {}
  Json(std::string_view value) : value_(std::string(value)) {}
  Json(const char* value) : value_(std::string(value)) {}
  Json(Array items) : value_(std::move(items)) {}

  static Json array() { return Json(Array{}); }
  static Json object();

  Kind kind() const { return static_cast<Kind>(value_.index()); }
  bool is_null() const { return kind() == Kind::null; }
  bool is_bool() const { return kind() == Kind::boolean; }
  bool is_int() const { return kind() == Kind::integer; }
  bool is_number() const { return is_int() || kind() == Kind::real; }
  bool is_string() const { return kind() == Kind::string; }
  bool is_array() const { return kind() == Kind::array; }
  bool is_object() const { return kind() == Kind::object; }

  // Each throws tapir::Error naming the expected and the actual kind.
  bool as_bool() const;
  int64_t as_int() const;    // integers only; 3.0 is a double and throws
  double as_double() const;  // any number
  const std::string& as_string() const;
  const Array& as_array() const;
  Array& as_array();
  const Object& as_object() const;
  Object& as_object();

  // Object lookup: find returns null when the key is absent, at throws
  // "missing key 'x'". Both throw if this is not an object.
  const Json* find(std::string_view key) const;
  const Json& at(std::string_view key) const;

  // Replaces the value of an existing key, else appends. Returns *this.
  Json& set(std::string key, Json value);
  Json& push_back(Json value);
  size_t size() const;  // elements of an array or members of an object

  bool operator==(const Json& other) const = default;

 private:
  template <std::integral T>
  static int64_t to_int64(T value) {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(int64_t)) {
      if (value > static_cast<T>(INT64_MAX)) throw_unsigned_too_large();
    }
    return static_cast<int64_t>(value);
  }
  [[noreturn]] static void throw_unsigned_too_large();
  [[noreturn]] void throw_kind(const char* expected) const;

  std::variant<std::monostate, bool, int64_t, double, std::string, Array, Object> value_;
};

// "null", "bool", "integer", "number", "string", "array", "object".
const char* json_kind_name(Json::Kind kind);

// 'text' in single quotes for an error message, with control bytes written as
// \xNN so a hostile name cannot break the message over lines.
std::string quoted(std::string_view text);
// Exact for a std::string, so that argument-dependent lookup does not pick
// std::quoted (double quotes, no escaping) in a streamed message.
inline std::string quoted(const std::string& text) {
  return quoted(std::string_view(text));
}
inline std::string quoted(const char* text) {
  return quoted(std::string_view(text));
}

// `text` with its control bytes written as \xNN, unquoted: what the command
// line prints of any error message.
std::string printable(std::string_view text);

// Strict RFC 8259: no comments, no trailing commas, no leading zeros, no
// trailing garbage, strings must be valid UTF-8 without raw control characters,
// duplicate keys and nesting deeper than 64 are refused. Errors read
// "invalid JSON at byte N: ...".
Json parse_json(std::string_view text);

// The leaves of `j` by dotted name ("model.qk_norm"): the members of
// objects joined with '.', arrays and empty objects as leaves; `j` itself
// under "" when it is no object.
std::map<std::string, Json> json_leaves(const Json& j);
// The dotted names whose leaves differ between `a` and `b` (in one only, or
// unequal), in order.
std::vector<std::string> json_differences(const Json& a, const Json& b);

// Compact when indent < 0, else pretty with that many spaces per level.
// Doubles are written with digits that read back to the same value and keep
// a ".0" so they read back as doubles; NaN and infinities are written as
// null. A string that is not valid UTF-8 throws: it would not read back.
std::string to_json(const Json& value, int indent = -1);

}  // namespace tapir
