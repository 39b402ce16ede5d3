// The flags of a Stage I search (optim/search_config.h), declared once for
// every command that runs searches: `tapir search` and `tapir transfer`.
// The model's and the weights' flags are the train options
// (tools/train_options.h).
#pragma once
#include <CLI/CLI.hpp>

#include "optim/search_config.h"

namespace tapir {

// --models, --search-steps, --stagger [off|reinit|continue], the functions'
// optimizer and schedule (--arch-*), --smoothness, --amplitude,
// --snapshot-every, into `s`; the defaults shown are s's values.
void add_search_flags(CLI::App& cmd, SearchConfig& s);

}  // namespace tapir
