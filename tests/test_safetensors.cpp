// Tests for engine/safetensors: round trips for every dtype, the writer's
// layout, and hand-made malformed files that the loader must refuse with a
// one-line message naming the problem.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/json.h"
#include "engine/safetensors.h"

using tapir::DType;
using tapir::SafeTensorsFile;
using tapir::SafeTensorWrite;

namespace {

const std::string kLabel = "bad.safetensors";

// A file from a header given as text and raw data bytes.
std::string raw_file(std::string_view header, std::string_view data = {}) {
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>(header.size() >> (8 * i) & 0xff);
  out += header;
  out += data;
  return out;
}

// A file whose length field says header_size, followed by rest.
std::string with_length_field(uint64_t header_size, std::string_view rest) {
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>(header_size >> (8 * i) & 0xff);
  return out + std::string(rest);
}

std::string parse_error(const std::string& bytes) {
  try {
    SafeTensorsFile::parse(bytes, kLabel);
  } catch (const tapir::Error& error) {
    return error.what();
  }
  return "";
}

template <typename T>
T value_at(const tapir::SafeTensorView& view, size_t i) {
  REQUIRE(view.dtype == tapir::dtype_of<T>());
  REQUIRE((i + 1) * sizeof(T) <= view.nbytes);
  return reinterpret_cast<const T*>(view.data)[i];
}

bool aligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % 8 == 0;
}

}  // namespace

TEST_CASE("safetensors: f32, f64, i32, scalar and empty tensors round trip") {
  const float weights[6] = {1.0f, -2.5f, 3.25f, 0.0f, 1e-30f, 6.0f};
  const float odd[3] = {7.0f, 8.0f, 9.0f};
  const double precise[3] = {0.1, -2.0, 1e300};
  const int32_t ids[4] = {-1, 0, 7, std::numeric_limits<int32_t>::max()};
  const float scalar = 3.5f;
  const std::vector<SafeTensorWrite> tensors = {
      {"layer.weight", DType::f32, {2, 3}, weights}, {"odd", DType::f32, {3}, odd},
      {"precise", DType::f64, {3}, precise},         {"ids", DType::i32, {2, 2}, ids},
      {"scalar", DType::f32, {}, &scalar},           {"empty", DType::f32, {0, 5}, nullptr},
  };
  const std::vector<std::pair<std::string, std::string>> metadata = {{"step", "120"},
                                                                     {"format", "tapir"}};
  const std::string bytes = tapir::encode_safetensors(tensors, metadata);
  const SafeTensorsFile file = SafeTensorsFile::parse(bytes, "mem");

  REQUIRE(file.tensors().size() == tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const tapir::SafeTensorView& view = file.tensors()[i];
    CHECK(view.name == tensors[i].name);
    CHECK(view.dtype == tensors[i].dtype);
    CHECK(view.shape == tensors[i].shape);
    CHECK(view.data != nullptr);
    CHECK(aligned(view.data));
  }
  const tapir::SafeTensorView& w = file.at("layer.weight");
  CHECK(w.nbytes == 24);
  for (size_t i = 0; i < 6; ++i) CHECK(value_at<float>(w, i) == weights[i]);
  for (size_t i = 0; i < 3; ++i) CHECK(value_at<double>(file.at("precise"), i) == precise[i]);
  for (size_t i = 0; i < 4; ++i) CHECK(value_at<int32_t>(file.at("ids"), i) == ids[i]);
  CHECK(file.at("scalar").nbytes == 4);
  CHECK(value_at<float>(file.at("scalar"), 0) == 3.5f);
  CHECK(file.at("empty").nbytes == 0);

  CHECK(file.metadata() == metadata);
  CHECK(file.metadata_value("step") == "120");
  CHECK(file.metadata_value("missing", "fallback") == "fallback");
  CHECK(file.find("nope") == nullptr);
  CHECK_THROWS_WITH_AS(file.at("nope"), "mem: no tensor 'nope'", tapir::Error);

  // Encoding what was loaded gives back the same bytes.
  std::vector<SafeTensorWrite> again;
  for (const auto& view : file.tensors()) {
    again.push_back({view.name, view.dtype, view.shape, view.data});
  }
  CHECK(tapir::encode_safetensors(again, file.metadata()) == bytes);
}

TEST_CASE("safetensors: the writer pads the header and puts 8-byte types first") {
  const float odd[3] = {1, 2, 3};
  const double wide[1] = {4};
  const std::string bytes = tapir::encode_safetensors(
      {{"odd", DType::f32, {3}, odd}, {"wide", DType::f64, {1}, wide}}, {{"k", "v"}});
  uint64_t header_size = 0;
  std::memcpy(&header_size, bytes.data(), 8);
  CHECK(header_size % 8 == 0);
  CHECK(bytes.size() == 8 + header_size + 12 + 8);
  const tapir::Json header = tapir::parse_json(std::string_view(bytes).substr(8, header_size));
  CHECK(header.as_object()[0].first == "__metadata__");
  CHECK(header.as_object()[1].first == "odd");
  CHECK(tapir::to_json(header.at("wide").at("data_offsets")) == "[0,8]");
  CHECK(tapir::to_json(header.at("odd").at("data_offsets")) == "[8,20]");
  CHECK(tapir::to_json(header.at("odd").at("shape")) == "[3]");
  CHECK(header.at("odd").at("dtype").as_string() == "F32");
}

TEST_CASE("safetensors: files from other writers load aligned") {
  // Unpadded header, an f64 at data offset 4, metadata after the tensors.
  std::string data(12, '\0');
  const int32_t id = 5;
  const double value = 2.5;
  std::memcpy(data.data(), &id, 4);
  std::memcpy(data.data() + 4, &value, 8);
  const std::string bytes = raw_file(
      R"({"ids":{"dtype":"I32","shape":[1],"data_offsets":[0,4]},)"
      R"( "w":{"data_offsets":[4,12],"shape":[],"dtype":"F64"}, "__metadata__":{"format":"pt"}})",
      data);
  const SafeTensorsFile file = SafeTensorsFile::parse(bytes, "foreign");
  CHECK(aligned(file.at("w").data));
  CHECK(value_at<double>(file.at("w"), 0) == 2.5);
  CHECK(value_at<int32_t>(file.at("ids"), 0) == 5);
  CHECK(file.metadata_value("format") == "pt");

  const SafeTensorsFile empty = SafeTensorsFile::parse(raw_file("{}"), "empty");
  CHECK(empty.tensors().empty());
  CHECK(empty.metadata().empty());
}

TEST_CASE("safetensors: views survive moving the file object") {
  const float x[2] = {1, 2};
  SafeTensorsFile file =
      SafeTensorsFile::parse(tapir::encode_safetensors({{"x", DType::f32, {2}, x}}), "m");
  const uint8_t* before = file.at("x").data;
  SafeTensorsFile moved = std::move(file);
  CHECK(moved.at("x").data == before);
  CHECK(value_at<float>(moved.at("x"), 1) == 2.0f);
}

TEST_CASE("safetensors: the writer refuses bad tensors") {
  const float x[1] = {1};
  const auto error_of = [](const std::vector<SafeTensorWrite>& tensors,
                           const std::vector<std::pair<std::string, std::string>>& metadata = {}) {
    try {
      tapir::encode_safetensors(tensors, metadata);
    } catch (const tapir::Error& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  const auto contains = [](const std::string& message, std::string_view phrase) {
    INFO("message: ", message);
    CHECK(message.find(phrase) != std::string::npos);
  };
  contains(error_of({{"", DType::f32, {1}, x}}), "tensor name is empty");
  contains(error_of({{"a", DType::f32, {1}, x}, {"a", DType::f32, {1}, x}}),
           "duplicate tensor 'a'");
  contains(error_of({{"__metadata__", DType::f32, {1}, x}}), "is reserved");
  contains(error_of({{"a", DType::f32, {-1}, x}}), "negative dimension");
  contains(error_of({{"a", DType::f32, {1, 1, 1, 1, 1, 1, 1, 1, 1}, x}}), "rank 9");
  contains(error_of({{"a", DType::f32, {int64_t{1} << 62, 4}, x}}), "is too large");
  contains(error_of({{"a", DType::f32, {2}, nullptr}}), "has no data");
  contains(error_of({{"a", DType::f32, {1}, x}}, {{"k", "1"}, {"k", "2"}}),
           "duplicate metadata key 'k'");
  // A zero dimension makes the tensor empty however large the others are.
  CHECK(error_of({{"a", DType::f64, {int64_t{1} << 62, 0, int64_t{1} << 62}, nullptr}}).empty());
}

TEST_CASE("safetensors: hand-made malformed files are rejected") {
  const std::string f32_entry = R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
  const std::string data8(8, '\0');
  struct Case {
    std::string what;
    std::string bytes;
    const char* phrase;
  };
  const std::vector<Case> cases = {
      {"shorter than 8 bytes", std::string(5, '\0'), "file is 5 bytes, too short"},
      {"empty file", "", "file is 0 bytes"},
      {"absurd header length", with_length_field(uint64_t{1} << 40, "{}"),
       "header length 1099511627776 exceeds the limit of 100000000 bytes"},
      {"header longer than file", with_length_field(100, "{}"),
       "header length 100 exceeds the 2 bytes after the length field"},
      {"empty header", raw_file(""), "header is not valid JSON: invalid JSON at byte 0"},
      {"truncated JSON", raw_file(R"({"a":)"), "header is not valid JSON"},
      {"trailing comma", raw_file(R"({"a":)" + f32_entry + ",}", data8), "expected a string key"},
      {"garbage after header JSON", raw_file("{} x"), "header is not valid JSON"},
      {"header not an object", raw_file("[]"), "header is not a JSON object"},
      {"entry not an object", raw_file(R"({"a":[1]})"), "tensor 'a' is not an object"},
      {"missing field", raw_file(R"({"a":{"dtype":"F32","shape":[2]}})", data8),
       "tensor 'a' is missing field 'data_offsets'"},
      {"extra field",
       raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"extra":1}})", data8),
       "tensor 'a' has unexpected field 'extra'"},
      {"F16", raw_file(R"({"a":{"dtype":"F16","shape":[4],"data_offsets":[0,8]}})", data8),
       "tensor 'a' has unsupported dtype 'F16' (supported: F32, F64, I32)"},
      {"BF16", raw_file(R"({"a":{"dtype":"BF16","shape":[4],"data_offsets":[0,8]}})", data8),
       "unsupported dtype 'BF16'"},
      {"dtype not a string", raw_file(R"({"a":{"dtype":4,"shape":[2],"data_offsets":[0,8]}})"),
       "tensor 'a': dtype is not a string"},
      {"shape not an array", raw_file(R"({"a":{"dtype":"F32","shape":2,"data_offsets":[0,8]}})"),
       "tensor 'a': shape is not an array"},
      {"negative dimension",
       raw_file(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", data8),
       "shape must hold non-negative integers"},
      {"fractional dimension",
       raw_file(R"({"a":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", data8),
       "shape must hold non-negative integers"},
      {"rank 9",
       raw_file(R"({"a":{"dtype":"F32","shape":[1,1,1,1,1,1,1,1,2],"data_offsets":[0,8]}})", data8),
       "tensor 'a' has rank 9, more than the supported 8"},
      {"shape overflows",
       raw_file(R"({"a":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,8]}})",
                data8),
       "shape [4611686018427387904, 4] is too large"},
      {"three offsets", raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8,8]}})"),
       "data_offsets must be two non-negative integers"},
      {"negative offset", raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[-8,0]}})"),
       "data_offsets must be two non-negative integers"},
      {"offsets not an array", raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":8}})"),
       "data_offsets must be two non-negative integers"},
      {"begin after end",
       raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", data8),
       "data_offsets begin 8 is after end 0"},
      {"end beyond data",
       raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", "1234"),
       "data_offsets end 8 is beyond the data region of 4 bytes"},
      {"size does not match shape",
       raw_file(R"({"a":{"dtype":"F64","shape":[2],"data_offsets":[0,8]}})", data8),
       "data_offsets span 8 bytes but shape [2] of F64 needs 16"},
      {"overlapping tensors",
       raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                R"("b":{"dtype":"I32","shape":[1],"data_offsets":[4,8]}})",
                data8),
       "tensors 'a' and 'b' overlap"},
      {"gap between tensors",
       raw_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                R"("b":{"dtype":"I32","shape":[1],"data_offsets":[8,12]}})",
                std::string(12, '\0')),
       "data bytes 4 to 8 are not covered by any tensor"},
      {"trailing data", raw_file(R"({"a":)" + f32_entry + "}", std::string(12, '\0')),
       "the last 4 bytes of the data region are not covered by any tensor"},
      {"data with no tensors", raw_file("{}", "xyz"), "the last 3 bytes"},
      {"metadata not an object", raw_file(R"({"__metadata__":"v"})"),
       "__metadata__ is not an object"},
      {"metadata value not a string", raw_file(R"({"__metadata__":{"step":3}})"),
       "__metadata__ value for 'step' is not a string"},
      {"duplicate tensor name", raw_file(R"({"a":)" + f32_entry + R"(,"a":)" + f32_entry + "}"),
       "duplicate key 'a'"},
      {"empty tensor name", raw_file(R"({"":)" + f32_entry + "}", data8), "tensor name is empty"},
      {"newline in a name", raw_file("{\"a\\nb\":[]}"), "tensor 'a\\x0ab' is not an object"},
  };
  for (const Case& c : cases) {
    const std::string message = parse_error(c.bytes);
    INFO(c.what, "\nmessage: ", message);
    CHECK(message.rfind(kLabel + ": ", 0) == 0);
    CHECK(message.find(c.phrase) != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
  }
}

TEST_CASE("safetensors: truncated and corrupted files fail cleanly") {
  const float x[3] = {1, 2, 3};
  const double y[2] = {4, 5};
  const std::string good = tapir::encode_safetensors(
      {{"x", DType::f32, {3}, x}, {"y", DType::f64, {2}, y}}, {{"k", "v"}});
  size_t rejected = 0;
  for (size_t length = 0; length < good.size(); ++length) {
    if (!parse_error(good.substr(0, length)).empty()) ++rejected;
  }
  CHECK(rejected == good.size());
  // Any single corrupted byte must give a clean error or a valid file.
  for (size_t i = 0; i < good.size(); ++i) {
    for (unsigned char flip : {0x01, 0x20, 0x80, 0xff}) {
      std::string bad = good;
      bad[i] = static_cast<char>(static_cast<unsigned char>(bad[i]) ^ flip);
      parse_error(bad);
    }
  }
}

TEST_CASE("safetensors: save and load through a file") {
  const int32_t ids[3] = {3, 1, 2};
  const std::string path = "/tmp/tapir_test_safetensors_" + std::to_string(::getpid());
  tapir::save_safetensors(path, {{"ids", DType::i32, {3}, ids}}, {{"note", "hi"}});
  const SafeTensorsFile file = SafeTensorsFile::load(path);
  CHECK(value_at<int32_t>(file.at("ids"), 2) == 2);
  CHECK(file.metadata_value("note") == "hi");
  std::remove(path.c_str());
  CHECK_THROWS_WITH_AS(tapir::save_safetensors(path, {{"", DType::i32, {3}, ids}}),
                       (path + ": cannot encode safetensors: tensor name is empty").c_str(),
                       tapir::Error);
  CHECK_THROWS_WITH_AS(SafeTensorsFile::load(path),
                       (path + ": cannot open (No such file or directory)").c_str(), tapir::Error);
}
