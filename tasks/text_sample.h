// A small built-in text for the `text` task: a few KB of plain English prose
// written for tapir, so that `tapir tasks show text` has something to show
// when no corpus is given. Training on text still needs option `path`; the
// sample is far too small to learn much from.
#pragma once
#include <string_view>

namespace tapir {

// The sample, ASCII, lines ending in '\n'. Long enough for the text task's
// default options (context 128, test-frac 0.1, arch-frac 0.2) to give every
// split at least one window.
std::string_view text_sample();

}  // namespace tapir
