// The strict --config file (tools/config_file.h).
#include "tools/config_file.h"

#include <algorithm>
#include <cctype>
#include <vector>

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
