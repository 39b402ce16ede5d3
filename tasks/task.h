// The Task interface every generator implements (tasks/*.cpp), and the batch
// and metric types the training loop exchanges with it.
//
// Every task is a causal sequence task: tokens (B, T) go into the model,
// targets (B, T) are what each position must predict, and mask (B, T) says
// which positions count for the loss and the metric (1) and which do not (0;
// prompts and padding). Sequences shorter than T are right-padded with the
// pad token and mask 0, which a causal model never attends to from earlier
// positions.
//
// A regression task (frame_dim() = n > 0, e.g. denoise) reads and predicts n
// real values per position instead: Batch::inputs (B, T, n) go into the
// model, Batch::values (B, T, n) are what it must output, the mask is as
// above, and the loss is the mean squared error.
//
// Splits are deterministic functions of the task options and the data seed:
// "train" (what weights learn from), "arch" (held out from the training
// distribution for Stage I), and the evaluation splits ("test" first, plus any
// generalisation sets such as longer lengths).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/rng.h"

namespace tapir {

struct Vocab {
  std::vector<std::string> names;  // printable name of each token id

  int64_t size() const { return static_cast<int64_t>(names.size()); }
  int32_t id(std::string_view name) const;  // throws if absent
  std::string decode(const int32_t* ids, int64_t n, std::string_view sep = " ") const;
};

struct Batch {
  int64_t B = 0, T = 0;
  std::vector<int32_t> tokens;   // (B, T)
  std::vector<int32_t> targets;  // (B, T)
  std::vector<float> mask;       // (B, T)
  std::vector<int32_t> group;    // (B): breakdown key (length, depth, ...) or -1
  // Regression tasks only (n > 0): real-valued frames.
  int64_t n = 0;              // values per position; 0 for token tasks
  std::vector<float> inputs;  // (B, T, n) what the model reads
  std::vector<float> values;  // (B, T, n) what it must output

  // Sizes every array for (B, T) and fills tokens/targets with `pad`, mask
  // with 0 and group with -1; no frames (n = 0). Keeps capacity: no
  // allocation once warm.
  void reset(int64_t batch, int64_t length, int32_t pad);
  // reset(batch, length, 0), then sizes inputs and values for (B, T, n), zeroed.
  void reset_frames(int64_t batch, int64_t length, int64_t frame_dim);
  // The labels of random examples (Zhang et al. 2017's control): each row's
  // targets, mask and values replaced by those of another row, the rows
  // drawn as a random permutation from `rng`. The inputs stay; what a model
  // can learn from the result is the labels' marginals alone.
  void shuffle_labels(Rng& rng);
  int64_t at(int64_t b, int64_t t) const { return b * T + t; }
};

// Counts gathered over an evaluation, overall and per group key.
//
// Two kinds of position are counted. Every masked position adds its loss to
// loss_sum and one to loss_tokens, so loss() is the mean next-token loss (in
// nats) over all masked positions. A task's metric may score only some of
// them (dyck in lm mode scores the positions with an open bracket): tokens
// counts the scored positions and tokens_correct those it passed, so
// token_accuracy() is the metric per scored position. The default score()
// scores every masked position, so there tokens == loss_tokens. An example
// is correct when every scored position of it is.
struct Tally {
  int64_t examples = 0, correct = 0;
  int64_t tokens = 0, tokens_correct = 0;  // scored positions
  int64_t loss_tokens = 0;                 // masked positions
  double loss_sum = 0;                     // sum of their losses (nats)
  // Bytes of text the masked positions' targets stand for (the text task;
  // 0 for every other task).
  int64_t bytes = 0;
  double accuracy() const { return examples ? double(correct) / double(examples) : 0.0; }
  double token_accuracy() const { return tokens ? double(tokens_correct) / double(tokens) : 0.0; }
  double loss() const { return loss_tokens ? loss_sum / double(loss_tokens) : 0.0; }
  // Bits per byte of text: the loss summed over the masked positions, in bits,
  // over the bytes they stand for; 0 without bytes.
  double bits_per_byte() const;
  void add(const Tally& o) {
    examples += o.examples;
    correct += o.correct;
    tokens += o.tokens;
    tokens_correct += o.tokens_correct;
    loss_tokens += o.loss_tokens;
    loss_sum += o.loss_sum;
    bytes += o.bytes;
  }
};
// What a task adds to an EvalTally at a time (an example; text adds a
// batch of windows at once), with its group key (-1: none).
struct ScoredUnit {
  Tally tally;
  int32_t group = -1;
};
struct EvalTally {
  Tally all;
  std::map<int32_t, Tally> by_group;  // only examples with a group key >= 0
  // Adds a unit to `all` and, when group >= 0, to its group's tally: the one
  // way a task's score() adds to a tally.
  void add(const Tally& one, int32_t group = -1);
  // With keep_units, add() also appends every unit to `units`, in order. An
  // evaluation shared among MPI ranks (optim/evaluator.h) sends them, and
  // every rank adds them again in the order of one process, so the double
  // loss sums keep the bits of one process.
  bool keep_units = false;
  std::vector<ScoredUnit> units;
};

class Task {
 public:
  virtual ~Task() = default;

  virtual std::string name() const = 0;
  virtual std::string describe() const = 0;  // one line: the task and its options
  virtual const Vocab& vocab() const = 0;
  virtual int32_t pad_token() const = 0;
  // Longest sequence any split produces: the model's context must hold it.
  virtual int64_t max_length() const = 0;
  // Evaluation splits, "test" first.
  virtual std::vector<std::string> eval_splits() const = 0;
  // Name of the breakdown key ("length", "depth", "L"), empty if none.
  virtual std::string group_name() const { return ""; }
  // Values per position of a regression task (Batch::inputs, Batch::values);
  // 0 for a token task.
  virtual int64_t frame_dim() const { return 0; }
  bool is_regression() const { return frame_dim() > 0; }

  // A random batch from a split ("train" or "arch" for training).
  virtual void sample(const std::string& split, int64_t batch_size, Rng& rng, Batch& out) const = 0;
  // The fixed evaluation set of a split: examples [begin, begin + count) of
  // eval_size(split). Same options and seed, same examples.
  virtual int64_t eval_size(const std::string& split) const = 0;
  virtual void eval_batch(const std::string& split, int64_t begin, int64_t count,
                          Batch& out) const = 0;

  // Adds one batch to the tally through EvalTally::add, given the model's
  // logits (B, T, V) (for a regression task its outputs (B, T, n)) and the
  // per-position losses (B, T). The default counts an example correct when
  // the argmax is the target at every masked position.
  virtual void score(const Batch& batch, const float* logits, const float* losses,
                     EvalTally& tally) const;
};

// Task options as given on the command line or in a config file
// (name -> value text). Each task reads the ones it knows, with defaults,
// and rejects out-of-range values naming the option and the allowed range.
class TaskOptions {
 public:
  TaskOptions() = default;
  explicit TaskOptions(std::map<std::string, std::string> values) : values_(std::move(values)) {}
  void set(const std::string& name, const std::string& value) { values_[name] = value; }
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  // Whether a task built from these options asked for `name` (it takes that option).
  bool asked(const std::string& name) const { return used_.count(name) > 0; }
  int64_t get_int(const std::string& name, int64_t fallback, int64_t lo, int64_t hi) const;
  double get_double(const std::string& name, double fallback, double lo, double hi) const;
  // A comma-separated list of numbers, each in [lo, hi].
  std::vector<double> get_double_list(const std::string& name, const std::string& fallback,
                                      double lo, double hi) const;
  std::string get_string(const std::string& name, const std::string& fallback) const;
  bool get_bool(const std::string& name, bool fallback) const;
  const std::map<std::string, std::string>& values() const { return values_; }
  // Fails naming the first option that no getter asked for (a typo, or an
  // option of another task).
  void check_all_used(const std::string& task) const;

 private:
  std::map<std::string, std::string> values_;
  mutable std::set<std::string> used_;
};

// "0.5,1,2" -> {0.5, 1, 2}; fails naming `what` on an empty list or a bad number.
std::vector<double> parse_double_list(std::string_view text, const std::string& what);

// A training setting a task recommends, as the command-line flag and its
// value ("--lr", "3e-3"): what the task needs to learn within a short run
// where train's defaults do not get there. Commands that train apply it
// unless the flag was given (optim/recommend.h).
struct TaskSetting {
  std::string flag;
  std::string value;
};

struct TaskSpec {
  std::string name;
  std::string summary;  // one line for `tapir tasks list`
  std::unique_ptr<Task> (*make)(const TaskOptions&);
  std::vector<TaskSetting> recommended;
};
// Every task, sorted by name. Tasks register themselves with
// TAPIR_REGISTER_TASK in their own file.
std::vector<TaskSpec> task_registry();
// The registered task called `name`; fails naming the known ones.
const TaskSpec& task_spec(const std::string& name);
// Builds a task; fails on an unknown name or an option the task does not know.
std::unique_ptr<Task> make_task(const std::string& name, const TaskOptions& options);

// TaskSpec::make for a task class T: builds T from the options.
template <typename T>
std::unique_ptr<Task> make_task_of(const TaskOptions& options) {
  return std::make_unique<T>(options);
}

struct TaskRegistrar {
  explicit TaskRegistrar(TaskSpec spec);
};
// The arguments after make_fn, if any, are the task's recommended settings,
// each {"--flag", "value"}.
#define TAPIR_REGISTER_TASK(var, name, summary, make_fn, ...) \
  static const ::tapir::TaskRegistrar var(::tapir::TaskSpec{name, summary, make_fn, {__VA_ARGS__}})

}  // namespace tapir
