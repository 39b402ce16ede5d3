// The flags of a command that trains (tools/train_options.h), and with
// `with_search_flags` a search's (tools/search_options.h), on an app of
// their own: what a test parses them into, before finish_train_options.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "tools/search_options.h"
#include "tools/train_options.h"

namespace test_support {

struct ParsedFlags {
  CLI::App app{"test"};
  tapir::TrainOptions train;
  tapir::SearchConfig search;
  explicit ParsedFlags(bool with_search_flags) {
    tapir::add_train_options(app, train);
    if (with_search_flags) tapir::add_search_flags(app, search);
  }
  void parse(std::vector<std::string> args) {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 wants reversed
    app.parse(reversed);
  }
};

}  // namespace test_support
