// Tests for engine/json: values, exact integers, escapes, round trips through
// the writer, one case per class of input the strict parser refuses, and the
// field lists of base/json_fields.h.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/json.h"
#include "base/json_fields.h"
#include "engine/device.h"
#include "engine/kernel_types.h"

using tapir::Json;
using tapir::parse_json;
using tapir::to_json;

namespace {

// The message of the tapir::Error that parsing text throws, or "" if none.
std::string parse_error(std::string_view text) {
  try {
    parse_json(text);
  } catch (const tapir::Error& error) {
    return error.what();
  }
  return "";
}

void check_rejected(std::string_view text, std::string_view phrase) {
  const std::string message = parse_error(text);
  INFO("input: ", std::string(text), "\nmessage: ", message);
  CHECK(message.rfind("invalid JSON at byte ", 0) == 0);
  CHECK(message.find(phrase) != std::string::npos);
}

}  // namespace

TEST_CASE("json: scalars parse to the expected kinds") {
  CHECK(parse_json("null").is_null());
  CHECK(parse_json("true").as_bool());
  CHECK_FALSE(parse_json(" false ").as_bool());
  CHECK(parse_json("42").as_int() == 42);
  CHECK(parse_json("-7").as_int() == -7);
  CHECK(parse_json("0").as_int() == 0);
  CHECK(parse_json("2.5").as_double() == 2.5);
  CHECK(parse_json("-1e3").as_double() == -1000.0);
  CHECK(parse_json("1E-2").as_double() == 0.01);
  CHECK(parse_json("\"hi\"").as_string() == "hi");
  CHECK(parse_json("1.0").kind() == Json::Kind::real);
  CHECK(parse_json("1e2").kind() == Json::Kind::real);
}

TEST_CASE("json: integers that fit in int64 stay exact") {
  // 2^53 + 1 has no exact double; byte offsets must not lose it.
  CHECK(parse_json("9007199254740993").as_int() == 9007199254740993LL);
  CHECK(parse_json("9223372036854775807").as_int() == std::numeric_limits<int64_t>::max());
  CHECK(parse_json("-9223372036854775808").as_int() == std::numeric_limits<int64_t>::min());
  CHECK(to_json(parse_json("9007199254740993")) == "9007199254740993");
  // One past int64 becomes a double rather than failing.
  const Json big = parse_json("9223372036854775808");
  CHECK(big.kind() == Json::Kind::real);
  CHECK(big.as_double() == 9223372036854775808.0);
}

TEST_CASE("json: accessors refuse the wrong kind") {
  CHECK_THROWS_WITH_AS(parse_json("3.0").as_int(), "JSON: expected integer, got number",
                       tapir::Error);
  CHECK_THROWS_WITH_AS(parse_json("3").as_string(), "JSON: expected string, got integer",
                       tapir::Error);
  CHECK_THROWS_WITH_AS(parse_json("[]").as_object(), "JSON: expected object, got array",
                       tapir::Error);
  CHECK_THROWS_WITH_AS(parse_json("{}").as_array(), "JSON: expected array, got object",
                       tapir::Error);
  CHECK_THROWS_WITH_AS(parse_json("\"x\"").as_double(), "JSON: expected number, got string",
                       tapir::Error);
  CHECK_THROWS_WITH_AS(parse_json("null").as_bool(), "JSON: expected bool, got null", tapir::Error);
  CHECK_THROWS_AS(parse_json("[1]").find("a"), tapir::Error);
  CHECK_THROWS_WITH_AS(parse_json("{\"a\":1}").at("b"), "JSON: missing key 'b'", tapir::Error);
  CHECK(parse_json("7").as_double() == 7.0);
  CHECK_THROWS_AS(Json(std::numeric_limits<uint64_t>::max()), tapir::Error);
  CHECK(Json(uint64_t{5}).as_int() == 5);
}

TEST_CASE("json: builders keep insertion order and replace on set") {
  Json object = Json::object();
  object.set("zeta", 1).set("alpha", "two").set("mid", Json::array().push_back(3).push_back(4.5));
  object.set("zeta", true);
  CHECK(to_json(object) == "{\"zeta\":true,\"alpha\":\"two\",\"mid\":[3,4.5]}");
  CHECK(object.size() == 3);
  CHECK(object.at("mid").size() == 2);
  REQUIRE(object.find("alpha") != nullptr);
  CHECK(object.find("alpha")->as_string() == "two");
  CHECK(object.find("nope") == nullptr);
}

TEST_CASE("json: pretty and compact output") {
  const Json value = parse_json("{\"a\":[1,{\"b\":null}],\"c\":{},\"d\":[]}");
  CHECK(to_json(value) == "{\"a\":[1,{\"b\":null}],\"c\":{},\"d\":[]}");
  CHECK(
      to_json(value, 2) ==
      "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": {},\n  \"d\": []\n}");
  CHECK(parse_json(to_json(value, 4)) == value);
}

TEST_CASE("json: doubles round trip and stay doubles") {
  for (double x : {0.1, -2.5, 1e300, 5e-324, 3.0, -0.0, 123456789.123456789, 1.0 / 3.0}) {
    const Json back = parse_json(to_json(Json(x)));
    CHECK(back.kind() == Json::Kind::real);
    CHECK(back.as_double() == x);
    CHECK(std::signbit(back.as_double()) == std::signbit(x));
  }
  CHECK(to_json(Json(3.0)) == "3.0");
  // The writer's spelling: plain from 1e-4 to below 1e15, else an exponent.
  CHECK(to_json(Json(0.0003)) == "0.0003");
  CHECK(to_json(Json(100000.0)) == "100000.0");
  CHECK(to_json(Json(1e-5)) == "1e-05");
  CHECK(to_json(Json(1e15)) == "1e+15");
  // Files written before spelled these with exponents; they read the same.
  CHECK(parse_json("3e-04").as_double() == 0.0003);
  CHECK(parse_json("1e+05").as_double() == 100000.0);
  CHECK(to_json(Json(std::nan(""))) == "null");
  CHECK(to_json(Json(std::numeric_limits<double>::infinity())) == "null");
}

TEST_CASE("json: string escapes decode and encode") {
  CHECK(parse_json(R"("a\"b\\c\/d\b\f\n\r\t")").as_string() == "a\"b\\c/d\b\f\n\r\t");
  CHECK(parse_json(R"("\u00e9")").as_string() == "\xc3\xa9");
  CHECK(parse_json(R"("\u20AC")").as_string() == "\xe2\x82\xac");
  CHECK(parse_json(R"("\ud83d\ude00")").as_string() == "\xf0\x9f\x98\x80");
  CHECK(parse_json(R"("\u0000")").as_string() == std::string(1, '\0'));
  CHECK(parse_json("\"caf\xc3\xa9 \xf0\x9f\x98\x80\"").as_string() ==
        "caf\xc3\xa9 \xf0\x9f\x98\x80");
  CHECK(to_json(Json("q\"b\\\n\x01")) == R"("q\"b\\\n\u0001")");

  std::string every_byte;
  for (int c = 0; c < 0x80; ++c) every_byte += static_cast<char>(c);
  every_byte += "\xc3\xa9\xf0\x9f\x98\x80";
  const std::string written = to_json(Json(every_byte));
  for (char c : written) CHECK(static_cast<unsigned char>(c) >= 0x20);
  CHECK(parse_json(written).as_string() == every_byte);
  // Written, a string that is not UTF-8 would not read back.
  CHECK_THROWS_WITH_AS(to_json(Json("a\xff")), "JSON: invalid UTF-8 byte at index 1: 0xFF",
                       tapir::Error);
}

TEST_CASE("json: nested values round trip") {
  const std::string text =
      R"({"name":"run","steps":[1,2,3],"lr":0.001,"nested":{"ok":true,"none":null,)"
      R"("deep":[[[]],{}]},"big":-9223372036854775807})";
  const Json value = parse_json(text);
  CHECK(to_json(value) == text);
  CHECK(parse_json(to_json(value, 2)) == value);
}

TEST_CASE("json: quoted keeps error messages on one line") {
  CHECK(tapir::quoted("abc") == "'abc'");
  CHECK(tapir::quoted("a\nb\x7f") == "'a\\x0ab\\x7f'");
}

TEST_CASE("json: syntax errors are rejected with their position") {
  CHECK(parse_error("[1,]") == "invalid JSON at byte 3: unexpected ']'");
  check_rejected("", "unexpected end of input");
  check_rejected("   ", "unexpected end of input");
  check_rejected("{\"a\":1,}", "expected a string key");
  check_rejected("{1:2}", "expected a string key");
  check_rejected("{\"a\" 1}", "expected ':'");
  check_rejected("[1 2]", "expected ',' or ']'");
  check_rejected("{\"a\":1 \"b\":2}", "expected ',' or '}'");
  check_rejected("[1,2", "expected ',' or ']', got end of input");
  check_rejected("// comment\n1", "unexpected '/'");
  check_rejected("/* c */ 1", "unexpected '/'");
  check_rejected("1 2", "after the value");
  check_rejected("{} x", "after the value");
  check_rejected("tru", "invalid literal");
  check_rejected("nul", "invalid literal");
  check_rejected("NaN", "unexpected 'N'");
  check_rejected("'a'", "unexpected '''");
  check_rejected("\xef\xbb\xbf{}", "unexpected byte 0xef");
  // A NUL byte is no end of input.
  CHECK(parse_error(std::string("{}\0", 3)) ==
        "invalid JSON at byte 2: unexpected byte 0x00 after the value");
  CHECK(parse_error(std::string("[1]\0 x", 6)) ==
        "invalid JSON at byte 3: unexpected byte 0x00 after the value");
  CHECK(parse_error(std::string("[1,\0]", 5)) == "invalid JSON at byte 3: unexpected byte 0x00");
  CHECK(parse_error("1 tru") == "invalid JSON at byte 2: unexpected 't' after the value");
  CHECK(parse_error("[true x]") == "invalid JSON at byte 6: expected ',' or ']', got 'x'");
  CHECK(parse_error("{\"a\" nul}") == "invalid JSON at byte 5: expected ':', got 'n'");
}

TEST_CASE("json: malformed numbers are rejected") {
  check_rejected("01", "leading zeros");
  check_rejected("-01", "leading zeros");
  CHECK(parse_error("[1,01]") == "invalid JSON at byte 4: leading zeros are not allowed");
  check_rejected("+1", "unexpected '+'");
  check_rejected("-", "expected a digit after the sign");
  check_rejected("-a", "expected a digit after the sign");
  check_rejected(".5", "unexpected '.'");
  check_rejected("1.", "expected a digit after '.'");
  check_rejected("1.e3", "expected a digit after '.'");
  check_rejected("1e", "expected a digit after the exponent");
  check_rejected("1e+", "expected a digit after the exponent");
  check_rejected("0x10", "after the value");
  check_rejected("1e400", "number out of range");
  check_rejected("-1e400", "number out of range");
  check_rejected("1e-400", "number out of range");  // underflow is not rounded to 0
}

TEST_CASE("json: malformed strings are rejected") {
  check_rejected("\"abc", "unterminated string");
  check_rejected("\"abc\\", "unterminated string");
  check_rejected("\"a\tb\"", "unescaped control character byte 0x09");
  check_rejected("\"a\nb\"", "unescaped control character byte 0x0a");
  check_rejected(R"("\x41")", "invalid escape");
  check_rejected(R"("\U0041")", "invalid escape");
  check_rejected(R"("\u12g4")", "invalid hex digit");
  check_rejected(R"("\u12")", "truncated \\u escape");
  check_rejected(R"("\ud800")", "unpaired high surrogate");
  check_rejected(R"("\ud800\u0041")", "unpaired high surrogate");
  check_rejected(R"("\udc00")", "unpaired low surrogate");
  check_rejected("\"\xff\"", "invalid UTF-8");
  check_rejected("\"\x80\"", "invalid UTF-8");
  check_rejected("\"\xc0\xaf\"", "invalid UTF-8");          // overlong '/'
  check_rejected("\"\xe0\x80\xaf\"", "invalid UTF-8");      // overlong, 3 bytes
  check_rejected("\"\xed\xa0\x80\"", "invalid UTF-8");      // encoded surrogate
  check_rejected("\"\xf4\x90\x80\x80\"", "invalid UTF-8");  // above U+10FFFF
  check_rejected("\"\xc3\"", "invalid UTF-8");              // truncated sequence
  check_rejected("\"\xc3", "invalid UTF-8");
}

TEST_CASE("json: duplicate keys are rejected") {
  check_rejected("{\"a\":1,\"a\":2}", "duplicate key 'a'");
  check_rejected("{\"x\":{\"k\":1,\"j\":2,\"k\":3}}", "duplicate key 'k'");
  CHECK(parse_json("{\"a\":{\"a\":1}}").at("a").at("a").as_int() == 1);
}

TEST_CASE("json: nesting is limited to 64 levels") {
  const auto nested = [](int depth) {
    return std::string(static_cast<size_t>(depth), '[') +
           std::string(static_cast<size_t>(depth), ']');
  };
  CHECK_NOTHROW(parse_json(nested(64)));
  check_rejected(nested(65), "nesting deeper than 64");
  check_rejected(std::string(100000, '['), "nesting deeper than 64");
  std::string objects;
  for (int i = 0; i < 65; ++i) objects += "{\"a\":";
  objects += "1" + std::string(65, '}');
  check_rejected(objects, "nesting deeper than 64");
}

namespace {

struct Inner {
  int64_t count = 3;
  tapir::SplineGrid grid{11, -1.0, 1.0, true};
  template <class Self, class Fields>
  static void fields(Self& c, Fields& f) {
    f.required("count", c.count);
    f.optional_grid(c.grid);
  }
};

struct Sample {
  bool flag = false;
  int threads = 1;
  uint64_t seed = 0;
  double rate = 0.5;
  std::string name = "a";
  tapir::Device device = tapir::Device::cpu;
  std::vector<double> rates = {0.1};
  std::map<std::string, std::string> options;
  Inner inner;
  double group_value = 2.0;
  template <class Self, class Fields>
  static void fields(Self& c, Fields& f) {
    f.required("flag", c.flag);
    f.required("threads", c.threads);
    f.required("seed", c.seed);
    f.required("rate", c.rate);
    f.required("name", c.name);
    f.optional("device", c.device);
    f.required("rates", c.rates);
    f.required("options", c.options);
    f.optional("inner", c.inner);
    f.group("group", [&](auto& g) { g.required("value", c.group_value); });
  }
};

// The message of the tapir::Error that reading `text` into a Sample throws.
std::string read_error(std::string_view text) {
  Sample s;
  try {
    tapir::fields_from_json(parse_json(text), s);
  } catch (const tapir::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("json fields: one list writes and reads a struct") {
  Sample s;
  s.flag = true;
  s.threads = 4;
  s.seed = std::numeric_limits<uint64_t>::max();
  s.rate = 1.0;
  s.name = "b";
  s.device = tapir::Device::cuda;
  s.rates = {0.25, 2.0};
  s.options = {{"p", "23"}};
  s.inner.count = 7;
  s.inner.grid = tapir::SplineGrid(5, -2.0, 3.0, false);
  s.group_value = 0.125;
  const Json j = tapir::fields_to_json(s);
  CHECK(to_json(j) ==
        "{\"flag\":true,\"threads\":4,\"seed\":-1,\"rate\":1.0,\"name\":\"b\",\"device\":\"cuda\","
        "\"rates\":[0.25,2.0],\"options\":{\"p\":\"23\"},\"inner\":{\"count\":7,\"knots\":5,"
        "\"lo\":-2.0,\"hi\":3.0,\"extrapolate\":\"constant\"},\"group\":{\"value\":0.125}}");
  Sample back;
  tapir::fields_from_json(parse_json(to_json(j)), back);
  CHECK(tapir::fields_to_json(back) == j);
  CHECK(back.seed == s.seed);
  CHECK(back.inner.grid == s.inner.grid);
}

TEST_CASE("json fields: missing optional fields keep the values read into") {
  Sample s;
  s.device = tapir::Device::cuda;
  s.inner.grid = tapir::SplineGrid(5, -2.0, 3.0, false);
  tapir::fields_from_json(parse_json(R"({"flag":true,"threads":2,"seed":9,"rate":3,"name":"c",)"
                                     R"("rates":[],"options":{},"inner":{"count":1,"hi":4.0},)"
                                     R"("group":{"value":1.5}})"),
                          s);
  CHECK(s.device == tapir::Device::cuda);
  CHECK(s.rate == 3.0);  // an integer literal reads as a double field
  CHECK(s.rates.empty());
  CHECK(s.inner.grid == tapir::SplineGrid(5, -2.0, 4.0, false));
}

TEST_CASE("json fields: errors name the field") {
  const std::string ok =
      R"("seed":0,"rate":1.0,"name":"a","rates":[0.5],"options":{},"group":{"value":1.0})";
  CHECK(read_error(R"({"flag":true,"threads":1,)" + ok + "}") == "");
  CHECK(read_error(R"({"threads":1,)" + ok + "}") == "JSON: missing key 'flag'");
  CHECK(read_error(R"({"flag":true,"threads":1.0,)" + ok + "}") ==
        "JSON: key 'threads': expected integer, got number");
  CHECK(read_error(R"({"flag":true,"threads":1,"device":"tpu",)" + ok + "}") ==
        "JSON: key 'device': unknown device 'tpu' (known: cpu, cuda)");
  CHECK(read_error(R"({"flag":true,"threads":1,"inner":{"knots":4},)" + ok + "}") ==
        "JSON: missing key 'inner.count'");
  CHECK(read_error(R"({"flag":true,"threads":1,"inner":{"count":1,"extrapolate":"mirror"},)" + ok +
                   "}") ==
        "JSON: key 'inner.extrapolate': spline extrapolation must be linear or constant, got "
        "'mirror'");
  CHECK(read_error(R"({"flag":true,"threads":1,"inner":{"count":1,"lo":2},)" + ok + "}") ==
        "JSON: key 'inner': spline grid: range must be finite with lo < hi, got [2, 1]");
  CHECK(read_error(R"({"flag":true,"threads":1,"inner":[],)" + ok + "}") ==
        "JSON: key 'inner': expected object, got array");
  CHECK(read_error("[]") == "JSON: expected object, got array");
}

TEST_CASE("json fields: a key the field list does not name is an error, at any depth") {
  const std::string fields =
      R"("flag":true,"threads":1,"seed":0,"rate":1.0,"name":"a","rates":[0.5],)";
  const std::string ok = fields + R"("group":{"value":1.0})";
  CHECK(read_error(R"({"options":{},)" + ok + "}") == "");
  CHECK(read_error(R"({"options":{},"thread":2,)" + ok + "}") ==
        "JSON: unknown key 'thread' (known: flag, threads, seed, rate, name, device, rates, "
        "options, inner, group)");
  CHECK(read_error(R"({"options":{},"inner":{"count":1,"knot":4},)" + ok + "}") ==
        "JSON: unknown key 'inner.knot' (known: count, knots, lo, hi, extrapolate)");
  CHECK(read_error(R"({"options":{},)" + fields + R"("group":{"value":1.0,"valeu":2.0}})") ==
        "JSON: unknown key 'group.valeu' (known: value)");
  // A hostile key cannot break the message over lines.
  CHECK(read_error(R"({"options":{},"a\nb":0,)" + ok + "}").find('\n') == std::string::npos);
  // A map is free-form: any key is an entry.
  Sample s;
  tapir::fields_from_json(parse_json(R"({"options":{"p":"97","anything":"x"},)" + ok + "}"), s);
  CHECK(s.options.size() == 2);
}
