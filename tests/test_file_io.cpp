// Tests for engine/file_io: reads report the reason they failed, atomic writes
// leave no temporary file and never clobber the target on failure.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/file_io.h"
#include "tests/test_support.h"

namespace fs = std::filesystem;

namespace {

using test_support::error_of;
using test_support::TempDir;

}  // namespace

TEST_CASE("file_io: write_file_atomic writes, replaces and leaves no temp file") {
  TempDir dir;
  const std::string path = dir.file("out.bin");
  const std::string bytes("a\0b\xff", 4);
  tapir::write_file_atomic(path, bytes);
  CHECK(tapir::read_file(path) == bytes);
  tapir::write_file_atomic(path, "second");
  CHECK(tapir::read_file(path) == "second");
  tapir::write_file_atomic(path, "");
  CHECK(tapir::read_file(path).empty());
  CHECK(dir.entry_count() == 1);
}

TEST_CASE("file_io: write_file_atomic fails cleanly when the directory is missing") {
  TempDir dir;
  const std::string path = dir.file("missing/out.bin");
  const std::string message = error_of([&] { tapir::write_file_atomic(path, "data"); });
  CHECK(message.rfind(path + ": ", 0) == 0);
  CHECK(message.find("No such file or directory") != std::string::npos);
  CHECK(dir.entry_count() == 0);
}

TEST_CASE("file_io: a failed write_file_atomic keeps the old target") {
  TempDir dir;
  const std::string path = dir.file("keep.txt");
  tapir::write_file_atomic(path, "old");

  SUBCASE("the temporary file cannot be created") {
    // A directory squatting on the temp name makes the open fail.
    const std::string temp = path + ".tmp." + std::to_string(::getpid());
    fs::create_directory(temp);
    const std::string message = error_of([&] { tapir::write_file_atomic(path, "new"); });
    CHECK(message.find(path + ": cannot create temporary file") == 0);
    CHECK(tapir::read_file(path) == "old");
    CHECK(fs::is_directory(temp));
  }
  SUBCASE("the rename fails after the data is written") {
    // Renaming a file over a non-empty directory fails; the temp must go.
    const std::string target = dir.file("occupied");
    fs::create_directory(target);
    tapir::write_file_atomic(target + "/inside", "x");
    const std::string message = error_of([&] { tapir::write_file_atomic(target, "new"); });
    CHECK(message.find(target + ": cannot rename") == 0);
    CHECK(tapir::read_file(target + "/inside") == "x");
    CHECK(tapir::read_file(path) == "old");
    CHECK(dir.entry_count() == 2);
  }
}

TEST_CASE("file_io: read_file names the path and the reason") {
  TempDir dir;
  const std::string missing = dir.file("nope.txt");
  CHECK(error_of([&] { tapir::read_file(missing); }) ==
        missing + ": cannot open (No such file or directory)");
  const std::string folder = dir.file("folder");
  fs::create_directory(folder);
  CHECK(error_of([&] { tapir::read_file(folder); }) == folder + ": is a folder, not a file");
  // A device or a pipe is refused before a byte is read: /dev/zero never ends.
  CHECK(error_of([] { tapir::read_file("/dev/zero"); }) == "/dev/zero: is not a regular file");
  const std::string fifo = dir.file("pipe");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(error_of([&] { tapir::read_file(fifo); }) == fifo + ": is not a regular file");
  // A cap is checked on the size before reading.
  const std::string ten = dir.file("ten.txt");
  tapir::write_file_atomic(ten, "0123456789");
  CHECK(tapir::read_file(ten, 10) == "0123456789");
  CHECK(error_of([&] { tapir::read_file(ten, 9); }) ==
        ten + ": holds 10 bytes; at most 9 expected");
}

TEST_CASE("file_io: read_file reads files larger than one buffer") {
  TempDir dir;
  std::string big(300000, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7 % 251);
  tapir::write_file_atomic(dir.file("big"), big);
  CHECK(tapir::read_file(dir.file("big")) == big);
}

TEST_CASE("file_io: append_line appends whole lines") {
  TempDir dir;
  const std::string path = dir.file("metrics.jsonl");
  tapir::append_line(path, "{\"step\":1}");
  tapir::append_line(path, "{\"step\":2}");
  tapir::append_line(path, "");
  CHECK(tapir::read_file(path) == "{\"step\":1}\n{\"step\":2}\n\n");
  CHECK(error_of([&] { tapir::append_line(path, "a\nb"); }).find("must not contain a newline") !=
        std::string::npos);
  CHECK(tapir::read_file(path) == "{\"step\":1}\n{\"step\":2}\n\n");
  CHECK(error_of([&] {
          tapir::append_line(dir.file("no/such.jsonl"), "x");
        }).find("cannot open for append (No such file or directory)") != std::string::npos);
}

TEST_CASE("file_io: read_json_file names the file in parse errors and in the reader's errors") {
  TempDir dir;
  const std::string path = dir.file("config.json");
  tapir::write_file_atomic(path, "{\"a\":1}\n");
  CHECK(tapir::read_json_file(path).at("a").as_int() == 1);
  CHECK(tapir::read_json_file(path, [](const tapir::Json& j) { return j.at("a").as_int(); }) == 1);
  CHECK(error_of([&] {
          tapir::read_json_file(path, [](const tapir::Json& j) { return j.at("b").as_int(); });
        }) == path + ": JSON: missing key 'b'");
  tapir::write_file_atomic(path, "garbage");
  CHECK(error_of([&] { tapir::read_json_file(path); }) ==
        path + ": invalid JSON at byte 0: unexpected 'g'");
  // I/O errors already name it, once.
  const std::string missing = dir.file("nope.json");
  CHECK(error_of([&] { tapir::read_json_file(missing); }) ==
        missing + ": cannot open (No such file or directory)");
}

TEST_CASE("file_io: read_json_lines gives each line in order and names the file and the line") {
  TempDir dir;
  const std::string path = dir.file("metrics.jsonl");
  tapir::write_file_atomic(path, "{\"step\":1}\n\n{\"step\":2}\n{\"step\":3}");
  std::vector<int64_t> steps;
  tapir::read_json_lines(path,
                         [&](const tapir::Json& j) { steps.push_back(j.at("step").as_int()); });
  CHECK(steps == std::vector<int64_t>{1, 2, 3});
  tapir::write_file_atomic(path, "{\"step\":1}\n{\"step\":2,}\n");
  CHECK(error_of([&] { tapir::read_json_lines(path, [](const tapir::Json&) {}); }) ==
        path + ": line 2: invalid JSON at byte 10: expected a string key");
  tapir::write_file_atomic(path, "{\"step\":1}\n{\"stop\":2}\n");
  CHECK(error_of([&] {
          tapir::read_json_lines(path, [](const tapir::Json& j) { j.at("step"); });
        }) == path + ": line 2: JSON: missing key 'step'");
}
