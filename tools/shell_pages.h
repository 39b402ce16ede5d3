// The shell's view of the command line: the bash completion script and the
// man pages of `tapir completion` and `tapir man` (tools/cmd_shell.cpp),
// made from the same CLI11 definitions that --help prints, so that they
// cannot drift from it. The build runs both (tools/CMakeLists.txt) and
// `cmake --install` installs what they write: the bash completion script as
// share/bash-completion/completions/tapir, and one man page per command
// (tapir(1), tapir-train(1), tapir-arch-import(1), ...) in share/man/man1.
// Sits in tools/ beside the commands: it reads their CLI11 definitions.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace tapir {

// The completion script of every command registered on `root`, printed, or
// written to `out` when not empty; the exit code (0).
int print_completion(CLI::App& root, const std::string& out);
// With `out`: every page, tapir.1 and tapir-COMMAND.1, written into that
// folder. Without: the page of the command whose words are `command` (none:
// tapir's own) printed; an unknown command fails naming the known ones.
// `version` heads the pages. The exit code (0).
int print_man_pages(CLI::App& root, const std::string& version,
                    const std::vector<std::string>& command, const std::string& out);

}  // namespace tapir
