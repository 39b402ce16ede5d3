// The claims table, its page and the README's tally (report/claims_pages.h).
#include "report/claims_pages.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "base/error.h"
#include "base/file_io.h"
#include "report/forest.h"
#include "report/svg.h"

namespace tapir {

namespace {

const char* const kTallyBegin = "<!-- claims tally: written by `tapir claims render` -->";
const char* const kTallyEnd = "<!-- end of claims tally -->";

// "T1" of "T1-add3-authors".
std::string claim_number(const std::string& id) {
  return id.substr(0, id.find('-'));
}

std::string md_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string html_text(const std::string& text) {
  return svg_escape(text);
}

std::string wall_text(const std::optional<double>& seconds) {
  if (!seconds) return "not recorded";
  const long s = std::lround(*seconds);
  if (s < 60) return std::to_string(s) + " s";
  return std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s";
}

struct Group {
  std::string number;  // T1
  std::string claim;   // of its first row
  std::vector<const ClaimRecord*> rows;
};

// Records with a figure, grouped by claim number and statistic, in order.
std::vector<Group> plot_groups(const std::vector<ClaimRecord>& records) {
  std::vector<Group> groups;
  for (const ClaimRecord& r : records) {
    if (!r.measure || !r.result || !r.result->value) continue;
    const std::string number = claim_number(r.id);
    // One plot per claim, except where its rows' figures cannot share an
    // axis (a ratio beside a difference, or opposite directions).
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      const ClaimMeasure& first = *g.rows.front()->measure;
      return g.number == number && first.format == r.measure->format &&
             first.higher_better == r.measure->higher_better &&
             first.null_value == r.measure->null_value;
    });
    if (it == groups.end()) {
      groups.push_back({number, r.claim, {}});
      it = groups.end() - 1;
    }
    it->rows.push_back(&r);
  }
  return groups;
}

const char* status_colour(const std::string& status) {
  if (status == "reproduced") return "#1b7837";
  if (status == "in direction only") return "#7fbc41";
  if (status == "not reproduced") return "#c51b7d";
  if (status == "reversed") return "#b2182b";
  return "#555555";
}

// One forest plot (report/forest.h): a row per record, its point and
// interval coloured by its status, the no-effect line and the paper's
// figure (dashed). Ratios on a log axis.
std::string forest_plot(const Group& g) {
  const ClaimMeasure& m0 = *g.rows.front()->measure;
  ForestPlot plot;
  plot.log_axis = m0.format == "ratio";
  plot.null_value = m0.null_value;
  plot.reference = m0.size;
  plot.reference_label = "paper";
  plot.decimals = m0.decimals;
  for (const ClaimRecord* r : g.rows) {
    const ClaimResult& res = *r->result;
    ForestRow row;
    row.label = r->id;
    row.note = res.status;
    row.color = status_colour(res.status);
    row.point = *res.value;
    if (res.lo && res.hi) row.lo = *res.lo, row.hi = *res.hi;
    row.tooltip = r->id + ": " + format_claim_figure(*r->measure, res) + ", " + res.status;
    plot.rows.push_back(std::move(row));
  }
  return forest_svg(plot);
}

// Writes `text` to `path`, or under --check says whether it differs.
bool put(const std::string& path, const std::string& text, bool check) {
  if (!check) {
    write_file_atomic(path, text);
    return true;
  }
  const bool same = std::filesystem::exists(path) && read_file(path) == text;
  if (!same)
    std::fprintf(stderr, "claims: %s is not what `tapir claims render` writes from the records\n",
                 path.c_str());
  return same;
}

}  // namespace

std::string render_claims_tally(const std::vector<ClaimRecord>& records) {
  std::map<std::string, int> counts;
  std::set<std::string> numbers;
  for (const ClaimRecord& r : records) {
    ++counts[shown_status(r)];
    numbers.insert(claim_number(r.id));
  }
  std::string text = "Of " + std::to_string(records.size()) + " rows (" +
                     std::to_string(numbers.size()) + (numbers.size() == 1 ? " claim" : " claims") +
                     " of the two papers, a row per setting and protocol): ";
  bool first = true;
  for (const std::string& status : claim_statuses()) {
    if (counts[status] == 0) continue;
    text += (first ? "" : ", ") + std::to_string(counts[status]) + " " + status;
    first = false;
  }
  return text + ".\n";
}

std::string with_claims_tally(const std::string& readme, const std::string& tally) {
  const size_t begin = readme.find(kTallyBegin);
  const size_t end = readme.find(kTallyEnd);
  TAPIR_CHECK(begin != std::string::npos && end != std::string::npos && begin < end,
              "README.md: no claims tally markers (", kTallyBegin, " ... ", kTallyEnd, ")");
  const size_t after = begin + std::string(kTallyBegin).size();
  return readme.substr(0, after) + "\n" + tally.substr(0, tally.size() - 1) +
         " Each row, with its interval, n and setting: [docs/claims.md](docs/claims.md).\n" +
         readme.substr(end);
}

namespace {

// The "tuned against; cost" cell, and for a tuned row (ID-tuned) whose
// untuned row (ID) is measured, that row's figure and status, and whether
// the verdict changed under tuning.
std::string tuning_cell(const std::vector<ClaimRecord>& records, const ClaimRecord& r) {
  std::string text = claim_tuning_text(r);
  const std::string suffix = "-tuned";
  if (!r.result || r.id.size() <= suffix.size() ||
      r.id.compare(r.id.size() - suffix.size(), suffix.size(), suffix) != 0)
    return text;
  const std::string untuned = r.id.substr(0, r.id.size() - suffix.size());
  for (const ClaimRecord& u : records) {
    if (u.id != untuned || !u.result || !u.measure) continue;
    const std::string before = shown_status(u), after = shown_status(r);
    text += "; untuned (" + untuned + "): " + format_claim_figure(*u.measure, *u.result) + ", " +
            before +
            (before == after ? ": the same verdict" : ": the verdict changed under tuning");
  }
  return text;
}

std::string p_text(double p) {
  if (p < 0.001) return "<0.001";
  char text[16];
  std::snprintf(text, sizeof text, "%.2g", p);
  return text;
}

// "0.003 (Holm 0.012 over 4 T5 rows)", or "-" without a p-value.
std::string family_text(const FamilyAdjusted& a, const std::string& family) {
  if (!a.p) return "-";
  return p_text(*a.p) + " (Holm " + p_text(*a.holm_p) + " over " + std::to_string(a.rows) + " " +
         family + (a.rows == 1 ? " row)" : " rows)");
}

}  // namespace

std::string render_claims_markdown(const std::vector<ClaimRecord>& records) {
  std::string md =
      "# The papers' claims, measured here\n\n"
      "<!-- Written by `tapir claims render` from claims/records/*.json: edit the records, not "
      "this file. -->\n\n"
      "One row per claim, setting and protocol of the two papers (PAPERS.md's numbering: T for "
      "Teney et al., ICLR 2026, on learned nonlinearities; K for Porras-Valenzuela, Hadou and "
      "Ribeiro, ICML 2026, on per-layer descent constraints). *Here* is the statistic with its "
      "95% bootstrap interval (drawn over searches, then seeds) unless another interval is "
      "named, and n as searches x seeds (seeds alone where there is no search). A status is "
      "derived from the interval by the rule of "
      "[claims/README.md](../claims/README.md), never typed: reproduced (the interval leaves no "
      "effect on the claimed side and reaches the paper's figure), in direction only, not "
      "reproduced (undecided, and short of the paper's figure), reversed, inconclusive; "
      "\"(judged)\" marks the few rows no interval decides. *Tuned against* says whether both "
      "arms ran at one setting or each was tuned on a held-out split first (`tapir compare "
      "--tune`), and *cost* the model FLOPs each arm spent, searches and tuning included. `tapir "
      "claims run ID` re-measures a "
      "row that has an experiment and rewrites its record; the last table gives each row's "
      "command and wall time on 2 cores, and [claims.html](claims.html) draws every claim as a "
      "forest plot. The narrative and full tables are in [experiments.md](experiments.md) and "
      "[constraints.md](constraints.md).\n\n" +
      render_claims_tally(records) + "\n";
  std::string paper;
  for (const ClaimRecord& r : records) {
    if (r.paper != paper) {
      paper = r.paper;
      md += "\n## " + paper + "\n\n";
      md +=
          "| id | claim | paper | here | status | tuned against; cost | setting here vs paper "
          "| protocol |\n";
      md += "|---|---|---|---|---|---|---|---|\n";
    }
    std::string status = "**" + shown_status(r) + "**";
    if (r.measure && r.measure->rule == "judged") status += " (judged)";
    md += "| [" + r.id + "](../claims/records/" + r.id + ".json) | " + md_cell(r.claim) + " | " +
          md_cell(r.paper_figure) + " (" + r.paper_source + ") | " + md_cell(claim_here_text(r)) +
          " | " + status + " | " + md_cell(tuning_cell(records, r)) + " | " + md_cell(r.setting) +
          " | " + md_cell(r.protocol) + " |\n";
  }
  md += "\n## How each row was measured\n\n";
  md +=
      "*p* is a row's two-sided p-value against no effect, read from its 95% interval as from a "
      "normal one (on the log scale for a ratio), and *Holm* the same adjusted over the rows "
      "of its claim (its family: the rows whose id starts with the same number), for a "
      "conclusion that picks one of them.\n\n";
  md +=
      "| id | command | wall time | build | date | full tables | p (Holm over the family) "
      "|\n|---|---|---|---|---|---|---|\n";
  const std::vector<FamilyAdjusted> adjusted = adjust_by_family(records);
  for (size_t i = 0; i < records.size(); ++i) {
    const ClaimRecord& r = records[i];
    if (!r.result) {
      md += "| " + r.id + " | " + md_cell(r.command.empty() ? "-" : "`" + r.command + "`") +
            " | - | - | - | - | - |\n";
      continue;
    }
    const ClaimResult& res = *r.result;
    std::string source = res.source.empty() ? "-" : res.source;
    if (source.rfind("docs/", 0) == 0)
      source = "[" + source.substr(5) + "](" + source.substr(5) + ")";
    md += "| " + r.id + " | `" + md_cell(r.command) + "` | " + wall_text(res.wall_s) + " | " +
          (res.commit.empty() ? "-" : res.commit) + " | " + (res.date.empty() ? "-" : res.date) +
          " | " + source + " | " + family_text(adjusted[i], claim_family(r)) + " |\n";
  }
  return md;
}

std::string render_claims_html(const std::vector<ClaimRecord>& records) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>tapir: the papers' claims, measured here</title><style>"
      "body{font-family:sans-serif;max-width:980px;margin:2em auto;padding:0 1em;color:#222}"
      "table{border-collapse:collapse;font-size:13px;margin:.5em 0}"
      "td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top}"
      "section{margin-bottom:2em}.status{font-weight:bold}</style></head><body>\n"
      "<!-- Written by `tapir claims render` from claims/records/*.json. -->\n"
      "<h1>The papers' claims, measured here</h1>\n<p>" +
      html_text(render_claims_tally(records)) +
      "</p>\n<p>Each plot: a row per setting and protocol, the point and its interval (95% "
      "bootstrap unless the table names another), the grey line at no effect, the dashed blue "
      "line at the paper's figure; ratios on a log axis. Colour: green reproduced, light green "
      "in direction only, red reversed or not reproduced, grey otherwise.</p>\n";
  for (const Group& g : plot_groups(records)) {
    html += "<section><h2>" + html_text(g.number + ": " + g.claim) + "</h2>\n" + forest_plot(g) +
            "\n<table><tr><th>id</th>"
            "<th>paper</th><th>here</th><th>status</th><th>tuned against; cost</th>"
            "<th>setting here vs paper</th></tr>\n";
    for (const ClaimRecord* r : g.rows)
      html += "<tr><td>" + html_text(r->id) + "</td><td>" + html_text(r->paper_figure) +
              "</td><td>" + html_text(claim_here_text(*r)) + "</td><td class=\"status\">" +
              html_text(shown_status(*r)) + "</td><td>" + html_text(tuning_cell(records, *r)) +
              "</td><td>" + html_text(r->setting) + "</td></tr>\n";
    html += "</table></section>\n";
  }
  html +=
      "<section><h2>Rows without a figure</h2><table><tr><th>id</th><th>claim</th>"
      "<th>status</th><th>why</th></tr>\n";
  for (const ClaimRecord& r : records) {
    if (r.measure && r.result && r.result->value) continue;
    html += "<tr><td>" + html_text(r.id) + "</td><td>" + html_text(r.claim) + "</td><td>" +
            html_text(shown_status(r)) + "</td><td>" + html_text(claim_here_text(r)) +
            "</td></tr>\n";
  }
  html += "</table></section>\n</body></html>\n";
  return html;
}

int render_claims(const ClaimsOptions& o) {
  const std::vector<ClaimRecord> records = read_claims(o.records);
  // Everything made before anything is written: a README without its
  // markers leaves the table and the page as they were.
  const std::string md = render_claims_markdown(records);
  const std::string html = render_claims_html(records);
  const std::string readme = with_claims_tally(read_file(o.readme), render_claims_tally(records));
  bool same = put(o.md, md, o.check);
  same = put(o.html, html, o.check) && same;
  same = put(o.readme, readme, o.check) && same;
  if (o.check && !same) {
    std::fprintf(stderr, "claims: run `tapir claims render` from the repository's root\n");
    return 1;
  }
  std::printf("%s", render_claims_tally(records).c_str());
  return 0;
}

}  // namespace tapir
