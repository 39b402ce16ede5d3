// Small helpers shared by the fuzz harnesses (tests/fuzz/*_fuzz.cpp): the
// input as a string, a temporary path and the input written to a file, for
// the readers that take a path, and the check that a reader's error names
// the file it read.
#pragma once
#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

namespace tapir::fuzz {

// A path under /tmp of this process (/tmp/tapir_fuzz_<name>_<pid><suffix>), for a
// harness whose reader takes a path. Whatever is there is removed at exit.
class TempPath {
 public:
  TempPath(const std::string& name, const std::string& suffix)
      : path_("/tmp/tapir_fuzz_" + name + "_" + std::to_string(getpid()) + suffix) {}
  ~TempPath() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempPath(const TempPath&) = delete;
  TempPath& operator=(const TempPath&) = delete;
  const std::string& str() const { return path_; }

 private:
  std::string path_;
};

inline std::string input_bytes(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Replaces the file at `path` with the input.
inline void write_input(const std::string& path, const uint8_t* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) {
    std::fprintf(stderr, "fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
}

// A reader's error must say which file was wrong; one that does not is a
// finding (an abort, so libFuzzer keeps the input).
inline void require_names(std::string_view message, std::string_view name) {
  if (message.find(name) == std::string_view::npos) {
    std::fprintf(stderr, "fuzz: error does not name '%.*s': %.*s\n", static_cast<int>(name.size()),
                 name.data(), static_cast<int>(message.size()), message.data());
    std::abort();
  }
}

}  // namespace tapir::fuzz
