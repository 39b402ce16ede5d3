// A config struct's JSON, written from one list of its fields. It sits next
// to base/json.h and names.h, at the bottom of the stack; the config
// structs above (ModelConfig, SplineConfig, TrainConfig, ConstraintConfig)
// list their fields once and get both directions from here.
//
// A struct lists its fields, in the order they are written, with
//   template <class Self, class Fields>
//   static void fields(Self& c, Fields& f) {
//     f.required("width", c.width);           // must be present when read
//     f.optional("frame_dim", c.frame_dim);   // older files lack it: keeps c's value
//     f.group("optimizer", [&](auto& g) { g.required("beta1", c.optimizer.beta1); });
//     f.optional_grid(c.grid);                // knots, lo, hi, extrapolate
//   }
// Self is the struct, const when writing. Field types: bool, integers,
// double, std::string, enums with Names<E> (written as their names),
// std::vector and std::map<std::string, V> of those, structs with their own
// fields() (a nested object), and any member kept as one of these through a
// pair of conversions: f.required(key, member, to, from).
//
// Reading starts from the object passed in, so a missing optional field keeps
// its value. A key that the field list does not name is an error, in nested
// objects and groups too; only std::map fields take any key. Errors are one
// line naming the field by its dotted path:
//   JSON: missing key 'model.vocab'
//   JSON: unknown key 'model.widht' (known: vocab, context, width, ...)
//   JSON: key 'model.vocab': expected integer, got string
//   JSON: key 'model.pos': unknown position scheme 'rope' (known: ...)
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/json.h"
#include "base/names.h"

namespace tapir {

template <typename T>
concept NamedEnum = std::is_enum_v<T> && requires {
  Names<T>::table;
};

template <typename T, typename Fields>
concept HasFields = requires(T& object, Fields& f) {
  std::remove_const_t<T>::fields(object, f);
};

template <typename T>
struct IsVector : std::false_type {};
template <typename V>
struct IsVector<std::vector<V>> : std::true_type {};
template <typename T>
struct IsStringMap : std::false_type {};
template <typename V>
struct IsStringMap<std::map<std::string, V>> : std::true_type {};

// Builds the JSON object of a field list.
class JsonFieldWriter {
 public:
  template <typename T>
  void required(const char* key, const T& member) {
    out_.set(key, value(member));
  }
  template <typename T>
  void optional(const char* key, const T& member) {
    required(key, member);  // written alike; only reading tells them apart
  }
  // `to` gives what the JSON holds (a field type above) from the member.
  template <typename T, typename To, typename From>
  void required(const char* key, const T& member, To&& to, From&&) {
    out_.set(key, value(std::invoke(to, member)));
  }
  // A nested object whose fields `list` names, e.g. members of a member.
  template <typename List>
  void group(const char* key, List&& list) {
    JsonFieldWriter inner;
    list(inner);
    out_.set(key, inner.take());
  }
  // A spline grid kept as four fields of this object (Grid: engine's
  // SplineGrid, whose extrapolation_word spells "linear" or "constant").
  template <typename Grid>
  void optional_grid(const Grid& grid) {
    out_.set("knots", grid.knots());
    out_.set("lo", grid.lo());
    out_.set("hi", grid.hi());
    out_.set("extrapolate", Grid::extrapolation_word(grid.linear()));
  }

  Json take() { return std::move(out_); }

  template <typename T>
  static Json value(const T& v) {
    if constexpr (std::is_same_v<T, uint64_t>) {
      return static_cast<int64_t>(v);  // seeds: the int64 bit pattern, read back the same way
    } else if constexpr (NamedEnum<T>) {
      return name_of(v);
    } else if constexpr (IsVector<T>::value) {
      Json a = Json::array();
      for (const auto& item : v) a.push_back(value(item));
      return a;
    } else if constexpr (IsStringMap<T>::value) {
      Json o = Json::object();
      for (const auto& [name, item] : v) o.set(name, value(item));
      return o;
    } else if constexpr (HasFields<const T, JsonFieldWriter>) {
      JsonFieldWriter inner;
      T::fields(v, inner);
      return inner.take();
    } else {
      return Json(v);
    }
  }

 private:
  Json out_ = Json::object();
};

// Reads a field list from a JSON object into an existing struct.
class JsonFieldReader {
 public:
  // `prefix` is the dotted path of `object` with a trailing dot, "" at the top.
  JsonFieldReader(const Json& object, std::string prefix)
      : object_(object), prefix_(std::move(prefix)) {
    object_.as_object();  // "JSON: expected object, got ..." at the top
  }

  // Reads `object` through `list` (called with the reader), then rejects any
  // key of it that the list did not name.
  template <typename List>
  static void read(const Json& object, std::string prefix, List&& list) {
    JsonFieldReader reader(object, std::move(prefix));
    list(reader);
    reader.reject_unknown_keys();
  }

  template <typename T>
  void required(const char* key, T& member) {
    value(at(key), member, prefix_ + key);
  }
  template <typename T>
  void optional(const char* key, T& member) {
    known_.push_back(key);
    if (const Json* v = object_.find(key)) value(*v, member, prefix_ + key);
  }
  // `from` makes the member from what the JSON holds.
  template <typename T, typename To, typename From>
  void required(const char* key, T& member, To&&, From&& from) {
    std::remove_cvref_t<std::invoke_result_t<To, const T&>> held;
    required(key, held);
    member = std::invoke(from, std::move(held));
  }
  template <typename List>
  void group(const char* key, List&& list) {
    const std::string path = prefix_ + key;
    const Json& v = at(key);
    expect(v, v.is_object(), "object", path);
    read(v, path + ".", list);
  }
  // Each of the four keys is optional and keeps the grid's value; the grid
  // is then built (and checked) from all four: Grid(knots, lo, hi, linear).
  template <typename Grid>
  void optional_grid(Grid& grid) {
    int64_t knots = grid.knots();
    double lo = grid.lo(), hi = grid.hi();
    bool linear = grid.linear();
    std::string extrapolate = Grid::extrapolation_word(linear);
    optional("knots", knots);
    optional("lo", lo);
    optional("hi", hi);
    optional("extrapolate", extrapolate);
    named(prefix_ + "extrapolate", [&] { linear = Grid::parse_extrapolation_word(extrapolate); });
    if (prefix_.empty())
      grid = Grid(knots, lo, hi, linear);
    else  // names the object holding the grid
      named(prefix_.substr(0, prefix_.size() - 1), [&] { grid = Grid(knots, lo, hi, linear); });
  }

  template <typename T>
  static void value(const Json& v, T& out, const std::string& path) {
    if constexpr (std::is_same_v<T, bool>) {
      expect(v, v.is_bool(), "bool", path);
      out = v.as_bool();
    } else if constexpr (std::is_integral_v<T>) {
      expect(v, v.is_int(), "integer", path);
      out = static_cast<T>(v.as_int());
    } else if constexpr (std::is_floating_point_v<T>) {
      expect(v, v.is_number(), "number", path);
      out = v.as_double();
    } else if constexpr (std::is_same_v<T, std::string>) {
      expect(v, v.is_string(), "string", path);
      out = v.as_string();
    } else if constexpr (NamedEnum<T>) {
      expect(v, v.is_string(), "string", path);
      named(path, [&] { out = parse_name<T>(v.as_string()); });
    } else if constexpr (IsVector<T>::value) {
      expect(v, v.is_array(), "array", path);
      out.clear();
      for (const Json& item : v.as_array()) {
        out.emplace_back();
        value(item, out.back(), path + "[" + std::to_string(out.size() - 1) + "]");
      }
    } else if constexpr (IsStringMap<T>::value) {
      expect(v, v.is_object(), "object", path);
      out.clear();
      for (const auto& [name, item] : v.as_object()) value(item, out[name], path + "." + name);
    } else {
      static_assert(HasFields<T, JsonFieldReader>, "no JSON form for this field type");
      expect(v, v.is_object(), "object", path);
      read(v, path + ".", [&](JsonFieldReader& inner) { T::fields(out, inner); });
    }
  }

 private:
  const Json& at(const char* key) {
    known_.push_back(key);
    const Json* v = object_.find(key);
    if (v == nullptr) fail("JSON: missing key '", prefix_, key, "'");
    return *v;
  }
  static void expect(const Json& v, bool ok, const char* kind, const std::string& path) {
    if (!ok) fail("JSON: key '", path, "': expected ", kind, ", got ", json_kind_name(v.kind()));
  }
  // Runs `parse`, naming the field in the one-line error it may throw.
  template <typename Parse>
  static void named(const std::string& path, Parse&& parse) {
    try {
      parse();
    } catch (const Error& e) {
      fail("JSON: key '", path, "': ", e.what());
    }
  }

  void reject_unknown_keys() const {
    for (const auto& [key, v] : object_.as_object()) {
      bool known = false;
      for (const char* k : known_) known = known || key == k;
      if (known) continue;
      std::string names;
      for (const char* k : known_) names += (names.empty() ? "" : ", ") + std::string(k);
      fail("JSON: unknown key ", tapir::quoted(prefix_ + key), " (known: ", names, ")");
    }
  }

  const Json& object_;
  std::string prefix_;
  std::vector<const char*> known_;  // the keys the field list named, in its order
};

// The JSON object of `object`'s field list.
template <typename T>
Json fields_to_json(const T& object) {
  return JsonFieldWriter::value(object);
}

// Reads `j` into `object` through its field list; missing optional fields
// keep their values and unknown keys are errors.
template <typename T>
void fields_from_json(const Json& j, T& object) {
  JsonFieldReader::read(j, "", [&](JsonFieldReader& reader) { T::fields(object, reader); });
}

}  // namespace tapir
