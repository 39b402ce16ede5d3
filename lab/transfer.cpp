// The transfer matrix (lab/transfer.h).
#include "lab/transfer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>

#include "base/file_io.h"
#include "base/json.h"
#include "engine/dist.h"
#include "lab/progress.h"
#include "optim/recommend.h"
#include "optim/search.h"

namespace tapir {

namespace fs = std::filesystem;

namespace {

// A task's configuration: the shared model and loop settings, the task's own
// default options (options of one task mean nothing to another).
TrainConfig for_task(const TransferOptions& o, const std::string& task) {
  TrainConfig c = o.base;
  c.task = task;
  const auto given = o.task_options.find(task);
  c.task_options = given == o.task_options.end() ? TaskOptions() : given->second;
  c.model.context = 0;
  c.arch_file.clear();
  if (o.given) apply_recommended(c, o.given);
  return c;
}

// Concatenation through a stream: GCC 12 warns (-Wrestrict) on chained
// std::string operator+ with literals.
template <typename... Parts>
std::string cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

std::string search_folder(const TransferOptions& o, const std::string& task) {
  return (fs::path(o.out_dir) / cat("search-", task)).string();
}

// Runs the Stage I search of a task unless its architecture file exists;
// an interrupted one continues from its last evaluation.
SearchConfig search_config(const TransferOptions& o, const std::string& task) {
  SearchConfig s = o.search;
  s.base = for_task(o, task);
  return s;
}

std::string ensure_search(const TransferOptions& o, const std::string& task, Progress& progress) {
  const std::string dir = search_folder(o, task);
  const std::string arch = (fs::path(dir) / "arch.safetensors").string();
  const std::string label = cat("search on ", task);
  const SearchConfig s = search_config(o, task);
  const std::string stored_path = (fs::path(dir) / Search::kConfig).string();
  if (fs::exists(stored_path)) {
    // Reused or continued only when it is the search this command would run
    // now. Threads and device do not change what is learned, nor does which
    // protocol set the flags (the flags themselves count).
    // Read as a search reads it, so fields added since (absent, meaning
    // their defaults) are no difference.
    check_reusable(SearchConfig::from_json(read_json_file(stored_path)).to_json(),
                   s.resolved().to_json(),
                   {"base.threads", "base.device", "base.protocol.name", "base.protocol.flags"},
                   dir, "a search run", "search again");
    if (fs::exists(arch)) {
      progress.skip_run(label, "finished earlier: " + dir);
      return arch;
    }
    if (fs::exists(fs::path(dir) / Search::kResume)) {
      const std::unique_ptr<Search> search = Search::resume(dir, 0, s.base.device, s.base.threads);
      if (!search->resume_note().empty()) progress.line(search->resume_note());
      run_search(*search, progress, cat(label, " (resumed at step ", search->steps_done(), ")"));
      return arch;
    }
  }
  // Stopped before its first evaluation: it starts over, removing only what
  // a search writes, and only from tapir's search folder.
  if (const SearchFolder folder(dir); folder.check_replaceable(/*force=*/true)) folder.clear();
  Search search(s, dir);
  run_search(search, progress, label);
  return arch;
}

double relative_value(const std::string& metric, const VariantResult& cell,
                      const VariantResult& baseline) {
  if (metric == "accuracy")
    return cell.first().final_accuracy.median - baseline.first().final_accuracy.median;
  // steps: the speed-up, baseline steps / cell steps (> 1: faster than baseline).
  const double b = baseline.first().steps.front().median, c = cell.first().steps.front().median;
  if (std::isinf(c)) return std::isinf(b) ? std::nan("") : 0.0;
  if (std::isinf(b)) return INFINITY;
  return b / c;
}

}  // namespace

void check_transfer(const TransferOptions& o) {
  TAPIR_CHECK(!o.tasks.empty(), "--tasks: expected a comma-separated list of tasks, got none");
  TAPIR_CHECK(o.base.model.mlp_act == MlpAct::spline ||
                  o.base.model.attn != AttentionKind::softmax ||
                  o.base.model.attn_fn == AttnFn::spline,
              "transfer needs learned functions: --mlp-act spline, a learned --attn and/or "
              "--attn-fn spline");
  TAPIR_CHECK(o.seeds >= 1, "--seeds must be at least 1, got ", o.seeds);
  std::set<std::string> listed;
  for (const std::string& task : o.tasks)
    TAPIR_CHECK(listed.insert(task).second, "--tasks: ", tapir::quoted(task),
                " is listed twice; list each task once");
  for (const auto& [task, options] : o.task_options)
    TAPIR_CHECK(listed.count(task) > 0, "--task-opt: options are given for ", tapir::quoted(task),
                ", which is not one of --tasks");
  // Each task's search as it would run (its task options, model and loop
  // checked): a bad one fails now, not after the searches before it.
  for (const std::string& task : o.tasks) Search::check(search_config(o, task));
}

TransferResult run_transfer(const TransferOptions& o) {
  check_transfer(o);
  fs::create_directories(o.out_dir);
  TransferResult r;
  r.tasks = o.tasks;
  r.metric = o.metric;
  Progress silent(Progress::Style::quiet);
  Progress& progress = o.progress ? *o.progress : silent;
  const int n = static_cast<int>(o.tasks.size());
  progress.plan(n + n * o.seeds + n * n * o.seeds);  // searches, baselines, cells
  // The searches, one per task; under MPI, task k's on rank k mod N.
  std::vector<std::string> archs;
  for (size_t k = 0; k < o.tasks.size(); ++k) {
    const int owner = dist::owner(static_cast<int64_t>(k));
    if (owner == dist::rank()) {
      archs.push_back(ensure_search(o, o.tasks[k], progress));
    } else {
      archs.push_back((fs::path(search_folder(o, o.tasks[k])) / "arch.safetensors").string());
      progress.skip_run(cat("search on ", o.tasks[k]),
                        cat("on rank ", owner, ": ", search_folder(o, o.tasks[k])));
    }
  }
  dist::barrier();
  // Then every training run: the baselines (GeLU and softmax, everything
  // else the same) and the cells, planned first and shared among the ranks.
  std::vector<Variant> baselines, cells;
  std::vector<std::vector<PlannedRun>> baseline_runs, cell_runs;
  std::vector<PlannedRun> all;
  for (const std::string& task : o.tasks) {
    TrainConfig c = for_task(o, task);
    c.model.mlp_act = MlpAct::gelu;
    c.model.attn = AttentionKind::softmax;
    baselines.push_back(Variant{cat("baseline/", task), {}, {}});
    baseline_runs.push_back(
        plan_variant(c, baselines.back(), o.seeds,
                     (fs::path(o.out_dir) / "cells" / cat("baseline-", task)).string()));
    all.insert(all.end(), baseline_runs.back().begin(), baseline_runs.back().end());
  }
  for (size_t row = 0; row < o.tasks.size(); ++row)
    for (size_t col = 0; col < o.tasks.size(); ++col) {
      TrainConfig c = for_task(o, o.tasks[col]);
      c.arch_file = archs[row];
      cells.push_back(Variant{cat(o.tasks[row], "->", o.tasks[col]), {}, {}});
      cell_runs.push_back(plan_variant(
          c, cells.back(), o.seeds,
          (fs::path(o.out_dir) / "cells" / ("arch-" + o.tasks[row] + "-on-" + o.tasks[col]))
              .string()));
      all.insert(all.end(), cell_runs.back().begin(), cell_runs.back().end());
    }
  train_all(all, progress);
  for (size_t k = 0; k < baselines.size(); ++k)
    r.baselines.push_back(read_variant(baselines[k], baseline_runs[k], {o.threshold}));
  for (size_t row = 0, k = 0; row < o.tasks.size(); ++row) {
    r.cells.emplace_back();
    r.relative.emplace_back();
    for (size_t col = 0; col < o.tasks.size(); ++col, ++k) {
      r.cells.back().push_back(read_variant(cells[k], cell_runs[k], {o.threshold}));
      r.relative.back().push_back(
          relative_value(o.metric, r.cells.back().back(), r.baselines[col]));
    }
  }
  return r;
}

std::string transfer_markdown(const TransferResult& r) {
  std::string out =
      r.metric == "accuracy"
          ? "Final test accuracy minus the baseline's (median over seeds).\n\n"
          : "Speed-up to the threshold: baseline median steps / cell median steps.\n\n";
  out += "| functions from \\ trained on |";
  for (const std::string& t : r.tasks) out += " " + t + " |";
  out += "\n|---|";
  for (size_t i = 0; i < r.tasks.size(); ++i) out += "---|";
  out += "\n";
  for (size_t row = 0; row < r.tasks.size(); ++row) {
    out += "| " + r.tasks[row] + " |";
    for (size_t col = 0; col < r.tasks.size(); ++col)
      out += " " + transfer_cell_text(r.relative[row][col], r.metric) + " |";
    out += "\n";
  }
  out += "| baseline (absolute) |";
  char buf[64];
  for (const VariantResult& b : r.baselines) {
    if (r.metric == "accuracy")
      std::snprintf(buf, sizeof buf, " %.3f |", b.first().final_accuracy.median);
    else if (std::isinf(b.first().steps.front().median))
      std::snprintf(buf, sizeof buf, " never |");
    else
      std::snprintf(buf, sizeof buf, " %s steps |",
                    format_steps(b.first().steps.front().median).c_str());
    out += buf;
  }
  return out + "\n";
}

std::string transfer_json(const TransferResult& r) {
  Json root = Json::object();
  root.set("metric", r.metric);
  Json tasks = Json::array();
  for (const std::string& t : r.tasks) tasks.push_back(t);
  root.set("tasks", tasks);
  Json matrix = Json::array();
  for (const auto& row : r.relative) {
    Json jr = Json::array();
    for (double v : row) jr.push_back(std::isfinite(v) ? Json(v) : Json(nullptr));
    matrix.push_back(jr);
  }
  root.set("relative", matrix);
  Json base = Json::array();
  for (const VariantResult& b : r.baselines) {
    Json j = Json::object();
    const double steps = b.first().steps.front().median;
    j.set("final_accuracy", b.first().final_accuracy.median);
    j.set("steps_to_threshold", std::isfinite(steps) ? Json(steps) : Json(nullptr));
    base.push_back(j);
  }
  root.set("baselines", base);
  return to_json(root, 2) + "\n";
}

std::string transfer_cell_text(double v, const std::string& metric) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, metric == "accuracy" ? "%+.3f" : "%.2fx", v);
  return buf;
}

}  // namespace tapir
