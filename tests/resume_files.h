// Damaging resume files on purpose, for the tests of what a resume refuses
// (test_run_safety.cpp, test_search_resume.cpp).
#pragma once
#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/file_io.h"
#include "base/folder_lock.h"
#include "engine/safetensors.h"

namespace tapir::testing {

// Rewrites DIR/resume.safetensors with its tensors as they are, metadata
// `key` set to `value` (none when key is empty), and a one-value F32 tensor
// named `extra_tensor` added when that is not empty.
inline void rewrite_resume(const std::string& dir, const std::string& key, const std::string& value,
                           const std::string& extra_tensor = "") {
  const std::string path = dir + "/resume.safetensors";
  const SafeTensorsFile file = SafeTensorsFile::load(path);
  std::vector<SafeTensorWrite> writes;
  for (const SafeTensorView& v : file.tensors())
    writes.push_back({v.name, v.dtype, v.shape, v.data});
  const float one = 1;
  if (!extra_tensor.empty()) writes.push_back({extra_tensor, DType::f32, {1}, &one});
  Metadata meta;
  for (const auto& [k, v] : file.metadata())
    if (k != key) meta.push_back({k, v});
  if (!key.empty()) meta.push_back({key, value});
  save_safetensors(path, writes, meta);
}

// Rewrites DIR/resume.safetensors with the values of tensor `name` (of
// element type T) passed through `edit`, everything else as it is.
template <typename T, typename Edit>
void edit_resume_tensor(const std::string& dir, const std::string& name, Edit edit) {
  const std::string path = dir + "/resume.safetensors";
  const SafeTensorsFile file = SafeTensorsFile::load(path);
  std::vector<SafeTensorWrite> writes;
  std::vector<T> values;
  for (const SafeTensorView& v : file.tensors()) {
    if (v.name != name) {
      writes.push_back({v.name, v.dtype, v.shape, v.data});
      continue;
    }
    const T* data = reinterpret_cast<const T*>(v.data);
    values.assign(data, data + v.nbytes / sizeof(T));
    edit(values);
    writes.push_back({v.name, v.dtype, v.shape, values.data()});
  }
  if (values.empty()) throw std::runtime_error(path + " has no tensor '" + name + "' to edit");
  save_safetensors(path, writes, file.metadata());
}

// The name of the first tensor of DIR/resume.safetensors that starts with
// `prefix` ("" when none).
inline std::string resume_tensor_named(const std::string& dir, const std::string& prefix) {
  const SafeTensorsFile file = SafeTensorsFile::load(dir + "/resume.safetensors");
  for (const SafeTensorView& v : file.tensors())
    if (std::string(v.name).rfind(prefix, 0) == 0) return std::string(v.name);
  return "";
}

// Every file below DIR with its bytes, by path below DIR (the lock file
// aside): what a refused resume must leave as it found it.
inline std::map<std::string, std::string> files_below(const std::string& dir) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> out;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename() != FolderLock::kFile)
      out[fs::relative(e.path(), dir).string()] = read_file(e.path().string());
  return out;
}

// A way to damage DIR/resume.safetensors, and the message (after the
// file's path and ": ") that a resume must refuse it with.
struct Damage {
  std::function<void()> apply;
  std::string message;
};

// For each damage: the intact file put back, the damage applied, then
// `resume` must throw exactly "DIR/resume.safetensors: <message>" and leave
// every file below DIR as it was. The intact file is put back at the end.
inline void check_refused(const std::string& dir, const std::vector<Damage>& damages,
                          const std::function<void()>& resume) {
  const std::string path = dir + "/resume.safetensors";
  const std::string good = read_file(path);
  for (const Damage& d : damages) {
    CAPTURE(d.message);
    write_file_atomic(path, good);
    d.apply();
    const std::map<std::string, std::string> before = files_below(dir);
    CHECK_THROWS_WITH_AS(resume(), (path + ": " + d.message).c_str(), Error);
    CHECK(files_below(dir) == before);
  }
  write_file_atomic(path, good);
}

}  // namespace tapir::testing
