// `tapir report DIR`: one self-contained, offline HTML page (inline SVG, no
// scripts, no network) for a run folder, a comparison, a search or a
// transfer matrix: configuration, tables, curves and learned functions.
// An experiment still being written gets a page of what it holds so far,
// its unfinished runs marked "in progress" (lab/folder_state.h).
// Sits in report/, on nn/, the comparison of lab/ and the figures here; the
// command is tools/cmd_report.cpp.
#pragma once
#include <string>

#include "lab/folder_state.h"

namespace tapir {

struct ReportOptions {
  // Seconds after which a browser loads the page again (a refresh tag in
  // its head), for `tapir report --watch`; 0: none.
  int refresh_s = 0;
};

// Builds the page for whatever DIR holds; fails naming what it looked for.
std::string build_report(const std::string& dir);
// The same, with `state` as folder_state(dir) read it just before.
std::string build_report(const std::string& dir, const FolderState& state,
                         const ReportOptions& options);

}  // namespace tapir
