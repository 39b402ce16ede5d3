// `tapir --config FILE`: options read from a TOML/INI file with one section
// per command ([train], [bench], [tasks.show], ...), each key the long name
// of one of that command's options (`weight-decay = 1.0`). The whole file is
// checked, whichever command runs: an unknown section or key is an error.
// Task options are not keys of their own: they go in `opt = ["p=97", ...]`.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace tapir {

// Adds --config to the top-level app and makes it strict. Call before the
// commands are added: it also lets `tapir train --config FILE` name the
// file after the command (fallthrough, which the commands inherit).
void add_config_option(CLI::App& app);

// Checks every --config FILE on the command line before CLI11 reads it:
// a regular file of at most 1 MiB (not a device or a pipe, which could
// never end) in which no key is given twice in one section. After the name
// of a command of `app` with a --config of its own (bench's list of
// configurations), --config is that command's, not a file.
void check_config_file(const CLI::App& app, int argc, char** argv);

// One line for a CLI11 parse error that names no config file.
std::string parse_error_line(const CLI::ParseError& error);

// The one-line message for a CLI::ConfigError that parsing `app` raised: the
// file, the section and the key, and what would have been accepted, e.g.
//   run.toml: unknown key 'lrr' in [train] (did you mean 'lr'? the keys are
//   the options of `tapir train --help`; task options go in opt = ["name=value", ...])
std::string config_file_error(const CLI::App& app, const CLI::ConfigError& error);

// The one-line message for another parse error (a value that does not
// convert or validate) when the option it names came from the --config file
// rather than from `args` (the command line after the program name):
//   run.toml: Could not convert: --lr = abc
// "" when no --config file was given or the option is on the command line.
std::string config_value_error(const CLI::App& app, const std::vector<std::string>& args,
                               const CLI::ParseError& error);

}  // namespace tapir
