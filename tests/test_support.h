// What many suites need and none should write again: a fresh temporary
// folder that is removed with everything in it, and the message of the
// tapir::Error an action throws.
#pragma once
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "base/error.h"

namespace test_support {

// A new folder under the system temp folder (mkdtemp: unique even when
// ctest runs suites at once), removed with its contents at the end of scope.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tapir_test_XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // The path of `name` inside the folder (nothing is created).
  std::string file(std::string_view name) const { return (path_ / name).string(); }
  // The folder `name` inside this one, created.
  std::string folder(std::string_view name) const {
    std::filesystem::create_directories(path_ / name);
    return file(name);
  }
  // Writes `bytes` to `name` (creating its folders) and returns its path.
  std::string write(std::string_view name, std::string_view bytes) const {
    const std::filesystem::path target = path_ / name;
    std::filesystem::create_directories(target.parent_path());
    std::ofstream(target, std::ios::binary) << bytes;
    return target.string();
  }
  size_t entry_count() const {
    return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(path_), {}));
  }

 private:
  std::filesystem::path path_;
};

// The message of the tapir::Error that action() throws; "" when it throws none.
std::string error_of(auto&& action) {
  try {
    action();
  } catch (const tapir::Error& error) {
    return error.what();
  }
  return "";
}

}  // namespace test_support
