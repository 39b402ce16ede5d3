// Tests for the text task (tasks/text.cpp): the splits partition the corpus,
// windows stay inside their split and their targets are the next
// characters, the vocabulary round-trips through vocab_string(), directories
// and file lists are read in order, bad corpora are refused by name, and the
// built-in sample makes a usable task.
#include "tasks/text.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/file_io.h"
#include "tasks/text_sample.h"
#include "tests/test_support.h"

namespace fs = std::filesystem;

namespace {

using test_support::error_of;
using test_support::TempDir;

using tapir::Batch;
using tapir::Rng;
using tapir::TaskOptions;
using tapir::TextTask;

const std::string kTiny = (fs::path(__FILE__).parent_path() / "data" / "tiny.txt").string();

std::unique_ptr<TextTask> make_text(std::map<std::string, std::string> options) {
  const TaskOptions o(std::move(options));
  auto task = std::make_unique<TextTask>(o);
  o.check_all_used("text");
  return task;
}

// 3000 letters from an LCG: every 12-letter window occurs once (checked).
std::string unique_windows_text() {
  std::string text;
  uint32_t x = 12345;
  for (int i = 0; i < 3000; ++i) {
    x = x * 1664525u + 1013904223u;
    text += static_cast<char>('a' + (x >> 16) % 26);
  }
  return text;
}

// Decodes a row back to bytes through the names (letters name themselves),
// appends the last target, and returns where that window sits in the corpus.
int64_t locate_window(const TextTask& task, const Batch& batch, int64_t b) {
  std::string window;
  for (int64_t t = 0; t < batch.T; ++t)
    window += task.vocab().names.at(batch.tokens[batch.at(b, t)]);
  window += task.vocab().names.at(batch.targets[batch.at(b, batch.T - 1)]);
  REQUIRE(window.size() == size_t(batch.T + 1));
  const size_t pos = task.corpus().find(window);
  REQUIRE(pos != std::string::npos);
  REQUIRE(task.corpus().rfind(window) == pos);
  for (int64_t t = 0; t + 1 < batch.T; ++t)
    CHECK(batch.targets[batch.at(b, t)] == batch.tokens[batch.at(b, t + 1)]);
  for (int64_t t = 0; t < batch.T; ++t) CHECK(batch.mask[batch.at(b, t)] == 1.0f);
  return static_cast<int64_t>(pos);
}

}  // namespace

TEST_CASE("text splits partition the corpus into contiguous blocks") {
  auto task = make_text({{"path", kTiny}, {"context", "32"}});
  const std::string file = tapir::read_file(kTiny);
  CHECK(task->corpus() == file);
  const auto n = static_cast<int64_t>(file.size());
  const auto train = task->split_range("train"), arch = task->split_range("arch"),
             test = task->split_range("test");
  CHECK(train.begin == 0);
  CHECK(train.end == arch.begin);
  CHECK(arch.end == test.begin);
  CHECK(test.end == n);
  CHECK(std::abs(double(test.size()) - 0.1 * double(n)) <= 1.0);
  CHECK(std::abs(double(arch.size()) - 0.2 * double(test.begin)) <= 1.0);
  std::vector<int> owner(file.size(), 0);
  for (const auto& range : {train, arch, test})
    for (int64_t i = range.begin; i < range.end; ++i) ++owner[static_cast<size_t>(i)];
  for (int count : owner) CHECK(count == 1);
  CHECK(task->max_length() == 32);
  CHECK(task->eval_splits() == std::vector<std::string>{"test"});
}

TEST_CASE("text windows stay inside their split and predict the next character") {
  TempDir dir;
  const std::string path = dir.write("letters.txt", unique_windows_text());
  auto task = make_text({{"path", path}, {"context", "24"}});
  Rng rng(5);
  Batch batch;
  for (const std::string split : {"train", "arch", "test"}) {
    CAPTURE(split);
    const auto range = task->split_range(split);
    int64_t lowest = range.end, highest = range.begin;
    for (int round = 0; round < 10; ++round) {
      task->sample(split, 100, rng, batch);
      CHECK(batch.T == 24);
      for (int64_t b = 0; b < batch.B; ++b) {
        const int64_t pos = locate_window(*task, batch, b);
        CHECK(pos >= range.begin);
        CHECK(pos + 25 <= range.end);
        lowest = std::min(lowest, pos);
        highest = std::max(highest, pos);
        CHECK(batch.group[b] == -1);
      }
    }
    CHECK(highest - lowest > range.size() / 2);  // windows spread over the split
  }
  // The evaluation set: consecutive non-overlapping windows from the start
  // of the test split.
  const auto test = task->split_range("test");
  const int64_t windows = (test.size() - 1) / 24;
  CHECK(task->eval_size("test") == windows);
  task->eval_batch("test", 0, windows, batch);
  for (int64_t b = 0; b < batch.B; ++b)
    CHECK(locate_window(*task, batch, b) == test.begin + 24 * b);
  auto few = make_text({{"path", path}, {"context", "24"}, {"eval-size", "3"}});
  CHECK(few->eval_size("test") == 3);
}

TEST_CASE("text: the data seed moves the eval windows; samples follow the rng") {
  TempDir dir;
  const std::string path = dir.write("letters.txt", unique_windows_text());
  auto a = make_text({{"path", path}, {"context", "24"}, {"data-seed", "5"}});
  auto b = make_text({{"path", path}, {"context", "24"}, {"data-seed", "5"}});
  auto c = make_text({{"path", path}, {"context", "24"}, {"data-seed", "6"}});
  Batch x, y, z;
  a->eval_batch("test", 0, 4, x);
  b->eval_batch("test", 0, 4, y);
  c->eval_batch("test", 0, 4, z);
  CHECK(x.tokens == y.tokens);
  CHECK(x.tokens != z.tokens);
  CHECK(locate_window(*a, x, 0) == a->split_range("test").begin + 5);
  CHECK(locate_window(*c, z, 0) == c->split_range("test").begin + 6);
  Rng r1(2), r2(2);
  a->sample("train", 16, r1, x);
  b->sample("train", 16, r2, y);
  CHECK(x.tokens == y.tokens);
}

TEST_CASE("text vocabulary: sorted training bytes, <unk>, printable names, round trip") {
  auto task = make_text({{"path", kTiny}, {"context", "32"}});
  const tapir::Vocab& vocab = task->vocab();
  CHECK(vocab.names.back() == "<unk>");
  CHECK(task->pad_token() == vocab.size() - 1);
  CHECK(task->id_of('\n') == vocab.id("\\n"));
  CHECK(task->id_of(' ') == vocab.id("\u2423"));
  CHECK(task->id_of('\t') == vocab.id("\\t"));
  CHECK(task->id_of('a') == vocab.id("a"));
  CHECK(task->id_of('#') == vocab.size() - 1);  // not in the fixture
  CHECK(tapir::byte_name(0x07) == "\\x07");
  CHECK(tapir::byte_name(0xe2) == "\\xe2");
  // vocab_string lists the bytes in increasing order, one id per byte.
  const std::string hex = task->vocab_string();
  REQUIRE(hex.size() == size_t(2 * (vocab.size() - 1)));
  for (size_t i = 0; i < hex.size(); i += 2) {
    const auto byte = static_cast<unsigned char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    CHECK(task->id_of(byte) == int32_t(i / 2));
    CHECK(vocab.names[i / 2] == tapir::byte_name(byte));
    if (i) CHECK(byte > std::stoi(hex.substr(i - 2, 2), nullptr, 16));
  }

  // A byte only in the test part is <unk>; a stored vocabulary is reused as is.
  TempDir dir;
  const std::string path = dir.write("t.txt", std::string(900, 'a') + std::string(100, 'Z'));
  auto unseen = make_text({{"path", path}, {"context", "8"}});
  CHECK(unseen->vocab().size() == 2);
  CHECK(unseen->id_of('Z') == 1);
  Batch batch;
  unseen->eval_batch("test", 0, 1, batch);
  CHECK(batch.tokens[0] == 1);
  auto reused = make_text({{"path", path}, {"context", "8"}, {"vocab", hex}});
  CHECK(reused->vocab().names == vocab.names);
  CHECK(reused->id_of('a') == task->id_of('a'));
  CHECK(reused->id_of('Z') == task->id_of('Z'));
  CHECK(error_of([&] {
          make_text({{"path", path}, {"context", "8"}, {"vocab", "6g"}});
        }).find("vocab") != std::string::npos);
  CHECK(error_of([&] {
          make_text({{"path", path}, {"context", "8"}, {"vocab", "6160"}});
        }).find("vocab") != std::string::npos);
}

TEST_CASE("text reads file lists in order and directories sorted, skipping hidden and binary") {
  TempDir dir;
  const std::string one = dir.write("one.txt", "first file\n"), two = dir.write("two.txt", "2nd\n");
  auto listed = make_text({{"path", two + "," + one}, {"context", "1"}, {"test-frac", "0.2"}});
  CHECK(listed->corpus() == "2nd\nfirst file\n");
  TempDir tree;
  tree.write("b.txt", "bbbb bbbb bbbb\n");
  tree.write("a/z.cpp", "int main() { return 0; }\n");
  tree.write("a/y.h", "#pragma once\n");
  tree.write(".git/config", "hidden\n");
  tree.write("a/.cache", "hidden\n");
  tree.write("blob.bin", std::string("\x7f"
                                     "ELF\0\0",
                                     6));
  tree.write("empty.txt", "");
  auto code = make_text({{"path", tree.path()}, {"context", "4"}});
  const std::string expected = "#pragma once\nint main() { return 0; }\nbbbb bbbb bbbb\n";
  CHECK(code->corpus() == expected);
  CHECK(code->describe().find(std::to_string(expected.size()) + " bytes") != std::string::npos);
}

TEST_CASE("text refuses bad corpora and options naming them") {
  TempDir dir;
  const std::string empty = dir.write("empty.txt", ""), missing = dir.file("nope.txt");
  std::string e = error_of([&] { make_text({{"path", missing}}); });
  CHECK(e.find("path") != std::string::npos);
  CHECK(e.find(missing) != std::string::npos);
  e = error_of([&] { make_text({{"path", empty}}); });
  CHECK(e.find("path") != std::string::npos);
  CHECK(e.find(empty) != std::string::npos);
  CHECK(e.find("empty") != std::string::npos);
  CHECK(error_of([&] { make_text({}); }).find("path") != std::string::npos);
  dir.folder("void");
  CHECK(error_of([&] {
          make_text({{"path", dir.file("void")}});
        }).find("void") != std::string::npos);
  // tiny.txt has 3055 bytes; its test split 306.
  e = error_of([&] { make_text({{"path", kTiny}, {"context", "400"}}); });
  CHECK(e.find("context = 400") != std::string::npos);
  CHECK(e.find("306 bytes") != std::string::npos);
  CHECK(e.find(kTiny) != std::string::npos);
  CHECK(error_of([&] {
          make_text({{"path", kTiny}, {"contxt", "4"}});
        }).find("contxt") != std::string::npos);
  // Through the registry, as the command line builds it.
  CHECK(tapir::make_task("text", TaskOptions({{"path", kTiny}}))->name() == "text");
  auto no_arch = make_text({{"path", kTiny}, {"arch-frac", "0"}});
  Rng rng(1);
  Batch batch;
  CHECK(error_of([&] { no_arch->sample("arch", 1, rng, batch); }).find("arch") !=
        std::string::npos);
}

TEST_CASE("text score counts characters: accuracy is next-character accuracy") {
  auto task = make_text({{"path", kTiny}, {"context", "16"}});
  Batch batch;
  task->eval_batch("test", 0, 4, batch);
  const int64_t V = task->vocab().size();
  std::vector<float> logits(static_cast<size_t>(batch.B * batch.T * V), 0.0f);
  std::vector<float> losses(static_cast<size_t>(batch.B * batch.T));
  for (int64_t i = 0; i < batch.B * batch.T; ++i) {
    logits[i * V + (i % 4 == 0 ? (batch.targets[i] + 1) % V : batch.targets[i])] = 1.0f;
    losses[i] = i % 2 ? 1.0f : 2.0f;
  }
  tapir::EvalTally tally;
  task->score(batch, logits.data(), losses.data(), tally);
  CHECK(tally.all.examples == 64);
  CHECK(tally.all.tokens == 64);
  CHECK(tally.all.correct == 48);
  CHECK(tally.all.accuracy() == doctest::Approx(0.75));
  CHECK(tally.all.token_accuracy() == doctest::Approx(0.75));
  CHECK(tally.all.loss() == doctest::Approx(1.5));
  CHECK(tapir::bits_per_char(tally.all) == doctest::Approx(1.5 / std::log(2.0)));
}

TEST_CASE("the built-in sample builds a text task with every split non-empty") {
  const std::string_view sample = tapir::text_sample();
  CHECK(sample.size() >= 4000);
  CHECK(sample.find('\0') == std::string_view::npos);
  const TaskOptions options;
  TextTask task(options, std::string(sample), "built-in sample");
  options.check_all_used("text");
  CHECK(task.corpus() == sample);
  CHECK(task.describe().find("built-in sample") != std::string::npos);
  CHECK(task.max_length() == 128);  // the default context fits every split
  CHECK(task.vocab().size() > 30);
  Rng rng(3);
  Batch batch;
  for (const std::string split : {"train", "arch", "test"}) {
    CAPTURE(split);
    CHECK(task.split_range(split).size() >= task.max_length() + 1);
    CHECK(task.eval_size(split) >= 1);
    task.eval_batch(split, 0, task.eval_size(split), batch);
    CHECK(batch.B == task.eval_size(split));
    task.sample(split, 4, rng, batch);
    CHECK(batch.B == 4);
    for (int64_t i = 0; i < batch.B * batch.T; ++i) CHECK(batch.mask[i] == 1.0f);
  }
  // Every byte of the test part is in the vocabulary (no <unk> in what is shown).
  task.eval_batch("test", 0, task.eval_size("test"), batch);
  for (int32_t id : batch.targets) CHECK(id != task.pad_token());
  // The sample stands in for a corpus only when none is named; training
  // still needs option path, and the two cannot be mixed.
  CHECK(error_of([] { make_text({}); }).find("option path is required") != std::string::npos);
  CHECK(error_of([&] {
          TextTask mixed(TaskOptions({{"path", kTiny}}), std::string(sample), "built-in sample");
        }).find("path") != std::string::npos);
}
