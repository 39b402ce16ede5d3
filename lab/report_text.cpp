// Plain-text reporting (lab/report_text.h).
#include "lab/report_text.h"

#include <cstdio>

namespace tapir {

std::string format_eval(const std::vector<EvalResult>& results) {
  std::string out;
  char buf[160];
  for (const EvalResult& r : results) {
    std::snprintf(buf, sizeof buf, "%s%s acc %.4f loss %.4f", out.empty() ? "" : " | ",
                  r.split.c_str(), r.tally.all.accuracy(), r.tally.all.loss());
    out += buf;
    if (r.tally.all.bytes > 0) {
      std::snprintf(buf, sizeof buf, " bpb %.4f", r.tally.all.bits_per_byte());
      out += buf;
    }
  }
  return out;
}

std::string format_groups(const EvalResult& result, const std::string& group_name) {
  if (result.tally.by_group.empty()) return "";
  char buf[160];
  std::snprintf(buf, sizeof buf, "  %-10s %9s %9s %9s\n", group_name.c_str(), "examples",
                "accuracy", "token acc");
  std::string out = buf;
  for (const auto& [key, t] : result.tally.by_group) {
    std::snprintf(buf, sizeof buf, "  %-10d %9lld %9.4f %9.4f\n", key,
                  static_cast<long long>(t.examples), t.accuracy(), t.token_accuracy());
    out += buf;
  }
  return out;
}

std::string format_duration(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s / 60) % 60);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

namespace {

// The positions of row b that belong to the example: up to its last masked
// or non-pad token (text rows are never padded and may hold <unk> = pad).
int64_t example_length(const Task& task, const Batch& batch, int64_t b) {
  int64_t n = 0;
  for (int64_t t = 0; t < batch.T; ++t) {
    const int64_t i = batch.at(b, t);
    if (batch.mask[i] != 0.0f || batch.tokens[i] != task.pad_token()) n = t + 1;
  }
  return n;
}

}  // namespace

std::string format_example(const Task& task, const Batch& batch, int64_t b) {
  const Vocab& vocab = task.vocab();
  const int32_t* tokens = batch.tokens.data() + batch.at(b, 0);
  const int32_t* targets = batch.targets.data() + batch.at(b, 0);
  const float* mask = batch.mask.data() + batch.at(b, 0);
  const int64_t n = example_length(task, batch, b);
  std::vector<int64_t> masked;
  for (int64_t t = 0; t < n; ++t)
    if (mask[t] != 0.0f) masked.push_back(t);

  bool continuation = !masked.empty() && masked.back() == n - 1;
  for (size_t k = 0; continuation && k + 1 < masked.size(); ++k)
    continuation = masked[k + 1] == masked[k] + 1 && targets[masked[k]] == tokens[masked[k] + 1];

  std::string line;
  const std::string group = task.group_name();
  if (!group.empty() && batch.group[b] >= 0) {
    line += '[';
    line += group;
    line += ' ';
    line += std::to_string(batch.group[b]);
    line += "] ";
  }
  if (continuation) {
    const int64_t first = masked.front();
    line += "input: ";
    line += vocab.decode(tokens, first + 1);
    line += "   target: ";
    line += vocab.decode(targets + first, n - first);
    return line;
  }
  line += "input: ";
  line += vocab.decode(tokens, n);
  line += "   targets:";
  for (int64_t t : masked) {
    line += " @";
    line += std::to_string(t);
    line += ' ';
    line += vocab.decode(targets + t, 1);
  }
  return line;
}

}  // namespace tapir
