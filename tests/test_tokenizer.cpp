// Tests for subword tokenizers (tasks/tokenizer.h) and the text task on
// their pieces: a trained model gives back every byte of any text, the same
// text trains the same model, bad settings are refused in one line; the
// text task's windows are the split's tokens, bits per byte divides by the
// bytes the targets stand for; a run keeps its tokenizer and resumes with
// it whatever became of the file it was given; a small subword model learns
// more than the unigram statistics of its pieces.
#include "tasks/tokenizer.h"

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/file_io.h"
#include "base/json.h"
#include "engine/threads.h"
#include "lab/search_job.h"
#include "optim/search.h"
#include "optim/trainer.h"
#include "tasks/text.h"
#include "tests/seed_trials.h"
#include "tests/task_checks.h"
#include "tests/test_support.h"

namespace {

using tapir::Tokenizer;
using tapir::TokenizerSpec;
using test_support::error_of;
using test_support::TempDir;

// About 40 KB of lines of 4 to 9 words drawn from 24, by a fixed LCG: words
// recur often enough for a few hundred pieces to cover them.
std::string word_corpus() {
  const char* words[] = {"the",   "cat",   "sat",    "on",   "a",     "mat",   "and",   "dog",
                         "ran",   "after", "bright", "red",  "ball",  "under", "green", "tree",
                         "while", "birds", "sang",   "soft", "songs", "every", "day",   "here"};
  std::string text;
  uint32_t x = 2024;
  auto next = [&x](uint32_t n) {
    x = x * 1664525u + 1013904223u;
    return (x >> 16) % n;
  };
  while (text.size() < 40000) {
    const uint32_t n = 4 + next(6);
    for (uint32_t i = 0; i < n; ++i) text += std::string(i ? " " : "") + words[next(24)];
    text += next(4) == 0 ? ".\n\n" : ".\n";
  }
  return text;
}

std::string trained_model(const std::string& text, const std::string& type, int64_t vocab) {
  TokenizerSpec spec;
  spec.type = type;
  spec.vocab_size = vocab;
  return tapir::train_tokenizer(text, spec);
}

int64_t bytes_of(const Tokenizer& t, const std::vector<int32_t>& ids) {
  int64_t bytes = 0;
  for (int32_t id : ids) bytes += t.byte_length(id);
  return bytes;
}

}  // namespace

TEST_CASE("a trained tokenizer gives back every byte, and each piece's byte length adds up") {
  const std::string corpus = word_corpus();
  for (const char* type : {"bpe", "unigram"}) {
    CAPTURE(type);
    const Tokenizer t = Tokenizer::from_bytes(trained_model(corpus, type, 320), "model");
    CHECK(t.size() == 320);
    // Text the model never saw: tabs, carriage returns, UTF-8, a NUL byte,
    // bytes that are not UTF-8, spaces at both ends.
    const std::string odd = std::string(" the cat\tsat\r\n\xc3\xa9t\xc3\xa9 \xff\xfe") +
                            std::string(1, '\0') + "zebra  \n";
    for (const std::string& text : {corpus.substr(0, 5000), odd}) {
      const std::vector<int32_t> ids = t.encode(text);
      CHECK(t.decode(ids) == text);
      CHECK(bytes_of(t, ids) == static_cast<int64_t>(text.size()));
    }
    // Common words become single pieces: fewer tokens than bytes.
    const std::vector<int32_t> ids = t.encode(corpus.substr(0, 5000));
    CHECK(double(ids.size()) < 5000.0 / 2.0);
    CHECK(t.name(t.encode(" the").front()).starts_with("\u2423t"));
  }
}

TEST_CASE("the same text trains the same tokenizer") {
  const std::string corpus = word_corpus();
  CHECK(trained_model(corpus, "bpe", 300) == trained_model(corpus, "bpe", 300));
  CHECK(trained_model(corpus, "unigram", 300) == trained_model(corpus, "unigram", 300));
  CHECK(trained_model(corpus, "bpe", 300) != trained_model(corpus, "bpe", 310));
}

TEST_CASE("tokenizer settings and files are refused in one line naming what is wrong") {
  const std::string corpus = word_corpus();
  CHECK(error_of([&] { trained_model(corpus, "wordpiece", 300); }).find("bpe, unigram") !=
        std::string::npos);
  CHECK(error_of([&] { trained_model(corpus, "bpe", 257); }).find("more than 257") !=
        std::string::npos);
  CHECK(error_of([&] { trained_model("\n\n", "bpe", 300); }).find("no non-empty line") !=
        std::string::npos);
  // A vocabulary the text cannot fill: SentencePiece's reason, in one line.
  const std::string too_large = error_of([&] { trained_model("ab ab ab\n", "unigram", 5000); });
  CHECK(too_large.find("tokenizer training failed") != std::string::npos);
  CHECK(too_large.find('\n') == std::string::npos);
  CHECK(too_large.find("--vocab-size 5000 is more pieces than this text can fill") !=
        std::string::npos);
  // Fewer pieces than the bytes and characters need: tapir's flags, not
  // SentencePiece's options.
  const std::string too_small = error_of([&] { trained_model(corpus, "bpe", 258); });
  CHECK(too_small.find("--vocab-size 258 is below the") != std::string::npos);
  CHECK(too_small.find("character_coverage") == std::string::npos);
  CHECK(error_of([&] {
          Tokenizer::load(std::filesystem::temp_directory_path().string());
        }).find("is a folder, not a file") != std::string::npos);
  CHECK(error_of([] { Tokenizer::load("/dev/zero"); }).find("is not a regular file") !=
        std::string::npos);
  TempDir dir;
  CHECK(error_of([&] { Tokenizer::load(dir.file("absent.model")); }).find("does not exist") !=
        std::string::npos);
  const std::string junk = dir.write("junk.model", "not a model at all");
  CHECK(error_of([&] { Tokenizer::load(junk); }).find("is not a SentencePiece model") !=
        std::string::npos);
}

namespace {

struct SubwordCorpus {
  TempDir dir;
  std::string corpus, text_path, model_path;
  SubwordCorpus() : corpus(word_corpus()) {
    text_path = dir.write("corpus.txt", corpus);
    // Trained on what precedes the test split, as `tapir tokenizer train` does.
    model_path = dir.write(
        "sub.model", trained_model(corpus.substr(0, static_cast<size_t>(tapir::text_test_begin(
                                                        static_cast<int64_t>(corpus.size()), 0.1))),
                                   "bpe", 320));
  }
  tapir::TaskOptions options(const std::string& context = "16") const {
    return tapir::TaskOptions(
        {{"path", text_path}, {"tokenizer", model_path}, {"context", context}});
  }
};

}  // namespace

TEST_CASE("text on subwords: each split is its own bytes' tokens, and windows stay inside") {
  const SubwordCorpus c;
  const tapir::TextTask task(c.options());
  const Tokenizer& t = *task.tokenizer();
  CHECK(task.vocab().size() == t.size());
  CHECK(task.pad_token() == t.unk_id());
  int64_t next_token = 0;
  for (const char* split : {"train", "arch", "test"}) {
    CAPTURE(split);
    const tapir::TextTask::Range bytes = task.split_range(split), tokens = task.token_range(split);
    CHECK(tokens.begin == next_token);
    next_token = tokens.end;
    const std::vector<int32_t> ids(task.tokens().begin() + tokens.begin,
                                   task.tokens().begin() + tokens.end);
    CHECK(t.decode(ids) ==
          c.corpus.substr(static_cast<size_t>(bytes.begin), static_cast<size_t>(bytes.size())));
    // A drawn window is tokens[s, s + T] of this split, targets shifted by one.
    tapir::Batch batch;
    tapir::Rng rng(7, 1);
    task.sample(split, 8, rng, batch);
    for (int64_t b = 0; b < batch.B; ++b) {
      std::vector<int32_t> window(batch.tokens.begin() + b * batch.T,
                                  batch.tokens.begin() + (b + 1) * batch.T);
      for (int64_t i = 0; i + 1 < batch.T; ++i)
        CHECK(batch.targets[batch.at(b, i)] == window[static_cast<size_t>(i + 1)]);
      window.push_back(batch.targets[batch.at(b, batch.T - 1)]);
      CHECK(std::search(ids.begin(), ids.end(), window.begin(), window.end()) != ids.end());
    }
  }
  CHECK(next_token == static_cast<int64_t>(task.tokens().size()));
  CHECK(task.describe().find("320 pieces") != std::string::npos);
}

TEST_CASE("text on subwords: bits per byte divides the loss by the bytes the targets stand for") {
  const SubwordCorpus c;
  const tapir::TextTask task(c.options());
  tapir::Batch batch;
  task.eval_batch("test", 0, 4, batch);
  const std::vector<float> logits(batch.tokens.size() * static_cast<size_t>(task.vocab().size()));
  const std::vector<float> losses(batch.tokens.size(), 1.5f);
  tapir::EvalTally tally;
  task.score(batch, logits.data(), losses.data(), tally);
  // The evaluation windows follow one another: their targets are one
  // stretch of the test text.
  const std::string text = task.tokenizer()->decode(batch.targets);
  const tapir::TextTask::Range test = task.split_range("test");
  CHECK(c.corpus.substr(static_cast<size_t>(test.begin)).find(text) != std::string::npos);
  CHECK(tally.all.bytes == static_cast<int64_t>(text.size()));
  CHECK(tally.all.bytes > tally.all.loss_tokens);  // pieces of several bytes
  CHECK(tally.all.bits_per_byte() == doctest::Approx(1.5 * double(tally.all.loss_tokens) /
                                                     std::numbers::ln2 / double(tally.all.bytes)));
  // On bytes, a target is one byte: bits per byte is bits per character.
  const tapir::TextTask bytes_task(tapir::TaskOptions({{"path", c.text_path}, {"context", "16"}}));
  bytes_task.eval_batch("test", 0, 4, batch);
  tapir::EvalTally byte_tally;
  bytes_task.score(batch, logits.data(), losses.data(), byte_tally);
  CHECK(byte_tally.all.bytes == byte_tally.all.loss_tokens);
  CHECK(byte_tally.all.bits_per_byte() == doctest::Approx(tapir::bits_per_char(byte_tally.all)));
}

TEST_CASE("text on subwords: options that cannot hold are refused by name") {
  const SubwordCorpus c;
  tapir::TaskOptions both = c.options();
  both.set("vocab", "616263");
  CHECK(error_of([&] { tapir::TextTask{both}; }).find("vocab and tokenizer") != std::string::npos);
  tapir::TaskOptions absent = c.options();
  absent.set("tokenizer", c.dir.file("absent.model"));
  CHECK(error_of([&] { tapir::TextTask{absent}; }).find("text: option tokenizer: tokenizer file") !=
        std::string::npos);
  // The test split holds about 1800 tokens: a window of 4000 does not fit,
  // and the message counts tokens.
  const std::string long_context = error_of([&] { tapir::TextTask{c.options("4000")}; });
  CHECK(long_context.find("tokens (") != std::string::npos);
  CHECK(long_context.find("context = 4000") != std::string::npos);
}

namespace {

tapir::TrainConfig subword_config(const SubwordCorpus& c, int64_t steps) {
  tapir::TrainConfig config;
  config.task = "text";
  config.task_options = c.options();
  config.model.width = 64;
  config.model.heads = 4;
  config.model.layers = 2;
  config.steps = steps;
  config.batch = 16;
  config.eval_every = 20;
  config.eval_limit = 64;
  config.schedule.base_lr = 3e-3;
  config.schedule.warmup = 10;
  config.optimizer.weight_decay = 0.0;
  config.threads = 1;
  return config;
}

// metrics.jsonl without the fields that measure time.
std::vector<std::string> metric_values(const std::string& dir) {
  std::istringstream in(tapir::read_file(dir + "/metrics.jsonl"));
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    const tapir::Json j = tapir::parse_json(line);
    out.push_back(std::to_string(j.at("step").as_int()) + " " + tapir::to_json(j.at("loss")) + " " +
                  tapir::to_json(j.at("bits_per_byte")));
  }
  return out;
}

}  // namespace

TEST_CASE("a subword run keeps its tokenizer and resumes with it, whatever became of the file") {
  const SubwordCorpus c;
  const tapir::TrainConfig config = subword_config(c, 60);
  const std::string whole = c.dir.folder("whole"), split = c.dir.folder("split");
  tapir::set_num_threads(1);
  {
    tapir::Trainer t(config, whole);
    t.start_fresh(true);
    t.run();
  }
  {
    tapir::Trainer t(config, split);
    t.start_fresh(true);
    tapir::TrainEvents events;
    events.on_step = [](const tapir::StepStats& s, double) {
      if (s.step == 50) throw tapir::Error("simulated kill");
    };
    CHECK_THROWS_AS(t.run(events), tapir::Error);
  }
  const std::string copy = split + "/" + tapir::RunFolder::kTokenizer;
  CHECK(tapir::read_file(copy) == tapir::read_file(c.model_path));
  // The file the run was given now holds another tokenizer (other pieces):
  // the resumed run must not read it.
  tapir::write_file_atomic(c.model_path, trained_model(c.corpus.substr(0, 20000), "unigram", 300));
  auto resumed = tapir::Trainer::resume(split);
  CHECK(resumed->step() == 40);
  resumed->run();
  CHECK(metric_values(whole) == metric_values(split));
  CHECK(metric_values(split).size() == 3);
  // config.json still names the file as it was given.
  const tapir::TrainConfig stored = tapir::RunFolder(split).read_config(/*check_task=*/false);
  CHECK(stored.task_options.values().at("tokenizer") == c.model_path);
  // Gone altogether: the run opens from its copy.
  std::filesystem::remove(c.model_path);
  const tapir::ModelRun opened = tapir::open_run(split);
  CHECK(opened.task->vocab().size() == 320);
}

namespace {

// config.json of every model and search.json, and the learned functions, by
// path below a search folder.
std::map<std::string, std::string> search_files(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name == "config.json" || name == "search.json" || name == "arch.safetensors")
      out[std::filesystem::relative(e.path(), dir).string()] = tapir::read_file(e.path().string());
  }
  return out;
}

}  // namespace

TEST_CASE("a subword search resumes with its own copy of the tokenizer, as if never stopped") {
  const SubwordCorpus c;
  tapir::SearchConfig s;
  s.base = subword_config(c, 8);  // a model's lifetime: restarts after the resume
  s.base.eval_every = 4;
  s.base.model.mlp_act = tapir::MlpAct::spline;
  s.base.model.mlp_spline.grid = tapir::SplineGrid(11, -4, 4, true);
  s.models = 2;
  s.steps = 16;
  s.stagger = tapir::Stagger::reinit;
  const std::string whole = c.dir.folder("whole"), cut = c.dir.folder("cut");
  tapir::set_num_threads(1);
  tapir::Search(s, whole).run();
  {
    tapir::Search search(s, cut);
    tapir::Search::Events events;
    events.on_eval = [](int64_t step, double) {
      if (step == 8) throw tapir::Error("simulated kill");
    };
    CHECK_THROWS_AS(search.run(events), tapir::Error);
  }
  tapir::write_file_atomic(c.model_path, trained_model(c.corpus.substr(0, 20000), "unigram", 300));
  const std::unique_ptr<tapir::Search> resumed = tapir::Search::resume(cut);
  CHECK(resumed->steps_done() == 8);
  resumed->run();
  const auto a = search_files(whole), b = search_files(cut);
  CHECK(a.count("models/model-0-gen-1/config.json") == 1);  // started after the resume
  CHECK(a.count("arch.safetensors") == 1);
  CHECK(a.size() == b.size());
  for (const auto& [name, text] : a) {
    INFO(name);
    CHECK((b.count(name) == 1 && b.at(name) == text));
  }
  CHECK(a.at("search.json").find(c.model_path) != std::string::npos);
}

TEST_CASE("training smoke: text on subwords") {
  // Chance is the unigram entropy of the training text's pieces: the loss of
  // the best model that ignores the context. The corpus's words follow one
  // another at random, so reading the context helps within a word (its
  // pieces) and at line ends; a model must go below chance on the test text.
  const SubwordCorpus c;
  const tapir::TrainConfig config = subword_config(c, 200);
  const double unigram =  // nats per token
      task_checks::unigram_entropy(tapir::TextTask(config.task_options), "train");
  MESSAGE("text on subwords: unigram entropy of the training pieces ", unigram, " nats per token");
  CHECK_SEEDS(2, 3, [&](uint64_t seed, std::ostream& out) {
    tapir::TrainConfig seeded = config;
    seeded.seed = seed;
    tapir::set_num_threads(1);
    tapir::Trainer trainer(seeded, "");
    while (trainer.step() < seeded.steps) trainer.train_step();
    const tapir::Tally test = trainer.evaluator().evaluate_split("test").tally.all;
    out << "loss " << test.loss() << " nats per token, " << test.bits_per_byte()
        << " bits per byte";
    return test.loss() < unigram - 1.0;
  });
}

TEST_CASE(
    "a subword search replaced with --force starts afresh; its own copy is refused as input") {
  const SubwordCorpus c;
  tapir::SearchConfig s;
  s.base = subword_config(c, 8);
  s.base.eval_every = 4;
  s.base.model.mlp_act = tapir::MlpAct::spline;
  s.base.model.mlp_spline.grid = tapir::SplineGrid(11, -4, 4, true);
  s.models = 2;
  s.steps = 8;
  const std::string dir = c.dir.file("search");
  tapir::set_num_threads(1);
  tapir::start_search_job(s, dir, /*force=*/false, "", /*quiet=*/true);
  // Every model folder kept a copy of the tokenizer: --force clears them too.
  CHECK(std::filesystem::exists(dir + "/models/model-0/tokenizer.model"));
  tapir::start_search_job(s, dir, /*force=*/true, "", /*quiet=*/true);
  CHECK(std::filesystem::exists(dir + "/arch.safetensors"));
  // The search's own copy as the tokenizer of a search that replaces it:
  // refused while the folder is whole.
  tapir::SearchConfig own = s;
  own.base.task_options.set("tokenizer", dir + "/tokenizer.model");
  const std::string before = tapir::read_file(dir + "/search.json");
  CHECK(error_of([&] { tapir::start_search_job(own, dir, true, "", true); }).find("lies in") !=
        std::string::npos);
  CHECK(tapir::read_file(dir + "/search.json") == before);
  CHECK(std::filesystem::exists(dir + "/tokenizer.model"));
}
