// `tapir report DIR`: one self-contained, offline HTML page (inline SVG, no
// scripts, no network) for a run folder, a comparison, a search or a
// transfer matrix: configuration, tables, curves and learned functions.
// Sits in lab/, on nn/ and the comparison, plots and figures of lab/; the
// command is tools/cmd_report.cpp.
#pragma once
#include <string>

namespace tapir {

// Builds the page for whatever DIR holds; fails naming what it looked for.
std::string build_report(const std::string& dir);

}  // namespace tapir
