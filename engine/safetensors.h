// Reading and writing safetensors files: an 8-byte little-endian header length
// N, N bytes of JSON header, then the raw little-endian tensor data. Only F32,
// F64 and I32 are supported. The loader is strict: any malformed file is one
// "<label>: <problem>" tapir::Error, never a crash. docs/formats.md describes
// the layout and the checks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/dtype.h"

namespace tapir {

// One tensor of a loaded file. data is aligned to 8 bytes, so it may be read
// directly as float, double or int32_t; it lives as long as the file object.
struct SafeTensorView {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  const uint8_t* data;
  size_t nbytes;
};

class SafeTensorsFile {
 public:
  static SafeTensorsFile load(const std::string& path);
  // Same checks as load on bytes already in memory; label prefixes errors.
  static SafeTensorsFile parse(std::string bytes, const std::string& label);

  // Views point into this object's buffer: moving keeps them valid, copying
  // would not, so copies are not allowed.
  SafeTensorsFile(SafeTensorsFile&&) = default;
  SafeTensorsFile& operator=(SafeTensorsFile&&) = default;
  SafeTensorsFile(const SafeTensorsFile&) = delete;
  SafeTensorsFile& operator=(const SafeTensorsFile&) = delete;

  const std::vector<SafeTensorView>& tensors() const { return tensors_; }  // header order
  const SafeTensorView* find(std::string_view name) const;                 // null if absent
  const SafeTensorView& at(std::string_view name) const;  // throws "<label>: no tensor 'x'"
  const std::vector<std::pair<std::string, std::string>>& metadata() const { return metadata_; }
  std::string metadata_value(std::string_view key, std::string_view fallback = "") const;
  // The path it was loaded from (or parse's label): what its errors start with.
  const std::string& label() const { return label_; }

 private:
  SafeTensorsFile() = default;

  std::string label_;
  std::vector<uint64_t> storage_;  // uint64_t elements give the 8-byte alignment
  std::vector<SafeTensorView> tensors_;
  std::map<std::string, size_t, std::less<>> index_;
  std::vector<std::pair<std::string, std::string>> metadata_;
};

struct SafeTensorWrite {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  const void* data;  // product(shape) elements of dtype, host (little-endian) order
};

// The bytes of a safetensors file. The header lists tensors in the given order
// and is padded with spaces so the data starts at a multiple of 8; the data
// places 8-byte types before 4-byte types so every tensor stays aligned.
std::string encode_safetensors(
    const std::vector<SafeTensorWrite>& tensors,
    const std::vector<std::pair<std::string, std::string>>& metadata = {});

// encode_safetensors, written with write_file_atomic.
void save_safetensors(const std::string& path, const std::vector<SafeTensorWrite>& tensors,
                      const std::vector<std::pair<std::string, std::string>>& metadata = {});

}  // namespace tapir
