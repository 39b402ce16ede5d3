// The offline HTML report of `tapir report` (report/page.h).
#include "report/page.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "base/file_io.h"
#include "base/folder_lock.h"
#include "base/json.h"
#include "lab/compare.h"
#include "lab/folder_state.h"
#include "nn/architecture.h"
#include "optim/run_folder.h"
#include "optim/search.h"
#include "optim/search_config.h"
#include "optim/train_config.h"
#include "report/arch_plot.h"
#include "report/ratios.h"
#include "report/svg.h"

namespace tapir {

namespace fs = std::filesystem;

namespace {

std::string html_escape(const std::string& s) {
  return svg_escape(s);
}

// The page. `status` (what is still being written; "" when nothing) heads
// it, and `refresh_s` > 0 makes a browser load it again after that many
// seconds.
std::string page(const std::string& title, const std::string& body, const std::string& status,
                 int refresh_s) {
  const std::string refresh =
      refresh_s > 0 ? "<meta http-equiv=\"refresh\" content=\"" + std::to_string(refresh_s) + "\">"
                    : "";
  const std::string status_style = status.empty() ? "" : ".in-progress{color:#a60}";
  const std::string status_line =
      status.empty() ? "" : "<p class=\"in-progress\"><b>" + html_escape(status) + "</b></p>\n";
  return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">" + refresh + "<title>" +
         html_escape(title) +
         "</title>\n<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;"
         "padding:0 1em;color:#222}table{border-collapse:collapse;margin:1em 0}"
         "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}th{background:#f4f4f4}"
         "td:first-child{text-align:left}pre{background:#f7f7f7;padding:1em;overflow:auto}"
         ".warning{color:#a00;border-left:4px solid #a00;padding-left:.5em}" +
         status_style + "</style></head><body>\n<h1>" + html_escape(title) + "</h1>\n" +
         status_line + body + "</body></html>\n";
}

// Markdown as tapir writes it (pipe tables, each after a line of text) as
// HTML: every table gets its header row, every other line a paragraph.
std::string markdown_table_html(const std::string& md) {
  std::istringstream in(md);
  std::string line, out;
  bool in_table = false, header = true;
  while (std::getline(in, line)) {
    if (line.size() < 2 || line[0] != '|') {
      if (in_table) out += "</table>\n";
      in_table = false;
      header = true;
      if (!line.empty()) out += "<p>" + html_escape(line) + "</p>\n";
      continue;
    }
    if (line.find("---") != std::string::npos) continue;
    if (!in_table) out += "<table>\n";
    in_table = true;
    out += "<tr>";
    std::stringstream cells(line.substr(1));
    std::string cell;
    while (std::getline(cells, cell, '|')) {
      const size_t a = cell.find_first_not_of(' '), b = cell.find_last_not_of(' ');
      const std::string text = a == std::string::npos ? "" : cell.substr(a, b - a + 1);
      out += header ? "<th>" + html_escape(text) + "</th>" : "<td>" + html_escape(text) + "</td>";
    }
    out += "</tr>\n";
    header = false;
  }
  return in_table ? out + "</table>\n" : out;
}

struct Metrics {
  std::map<std::string, std::vector<std::pair<double, double>>> accuracy,
      loss;                                 // split -> (step, v)
  std::map<std::string, Json> last_groups;  // split -> groups of its last evaluation
  std::string group_by;
  std::string first_split;  // the split each evaluation logs first
};

// A run that is still being written may have logged nothing yet.
Metrics read_metrics(const std::string& path, bool in_progress = false) {
  Metrics m;
  if (in_progress && !fs::exists(path)) return m;
  read_json_lines(path, [&](const Json& j) {
    const std::string split = j.at("split").as_string();
    if (m.first_split.empty()) m.first_split = split;
    const double step = j.at("step").as_double();
    m.accuracy[split].push_back({step, j.at("accuracy").as_double()});
    m.loss[split].push_back({step, j.at("loss").as_double()});
    if (const Json* g = j.find("groups")) {
      m.last_groups[split] = *g;
      m.group_by = j.at("group_by").as_string();
    }
  });
  return m;
}

SvgPanel curve_panel(const std::string& title, const std::string& y_label,
                     const std::map<std::string, std::vector<std::pair<double, double>>>& data) {
  SvgPanel p;
  p.title = title;
  p.x_label = "step";
  p.y_label = y_label;
  for (const auto& [split, points] : data) {
    SvgSeries s;
    s.label = split;
    for (const auto& [x, y] : points) {
      s.x.push_back(x);
      s.y.push_back(y);
    }
    p.series.push_back(std::move(s));
  }
  return p;
}

std::string run_section(const std::string& dir, bool in_progress) {
  std::string body;
  const Metrics m = read_metrics((fs::path(dir) / "metrics.jsonl").string(), in_progress);
  body += "<h2>Learning curves</h2>\n" +
          svg_figure("", {curve_panel("accuracy", "accuracy", m.accuracy),
                          curve_panel("loss", "loss (nats per token)", m.loss)});
  // Per-group tables (length, depth, ...) of the last evaluation of every
  // split: for copy, the length-generalisation table.
  for (const auto& [split, groups] : m.last_groups) {
    body += "<h2>" + html_escape(split) + " by " + html_escape(m.group_by) +
            " (last evaluation)</h2>\n<table><tr><th>" + html_escape(m.group_by) +
            "</th><th>examples</th><th>accuracy</th><th>token accuracy"
            "</th></tr>\n";
    for (const auto& [key, g] : groups.as_object()) {
      char row[256];
      std::snprintf(row, sizeof row,
                    "<tr><td>%s</td><td>%lld</td><td>%.4f</td><td>%.4f</td></tr>\n",
                    html_escape(key).c_str(), static_cast<long long>(g.at("examples").as_int()),
                    g.at("accuracy").as_double(), g.at("token_accuracy").as_double());
      body += row;
    }
    body += "</table>\n";
  }
  const fs::path arch = fs::path(dir) / "arch.safetensors";
  if (fs::exists(arch))
    body += "<h2>Learned functions</h2>\n" + architecture_svg(load_architecture(arch.string()));
  // Read as a run reads it (every field checked) before it is shown as written.
  const std::string config = (fs::path(dir) / "config.json").string();
  read_json_file(config, TrainConfig::from_json);
  body += "<h2>Configuration</h2>\n<pre>" + html_escape(read_file(config)) + "</pre>\n";
  return body;
}

std::string compare_section(const std::string& dir) {
  std::string body = "<h2>Comparison</h2>\n" +
                     markdown_table_html(read_file((fs::path(dir) / "compare.md").string()));
  // What the report needs of compare.json: the first evaluation split (the
  // one a comparison is decided on) and each variant's name and run folders.
  struct ComparedVariant {
    std::string name;  // its short name where compare.json has one
    std::vector<std::string> run_dirs;
    bool pooled = false;  // the runs of other variants: their functions are drawn with them
  };
  std::string split = "test";
  std::vector<ComparedVariant> variants;
  std::string ratios;
  read_json_file((fs::path(dir) / "compare.json").string(), [&](const Json& j) {
    const Json* splits = j.find("splits");
    if (splits != nullptr && splits->size() > 0) split = splits->as_array().front().as_string();
    for (const Json& v : j.at("variants").as_array()) {
      variants.push_back({shown_variant(v), {}, v.find("pooled") != nullptr});
      for (const Json& run : v.at("runs").as_array())
        variants.back().run_dirs.push_back(run.at("dir").as_string());
    }
    if (const Json* against = j.find("against_baseline")) ratios = ratio_figure(*against);
  });
  body += ratios;
  SvgPanel acc, loss;
  acc.title = split + " accuracy (median, band: min to max over seeds)";
  loss.title = split + " loss (median, band: min to max over seeds)";
  acc.x_label = loss.x_label = "step";
  acc.y_label = "accuracy";
  loss.y_label = "loss";
  size_t index = 0;
  for (const ComparedVariant& v : variants) {
    std::vector<Curve> accs, losses;
    for (const std::string& run_dir : v.run_dirs) {
      const SeedRun r = read_run(run_dir, {});
      accs.push_back(r.first().accuracy);
      losses.push_back(r.first().loss);
    }
    for (auto [panel, curves] : {std::pair{&acc, &accs}, std::pair{&loss, &losses}}) {
      const Band b = band(*curves);
      SvgSeries s;
      s.label = v.name;
      s.color = svg_palette(index);
      for (size_t i = 0; i < b.steps.size(); ++i) {
        s.x.push_back(double(b.steps[i]));
        s.y.push_back(b.median[i]);
      }
      s.band_lo = b.min;
      s.band_hi = b.max;
      panel->series.push_back(std::move(s));
    }
    ++index;
  }
  body += svg_figure("", {acc, loss});
  // The functions each architecture variant trained with (frozen in Stage II),
  // drawn next to GeLU or the identity.
  for (const ComparedVariant& v : variants) {
    if (v.run_dirs.empty() || v.pooled) continue;
    const fs::path config = fs::path(v.run_dirs.front()) / "config.json";
    if (!fs::exists(config)) continue;
    const std::string arch = read_json_file(config.string(), TrainConfig::from_json).arch_file;
    if (arch.empty() || !fs::exists(arch)) continue;
    body += "<h2>Learned functions of " + html_escape(v.name) + "</h2>\n" +
            architecture_svg(load_architecture(arch));
  }
  return body;
}

std::string search_section(const std::string& dir, bool in_progress) {
  std::string body = "<h2>Stage I search</h2>\n";
  std::map<std::string, std::vector<std::pair<double, double>>> acc, loss;
  const std::string log = (fs::path(dir) / "search.jsonl").string();
  if (!in_progress || fs::exists(log))  // a search still being written may have logged nothing
    read_json_lines(log, [&](const Json& j) {
      acc["models' mean test accuracy"].push_back(
          {j.at("step").as_double(), j.at("mean_test_accuracy").as_double()});
      loss["D_arch loss"].push_back({j.at("step").as_double(), j.at("arch_loss").as_double()});
    });
  const fs::path result = fs::path(dir) / "search_result.json";
  if (fs::exists(result)) {
    const SearchOutcome outcome = read_json_file(result.string(), SearchOutcome::from_json);
    body += std::string(outcome.near_chance() ? "<p class=\"warning\"><b>" : "<p><b>") +
            html_escape(outcome.verdict()) + "</b></p>\n";
  }
  body += svg_figure(
      "", {curve_panel("models", "accuracy", acc), curve_panel("shared functions", "loss", loss)});
  // The functions as they evolved: a few snapshots, then the final one.
  std::vector<fs::path> snapshots;
  if (fs::exists(fs::path(dir) / "snapshots"))
    for (const auto& e : fs::directory_iterator(fs::path(dir) / "snapshots"))
      snapshots.push_back(e.path());
  std::sort(snapshots.begin(), snapshots.end());
  if (snapshots.size() > 3)
    snapshots = {snapshots.front(), snapshots[snapshots.size() / 2], snapshots.back()};
  for (const fs::path& s : snapshots)
    body += "<h3>" + html_escape(s.filename().string()) + "</h3>\n" +
            architecture_svg(load_architecture(s.string()));
  body += "<h2>Configuration</h2>\n<pre>" +
          html_escape(read_file((fs::path(dir) / "search.json").string())) + "</pre>\n";
  return body;
}

std::string transfer_section(const std::string& dir) {
  return "<h2>Transfer matrix</h2>\n" +
         markdown_table_html(read_file((fs::path(dir) / "transfer.md").string())) +
         read_file((fs::path(dir) / "transfer.svg").string());
}

// The number as the tables show it.
std::string fixed4(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", v);
  return text;
}

// A comparison or transfer still being written: a row for each run and
// search found so far, where it stands, and the curves of each run's first
// split (of a search, its models' mean test accuracy), one colour per
// folder of runs (a variant, a cell).
std::string live_section(const FolderState& state) {
  std::string rows;
  SvgPanel acc, loss;
  acc.title = "accuracy (first split; a search: models' mean)";
  loss.title = "loss (first split)";
  acc.x_label = loss.x_label = "step";
  acc.y_label = "accuracy";
  loss.y_label = "loss";
  std::map<std::string, size_t> colours;  // folder of runs -> palette index
  for (const RunState& run : state.runs) {
    const std::string group = run.search ? run.label : fs::path(run.label).parent_path().string();
    const auto [colour, first] = colours.emplace(group, colours.size());
    SvgSeries a, l;
    a.label = l.label = first ? group : "";
    a.color = l.color = svg_palette(colour->second);
    int64_t steps = 0;
    std::string last = "none yet";
    if (run.search) {
      const fs::path dir(run.dir);
      steps = read_json_file((dir / "search.json").string(), SearchConfig::from_json).steps;
      const std::string log = (dir / "search.jsonl").string();
      if (fs::exists(log))
        read_json_lines(log, [&](const Json& j) {
          a.x.push_back(j.at("step").as_double());
          a.y.push_back(j.at("mean_test_accuracy").as_double());
        });
      if (!a.y.empty()) last = "models' mean test accuracy " + fixed4(a.y.back());
    } else {
      steps = RunFolder(run.dir).read_config(/*check_task=*/false).steps;
      const Metrics m = read_metrics((fs::path(run.dir) / "metrics.jsonl").string(), true);
      if (!m.first_split.empty()) {
        for (const auto& [x, y] : m.accuracy.at(m.first_split)) {
          a.x.push_back(x);
          a.y.push_back(y);
        }
        for (const auto& [x, y] : m.loss.at(m.first_split)) {
          l.x.push_back(x);
          l.y.push_back(y);
        }
        last = m.first_split + " accuracy " + fixed4(a.y.back());
      }
    }
    const std::string step = a.x.empty() ? "-" : std::to_string(int64_t(a.x.back()));
    rows += "<tr><td>" + html_escape(run.label) + "</td><td>" + step + "</td><td>" +
            std::to_string(steps) + "</td><td>" + html_escape(last) + "</td>" +
            (!run.in_progress ? "<td>finished</td>"
             : state.writer   ? "<td class=\"in-progress\">in progress</td>"
                              : "<td class=\"in-progress\">stopped</td>") +
            "</tr>\n";
    acc.series.push_back(std::move(a));
    if (!run.search) loss.series.push_back(std::move(l));
  }
  return "<h2>Runs so far</h2>\n<table><tr><th>run</th><th>last evaluation at step</th>"
         "<th>of steps</th><th>last evaluation</th><th>status</th></tr>\n" +
         rows + "</table>\n" + svg_figure("", {acc, loss});
}

}  // namespace

std::string build_report(const std::string& dir) {
  return build_report(dir, folder_state(dir), {});
}

std::string build_report(const std::string& dir, const FolderState& state,
                         const ReportOptions& options) {
  TAPIR_CHECK(fs::is_directory(dir), "report: ", dir, " is not a folder");
  const bool finished = state.finished();
  auto shown = [&](const char* command, const std::string& body) {
    return page(std::string("tapir ") + command + ": " + dir, body, finished ? "" : state.summary(),
                options.refresh_s);
  };
  if (state.kind == "transfer")
    return shown("transfer", finished ? transfer_section(dir) : live_section(state));
  if (state.kind == "comparison")
    return shown("compare", finished ? compare_section(dir) : live_section(state));
  // A log not written yet reads as empty only in a folder a tapir command
  // marked as its own (base/folder_lock.h): any other must hold it.
  const bool being_written = !finished && !owned_kind(dir).empty();
  if (state.kind == "search") return shown("search", search_section(dir, being_written));
  if (state.kind == "run") return shown("run", run_section(dir, being_written));
  fail("report: ", dir,
       " holds no tapir run (config.json + metrics.jsonl), comparison (compare.json), search "
       "(search.json) or transfer (transfer.json)");
}

}  // namespace tapir
