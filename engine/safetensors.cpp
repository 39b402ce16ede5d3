// The safetensors loader and writer. The loader checks every header field
// against the file before it copies a byte, so a hostile file can only produce
// a tapir::Error.
#include "engine/safetensors.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>
#include <set>

#include "base/error.h"
#include "base/file_io.h"
#include "base/json.h"

namespace tapir {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian and tapir copies it as is");

namespace {

constexpr uint64_t kMaxHeaderBytes = 100'000'000;
constexpr size_t kMaxRank = 8;
constexpr std::string_view kMetadataKey = "__metadata__";

template <typename... Args>
[[noreturn]] void reject(const std::string& label, const Args&... args) {
  fail(label, ": ", args...);
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (DType dtype : {DType::f32, DType::f64, DType::i32}) {
    if (dtype_name(dtype) == name) return dtype;
  }
  return std::nullopt;
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

// Bytes needed for shape of dtype, or nullopt when that exceeds INT64_MAX.
// Dimensions must already be known non-negative.
std::optional<uint64_t> data_bytes(const std::vector<int64_t>& shape, DType dtype) {
  for (int64_t dim : shape) {
    if (dim == 0) return 0;
  }
  uint64_t bytes = dtype_size(dtype);
  for (int64_t dim : shape) {
    const auto d = static_cast<uint64_t>(dim);
    if (bytes > static_cast<uint64_t>(INT64_MAX) / d) return std::nullopt;
    bytes *= d;
  }
  return bytes;
}

uint64_t round_up_8(uint64_t n) {
  return (n + 7) / 8 * 8;
}

// A header entry, checked on its own; layout checks come after all are read.
struct Entry {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t begin;
  uint64_t end;
};

Entry read_entry(const std::string& label, const std::string& name, const Json& json,
                 uint64_t data_size) {
  if (name.empty()) reject(label, "tensor name is empty");
  const std::string tensor = "tensor " + quoted(name);
  if (!json.is_object()) reject(label, tensor, " is not an object");
  for (const Json::Member& member : json.as_object()) {
    const std::string& key = member.first;
    if (key != "dtype" && key != "shape" && key != "data_offsets") {
      reject(label, tensor, " has unexpected field ", quoted(key));
    }
  }
  auto field = [&](const char* key) -> const Json& {
    const Json* value = json.find(key);
    if (value == nullptr) reject(label, tensor, " is missing field '", key, "'");
    return *value;
  };
  Entry entry{name, DType::f32, {}, 0, 0};

  const Json& dtype = field("dtype");
  if (!dtype.is_string()) reject(label, tensor, ": dtype is not a string");
  const std::optional<DType> parsed = dtype_from_name(dtype.as_string());
  if (!parsed) {
    reject(label, tensor, " has unsupported dtype ", quoted(dtype.as_string()),
           " (supported: F32, F64, I32)");
  }
  entry.dtype = *parsed;

  const Json& shape = field("shape");
  if (!shape.is_array()) reject(label, tensor, ": shape is not an array");
  if (shape.size() > kMaxRank) {
    reject(label, tensor, " has rank ", shape.size(), ", more than the supported ", kMaxRank);
  }
  for (const Json& dim : shape.as_array()) {
    if (!dim.is_int() || dim.as_int() < 0) {
      reject(label, tensor, ": shape must hold non-negative integers");
    }
    entry.shape.push_back(dim.as_int());
  }

  const Json& offsets = field("data_offsets");
  const bool well_formed = offsets.is_array() && offsets.size() == 2 &&
                           offsets.as_array()[0].is_int() && offsets.as_array()[0].as_int() >= 0 &&
                           offsets.as_array()[1].is_int() && offsets.as_array()[1].as_int() >= 0;
  if (!well_formed) reject(label, tensor, ": data_offsets must be two non-negative integers");
  entry.begin = static_cast<uint64_t>(offsets.as_array()[0].as_int());
  entry.end = static_cast<uint64_t>(offsets.as_array()[1].as_int());
  if (entry.begin > entry.end) {
    reject(label, tensor, ": data_offsets begin ", entry.begin, " is after end ", entry.end);
  }
  if (entry.end > data_size) {
    reject(label, tensor, ": data_offsets end ", entry.end, " is beyond the data region of ",
           data_size, " bytes");
  }

  const std::optional<uint64_t> needed = data_bytes(entry.shape, entry.dtype);
  if (!needed) reject(label, tensor, ": shape ", shape_string(entry.shape), " is too large");
  if (entry.end - entry.begin != *needed) {
    reject(label, tensor, ": data_offsets span ", entry.end - entry.begin, " bytes but shape ",
           shape_string(entry.shape), " of ", dtype_name(entry.dtype), " needs ", *needed);
  }
  return entry;
}

std::vector<std::pair<std::string, std::string>> read_metadata(const std::string& label,
                                                               const Json& json) {
  if (!json.is_object()) reject(label, kMetadataKey, " is not an object");
  std::vector<std::pair<std::string, std::string>> metadata;
  for (const Json::Member& member : json.as_object()) {
    if (!member.second.is_string()) {
      reject(label, kMetadataKey, " value for ", quoted(member.first), " is not a string");
    }
    metadata.emplace_back(member.first, member.second.as_string());
  }
  return metadata;
}

// The tensors must tile the data region exactly: no overlaps, no gaps, no
// trailing bytes (as the reference implementation requires).
void check_layout(const std::string& label, const std::vector<Entry>& entries, uint64_t data_size) {
  std::vector<const Entry*> by_offset;
  for (const Entry& entry : entries) by_offset.push_back(&entry);
  std::stable_sort(by_offset.begin(), by_offset.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t covered = 0;
  const Entry* previous = nullptr;
  for (const Entry* entry : by_offset) {
    if (entry->begin < covered) {
      reject(label, "tensors ", quoted(previous->name), " and ", quoted(entry->name), " overlap");
    }
    if (entry->begin > covered) {
      reject(label, "data bytes ", covered, " to ", entry->begin, " are not covered by any tensor");
    }
    covered = entry->end;
    previous = entry;
  }
  if (covered < data_size) {
    reject(label, "the last ", data_size - covered,
           " bytes of the data region are not covered by any tensor");
  }
}

}  // namespace

SafeTensorsFile SafeTensorsFile::load(const std::string& path) {
  return parse(read_file(path), path);
}

SafeTensorsFile SafeTensorsFile::parse(std::string bytes, const std::string& label) {
  if (bytes.size() < 8) {
    reject(label, "file is ", bytes.size(), " bytes, too short for the 8-byte header length");
  }
  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) {
    header_size = header_size << 8 | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
  }
  if (header_size > kMaxHeaderBytes) {
    reject(label, "header length ", header_size, " exceeds the limit of ", kMaxHeaderBytes,
           " bytes");
  }
  if (header_size > bytes.size() - 8) {
    reject(label, "header length ", header_size, " exceeds the ", bytes.size() - 8,
           " bytes after the length field");
  }
  Json header;
  try {
    header = parse_json(std::string_view(bytes).substr(8, header_size));
  } catch (const Error& error) {
    reject(label, "header is not valid JSON: ", error.what());
  }
  if (!header.is_object()) reject(label, "header is not a JSON object");

  SafeTensorsFile file;
  file.label_ = label;
  const uint64_t data_start = 8 + header_size;
  const uint64_t data_size = bytes.size() - data_start;
  std::vector<Entry> entries;
  for (const Json::Member& member : header.as_object()) {
    if (member.first == kMetadataKey) {
      file.metadata_ = read_metadata(label, member.second);
    } else {
      entries.push_back(read_entry(label, member.first, member.second, data_size));
    }
  }
  check_layout(label, entries, data_size);

  // Each tensor gets its own 8-byte-aligned slot, whatever its offset in the
  // file. One spare word keeps data non-null even when every tensor is empty.
  uint64_t storage_bytes = 8;
  for (const Entry& entry : entries) storage_bytes += round_up_8(entry.end - entry.begin);
  file.storage_.resize(storage_bytes / 8);
  auto* base = reinterpret_cast<uint8_t*>(file.storage_.data());
  uint64_t slot = 0;
  for (Entry& entry : entries) {
    const uint64_t nbytes = entry.end - entry.begin;
    if (nbytes > 0) std::memcpy(base + slot, bytes.data() + data_start + entry.begin, nbytes);
    file.index_.emplace(entry.name, file.tensors_.size());
    file.tensors_.push_back(SafeTensorView{std::move(entry.name), entry.dtype,
                                           std::move(entry.shape), base + slot,
                                           static_cast<size_t>(nbytes)});
    slot += round_up_8(nbytes);
  }
  return file;
}

const SafeTensorView* SafeTensorsFile::find(std::string_view name) const {
  const auto found = index_.find(name);
  return found == index_.end() ? nullptr : &tensors_[found->second];
}

const SafeTensorView& SafeTensorsFile::at(std::string_view name) const {
  const SafeTensorView* view = find(name);
  if (view == nullptr) reject(label_, "no tensor ", quoted(name));
  return *view;
}

std::string SafeTensorsFile::metadata_value(std::string_view key, std::string_view fallback) const {
  for (const auto& [k, v] : metadata_) {
    if (k == key) return v;
  }
  return std::string(fallback);
}

std::string encode_safetensors(const std::vector<SafeTensorWrite>& tensors,
                               const std::vector<std::pair<std::string, std::string>>& metadata) {
  const std::string label = "cannot encode safetensors";
  std::set<std::string_view> names;
  std::vector<uint64_t> nbytes;
  for (const SafeTensorWrite& tensor : tensors) {
    if (tensor.name.empty()) reject(label, "tensor name is empty");
    if (tensor.name == kMetadataKey) reject(label, "tensor name ", kMetadataKey, " is reserved");
    if (!names.insert(tensor.name).second) reject(label, "duplicate tensor ", quoted(tensor.name));
    const std::string name = "tensor " + quoted(tensor.name);
    if (tensor.shape.size() > kMaxRank) {
      reject(label, name, " has rank ", tensor.shape.size(), ", more than the supported ",
             kMaxRank);
    }
    for (int64_t dim : tensor.shape) {
      if (dim < 0) reject(label, name, " has negative dimension in ", shape_string(tensor.shape));
    }
    const std::optional<uint64_t> bytes = data_bytes(tensor.shape, tensor.dtype);
    if (!bytes) reject(label, name, ": shape ", shape_string(tensor.shape), " is too large");
    if (*bytes > 0 && tensor.data == nullptr) reject(label, name, " has no data");
    nbytes.push_back(*bytes);
  }
  std::set<std::string_view> keys;
  for (const auto& [key, value] : metadata) {
    if (!keys.insert(key).second) reject(label, "duplicate metadata key ", quoted(key));
  }

  // 8-byte types first, then 4-byte types: with the data region starting at a
  // multiple of 8, every tensor is aligned to its element size.
  std::vector<size_t> order(tensors.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return dtype_size(tensors[a].dtype) > dtype_size(tensors[b].dtype);
  });
  std::vector<uint64_t> begin(tensors.size());
  uint64_t data_size = 0;
  for (size_t i : order) {
    begin[i] = data_size;
    if (nbytes[i] > static_cast<uint64_t>(INT64_MAX) - data_size) reject(label, "data too large");
    data_size += nbytes[i];
  }

  Json header = Json::object();
  if (!metadata.empty()) {
    Json meta = Json::object();
    for (const auto& [key, value] : metadata) meta.set(key, value);
    header.set(std::string(kMetadataKey), std::move(meta));
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    Json shape = Json::array();
    for (int64_t dim : tensors[i].shape) shape.push_back(dim);
    Json entry = Json::object();
    entry.set("dtype", dtype_name(tensors[i].dtype));
    entry.set("shape", std::move(shape));
    entry.set("data_offsets", Json::Array{begin[i], begin[i] + nbytes[i]});
    header.set(tensors[i].name, std::move(entry));
  }
  std::string header_text = to_json(header);
  header_text.append(round_up_8(header_text.size()) - header_text.size(), ' ');

  std::string out;
  out.reserve(8 + header_text.size() + data_size);
  for (int i = 0; i < 8; ++i) out += static_cast<char>(header_text.size() >> (8 * i) & 0xff);
  out += header_text;
  for (size_t i : order) {
    if (nbytes[i] > 0) out.append(static_cast<const char*>(tensors[i].data), nbytes[i]);
  }
  return out;
}

void save_safetensors(const std::string& path, const std::vector<SafeTensorWrite>& tensors,
                      const std::vector<std::pair<std::string, std::string>>& metadata) {
  std::string bytes;
  try {
    bytes = encode_safetensors(tensors, metadata);
  } catch (const Error& error) {
    fail(path, ": ", error.what());
  }
  write_file_atomic(path, bytes);
}

}  // namespace tapir
