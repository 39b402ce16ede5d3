// `tapir completion` and `tapir man`: the shell's view of the command line,
// made from the same CLI11 definitions that --help prints
// (tools/shell_pages.h), so that they cannot drift from it. The build runs
// both (tools/CMakeLists.txt) and `cmake --install` installs what they
// write.
#include <memory>
#include <string>
#include <vector>

#include "tools/commands.h"
#include "tools/shell_pages.h"

namespace tapir {

struct ManCommandOptions {
  std::vector<std::string> command;
  std::string out;
};

Command add_completion_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "completion",
      "Print the bash completion script (commands, flags, their choices, task names)");
  auto out = std::make_shared<std::string>();
  cmd->add_option("--out", *out, "Write it to this file instead of standard output");
  cmd->footer(
      "Source it, or install it as ~/.local/share/bash-completion/completions/tapir; "
      "`cmake --install` and the package install it for every user.");
  return {cmd, [&app, out]() { return print_completion(app, *out); }};
}

Command add_man_command(CLI::App& app, const std::string& version) {
  auto* cmd = app.add_subcommand("man", "Print the man page of tapir or of one command, in roff");
  auto o = std::make_shared<ManCommandOptions>();
  cmd->add_option("command", o->command, "The command, as typed after tapir (train; arch import)");
  cmd->add_option("--out", o->out,
                  "Write every page, tapir.1 and tapir-COMMAND.1, into this folder instead");
  cmd->footer("Read one with `tapir man train | man -l -`.");
  return {cmd, [&app, o, version]() { return print_man_pages(app, version, o->command, o->out); }};
}

}  // namespace tapir
