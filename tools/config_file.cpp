// The strict --config file (tools/config_file.h).
#include "tools/config_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "base/error.h"
#include "base/json.h"

namespace tapir {

namespace {

// CLI11's ConfigError::Extras message, before the item's dotted name.
constexpr std::string_view kExtrasPrefix = "INI was not able to parse ";

std::vector<std::string> split_dots(const std::string& text) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (true) {
    const size_t dot = text.find('.', begin);
    parts.push_back(text.substr(begin, dot - begin));
    if (dot == std::string::npos) return parts;
    begin = dot + 1;
  }
}

const CLI::App* subcommand_named(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->get_name() == name) return sub;
  return nullptr;
}

// Edits from a to b: insertions, deletions, replacements and swaps of two
// neighbours, with '_' and '-' counting as the same character.
size_t edit_distance(const std::string& a, const std::string& b) {
  const auto same = [](char x, char y) {
    return x == y || ((x == '_' || x == '-') && (y == '_' || y == '-'));
  };
  // d[i][j]: the distance between the first i bytes of a and the first j of b.
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// The option of `command` a config key was most likely meant to name: "" if
// none is within a third of the key's length (at least one edit).
std::string nearest_key(const CLI::App& command, const std::string& key) {
  std::string best;
  size_t best_distance = std::max<size_t>(1, key.size() / 3) + 1;
  for (const CLI::Option* option : command.get_options()) {
    if (!option->get_configurable()) continue;
    std::vector<std::string> names = option->get_lnames();
    if (option->get_positional()) names.push_back(option->get_single_name());
    for (const std::string& name : names) {
      const size_t d = edit_distance(key, name);
      if (d < best_distance) {
        best = name;
        best_distance = d;
      }
    }
  }
  return best;
}

std::string trimmed(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t\r") + 1 - begin);
}

bool is_key(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

// Refuses a key given twice in one section (CLI11 would keep one of them).
void check_unique_keys(const std::string& path, const std::string& text) {
  std::istringstream lines(text);
  std::string line, section;
  std::map<std::string, int> first_line;  // "section\nkey" -> line number
  for (int number = 1; std::getline(lines, line); ++number) {
    line = trimmed(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[' && line.back() == ']' && line.find('=') == std::string::npos) {
      section = trimmed(line.substr(1, line.size() - 2));
      continue;
    }
    const size_t equals = line.find('=');
    if (equals == std::string::npos) continue;
    const std::string key = trimmed(line.substr(0, equals));
    if (!is_key(key)) continue;  // a line inside a multi-line array
    const auto [at, fresh] = first_line.emplace(section + "\n" + key, number);
    TAPIR_CHECK(fresh, path, ":", number, ": key ", tapir::quoted(key),
                section.empty() ? std::string() : " in [" + printable(section) + "]",
                " is given twice (first on line ", at->second, "); give each option once");
  }
}

std::string command_path(const CLI::App& command) {
  std::string path;
  for (const CLI::App* a = &command; a->get_parent() != nullptr; a = a->get_parent())
    path = a->get_name() + (path.empty() ? "" : " " + path);
  return path;
}

}  // namespace

void add_config_option(CLI::App& app) {
  app.set_config("--config", "", "Read options from a TOML/INI file with [command] sections");
  app.allow_config_extras(CLI::config_extras_mode::error);
  app.fallthrough();
}

void check_config_file(const CLI::App& app, int argc, char** argv) {
  constexpr off_t kMaxBytes = 1 << 20;
  bool command_seen = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!command_seen && !arg.empty() && arg[0] != '-') {  // the command: its own --config?
      command_seen = true;
      for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        if (sub->get_name() == arg && sub->get_option_no_throw("--config") != nullptr) return;
      continue;
    }
    std::string path;
    if (arg == "--config" && i + 1 < argc)
      path = argv[++i];
    else if (arg.rfind("--config=", 0) == 0)
      path = arg.substr(9);
    else
      continue;
    struct stat info {};
    TAPIR_CHECK(::stat(path.c_str(), &info) == 0, "--config: cannot read ", tapir::quoted(path),
                ": ", std::strerror(errno));
    TAPIR_CHECK(S_ISREG(info.st_mode), "--config: ", tapir::quoted(path),
                " is not a regular file; expected a TOML/INI file");
    TAPIR_CHECK(info.st_size <= kMaxBytes, "--config: ", tapir::quoted(path), " holds ",
                info.st_size, " bytes; a config file is at most 1 MiB");
    std::ifstream in(path, std::ios::binary);
    TAPIR_CHECK(in, "--config: cannot open ", tapir::quoted(path));
    std::ostringstream text;
    text << in.rdbuf();
    check_unique_keys(path, text.str());
  }
}

std::string parse_error_line(const CLI::ParseError& error) {
  std::string line = error.what();
  std::replace(line.begin(), line.end(), '\n', ' ');
  return line;
}

std::string config_file_error(const CLI::App& app, const CLI::ConfigError& error) {
  const CLI::Option* config = app.get_config_ptr();
  const std::string file = config != nullptr && !config->results().empty()
                               ? config->results().back()
                               : std::string("--config");
  const std::string message = error.what();
  if (message.rfind(kExtrasPrefix, 0) != 0) return file + ": " + message;
  // The item's name: its sections, then its key ("++" opens a section).
  const std::vector<std::string> parts = split_dots(message.substr(kExtrasPrefix.size()));
  const CLI::App* command = &app;
  std::string section;
  size_t i = 0;
  for (; i + 1 < parts.size(); ++i) {
    const CLI::App* sub = subcommand_named(*command, parts[i]);
    if (sub == nullptr) break;
    command = sub;
    section += (section.empty() ? "" : ".") + parts[i];
  }
  std::string key;
  for (size_t k = i; k < parts.size(); ++k) key += (key.empty() ? "" : ".") + parts[k];
  if (parts.back() == "++" || parts.back() == "--") {
    std::string known;
    for (const CLI::App* sub : command->get_subcommands([](const CLI::App*) { return true; }))
      known += (known.empty() ? "" : ", ") + sub->get_name();
    const std::string name = key.substr(0, key.size() - 3);
    return file + ": unknown section [" + (section.empty() ? "" : section + ".") + name +
           "] (known: " + known + ")";
  }
  if (command == &app)
    return file + ": key " + tapir::quoted(key) +
           " is outside any section (options go in their command's section, e.g. [train])";
  std::string out = file + ": unknown key " + tapir::quoted(key) + " in [" + section + "] (";
  const std::string nearest = nearest_key(*command, key);
  if (!nearest.empty()) out += "did you mean " + tapir::quoted(nearest) + "? ";
  out += "the keys are the options of `tapir " + command_path(*command) + " --help`";
  if (command->get_allow_extras()) out += R"(; task options go in opt = ["name=value", ...])";
  return out + ")";
}

std::string config_value_error(const CLI::App& app, const std::vector<std::string>& args,
                               const CLI::ParseError& error) {
  const CLI::Option* config = app.get_config_ptr();
  if (config == nullptr || config->results().empty()) return "";
  const std::string message = error.what();
  // The option the message names: its first "--name".
  const size_t at = message.find("--");
  if (at == std::string::npos) return "";
  size_t end = at + 2;
  while (end < message.size() && (std::isalnum(static_cast<unsigned char>(message[end])) ||
                                  message[end] == '-' || message[end] == '_'))
    ++end;
  const std::string name = message.substr(at, end - at);
  if (name.size() <= 2) return "";
  for (const std::string& arg : args)
    if (arg == name || arg.rfind(name + "=", 0) == 0) return "";
  return config->results().back() + ": " + message;
}

}  // namespace tapir
