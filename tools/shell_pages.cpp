// The bash completion script and the man pages (tools/shell_pages.h).
//
// Completion knows every command path, every flag of each, the choices of
// the flags that take a name (their help ends with ": a | b | c", as
// add_name_option writes it, or CLI11's {a,b} list), the task names for
// --task, --tasks (each name of its comma-separated list) and `tasks show`,
// and leaves every other value to the shell's file completion.
#include "tools/shell_pages.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/file_io.h"
#include "base/json.h"
#include "engine/device.h"
#include "tasks/task.h"

namespace tapir {

namespace {

// The subcommands of `app` that a user sees in --help (in a group).
std::vector<CLI::App*> visible_subcommands(CLI::App& app) {
  return app.get_subcommands([](CLI::App* a) { return !a->get_group().empty(); });
}

// Every visible command below `app`, depth first, with its path of names
// ("train", "arch import").
void collect_commands(CLI::App& app, const std::string& path,
                      std::vector<std::pair<std::string, CLI::App*>>& out) {
  for (CLI::App* sub : visible_subcommands(app)) {
    const std::string name = path.empty() ? sub->get_name() : path + " " + sub->get_name();
    out.emplace_back(name, sub);
    collect_commands(*sub, name, out);
  }
}

std::vector<std::pair<std::string, CLI::App*>> commands_of(CLI::App& root) {
  std::vector<std::pair<std::string, CLI::App*>> out;
  collect_commands(root, "", out);
  return out;
}

// The options of a command that a user sees in --help (named, in a group).
std::vector<const CLI::Option*> visible_options(const CLI::App& app) {
  return app.get_options(
      [](const CLI::Option* o) { return o->nonpositional() && !o->get_group().empty(); });
}

std::vector<const CLI::Option*> positionals(const CLI::App& app) {
  return app.get_options([](const CLI::Option* o) { return !o->nonpositional(); });
}

std::string task_names() {
  std::string names;
  for (const TaskSpec& spec : task_registry()) names += (names.empty() ? "" : " ") + spec.name;
  return names;
}

// The closed choices of an option, space-separated, or "" when its value is
// open: a NAME option's help ends with ": a | b | c" (add_name_option), a
// CLI11 IsMember check writes TYPE:{a,b} as the type name; the task options
// take task names.
std::string choices_of(const CLI::Option& option, bool positional = false) {
  const std::string name = option.get_name();
  if (name == "--task" || name == "--tasks" ||
      (positional && name == "name" && option.get_description().rfind("Task", 0) == 0))
    return task_names();
  const std::string type = option.get_type_name();
  if (type == "DEVICE") return names_of<Device>(" ");
  const size_t brace = type.find(":{");
  if (brace != std::string::npos && type.back() == '}') {
    std::string list = type.substr(brace + 2, type.size() - brace - 3);
    for (char& c : list)
      if (c == ',') c = ' ';
    return list;
  }
  if (type != "NAME") return "";
  const std::string& help = option.get_description();
  const size_t colon = help.rfind(": ");
  if (colon == std::string::npos) return "";
  std::string out;
  std::string rest = help.substr(colon + 2);
  while (!rest.empty()) {
    const size_t bar = rest.find(" | ");
    const std::string word = rest.substr(0, bar);
    if (word.empty() || word.find(' ') != std::string::npos) return "";  // not a list of names
    out += (out.empty() ? "" : " ") + word;
    rest = bar == std::string::npos ? "" : rest.substr(bar + 3);
  }
  return out;
}

bool takes_value(const CLI::Option& option) {
  return option.get_items_expected_max() > 0;
}

// What completion offers for an option's value: its choices, "@number"
// (nothing: a number is typed) or "@file" (the shell's file names, for
// paths and free text).
std::string value_completion(const CLI::Option& option, bool positional = false) {
  const std::string choices = choices_of(option, positional);
  // A comma-separated list of choices (--tasks add,mano): each word after
  // the last comma completes as one choice.
  std::string help = option.get_description();
  for (char& c : help) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!choices.empty() && help.find("comma-separated") != std::string::npos)
    return "@list " + choices;
  if (!choices.empty()) return choices;
  const std::string type = option.get_type_name();
  if (type == "INT" || type == "UINT" || type == "FLOAT" || type == "NUMBER") return "@number";
  return "@file";
}

// A word of the bash script in single quotes.
std::string quoted_for_bash(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string completion_script(CLI::App& root) {
  std::map<std::string, std::string> subs, flags, values, positional;
  auto describe = [&](const std::string& path, CLI::App& app) {
    std::string sub_names, flag_names;
    for (CLI::App* sub : visible_subcommands(app))
      sub_names += (sub_names.empty() ? "" : " ") + sub->get_name();
    for (const CLI::Option* o : visible_options(app)) {
      for (const std::string& l : o->get_lnames()) {
        flag_names += (flag_names.empty() ? "" : " ") + ("--" + l);
        if (takes_value(*o)) values[path + " --" + l] = value_completion(*o);
      }
      for (const std::string& s : o->get_snames())
        flag_names += (flag_names.empty() ? "" : " ") + ("-" + s);
    }
    for (const CLI::Option* o : positionals(app)) positional[path] = value_completion(*o, true);
    subs[path] = sub_names;
    flags[path] = flag_names;
  };
  describe("tapir", root);
  for (auto& [path, app] : commands_of(root)) describe("tapir " + path, *app);

  std::string s =
      "# bash completion for tapir, written by `tapir completion` from the definitions\n"
      "# that `tapir COMMAND --help` prints. Install it as\n"
      "# ~/.local/share/bash-completion/completions/tapir, or source it.\n"
      "declare -A _tapir_subs=(";
  auto table = [&s](const std::map<std::string, std::string>& m) {
    for (const auto& [key, value] : m)
      s += "\n  [" + quoted_for_bash(key) + "]=" + quoted_for_bash(value);
    s += "\n)\n";
  };
  table(subs);
  s += "declare -A _tapir_flags=(";
  table(flags);
  s += "# the flags that take a value: their choices, @number (nothing to offer) or @file\n";
  s += "declare -A _tapir_values=(";
  table(values);
  s += "declare -A _tapir_positional=(";
  table(positional);
  s += R"(
_tapir() {
  local cur="${COMP_WORDS[COMP_CWORD]}" prev="" path=tapir i word
  ((COMP_CWORD > 0)) && prev="${COMP_WORDS[COMP_CWORD - 1]}"
  if [[ $prev == "=" && COMP_CWORD -gt 1 ]]; then prev="${COMP_WORDS[COMP_CWORD - 2]}"; fi
  # The command path: the leading words that name commands.
  for ((i = 1; i < COMP_CWORD; ++i)); do
    word="${COMP_WORDS[i]}"
    [[ -v "_tapir_subs[$path $word]" ]] || break
    path+=" $word"
  done
  COMPREPLY=()
  local offer
  if [[ $prev == -* && -v "_tapir_values[$path $prev]" ]]; then
    offer="${_tapir_values[$path $prev]}"
  elif [[ $cur == -* ]]; then
    offer="${_tapir_flags[$path]}"
  elif [[ -n ${_tapir_subs[$path]} && $i -eq $COMP_CWORD ]]; then
    offer="${_tapir_subs[$path]}"
  else
    offer="${_tapir_positional[$path]:-@file}"
  fi
  case "$offer" in
    @number) ;;
    @file) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
    "@list "*)
      # The words before the last comma stay as typed; no space after, so
      # that another comma may follow.
      local head=""
      [[ $cur == *,* ]] && head="${cur%,*},"
      mapfile -t COMPREPLY < <(compgen -P "$head" -W "${offer#@list }" -- "${cur##*,}")
      compopt -o nospace 2>/dev/null || true ;;
    *) mapfile -t COMPREPLY < <(compgen -W "$offer" -- "$cur") ;;
  esac
}
complete -o filenames -F _tapir tapir
)";
  return s;
}

// Text for roff: backslashes escaped, and a line that would start with a
// control character guarded.
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
    line_start = c == '\n';
  }
  return out;
}

// tapir, tapir-train, tapir-arch-import.
std::string page_name(const std::string& path) {
  std::string name = path.empty() ? "tapir" : "tapir-" + path;
  for (char& c : name)
    if (c == ' ') c = '-';
  return name;
}

// The page of the command at `path` ("" for tapir itself); `version` is the
// first line of `tapir --version`; `all` lists every command for SEE ALSO.
std::string man_page(const std::string& path, CLI::App& app, const std::string& version,
                     const std::vector<std::pair<std::string, CLI::App*>>& all) {
  const std::string name = page_name(path);
  std::string upper;
  for (char c : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::string command = path.empty() ? "tapir" : "tapir " + path;
  std::string s = ".TH " + upper + " 1 \"\" \"" + roff(version) +
                  "\" \"tapir manual\"\n.SH NAME\n" + roff(name) + " \\- " +
                  roff(app.get_description()) + "\n.SH SYNOPSIS\n.B " + roff(command) + "\n";
  const auto subs = visible_subcommands(app);
  if (!subs.empty()) s += "\\fICOMMAND\\fR\n";
  for (const CLI::Option* o : positionals(app)) s += "\\fI" + roff(o->get_name()) + "\\fR\n";
  s += "[\\fIOPTIONS\\fR]\n";
  s += ".SH DESCRIPTION\n" + roff(app.get_description()) + ".\n";
  const std::string footer = app.get_footer();
  if (!footer.empty()) s += ".PP\n" + roff(footer) + "\n";
  if (!subs.empty()) {
    s += ".SH COMMANDS\n";
    for (CLI::App* sub : subs)
      s += ".TP\n.B " + roff(sub->get_name()) + "\n" + roff(sub->get_description()) + " (" +
           page_name(path.empty() ? sub->get_name() : path + " " + sub->get_name()) + "(1))\n";
  }
  std::string group;
  const auto options = visible_options(app);
  if (!options.empty()) s += ".SH OPTIONS\n";
  for (const CLI::Option* o : options) {
    if (o->get_group() != group && o->get_group() != "Options")
      s += ".SS " + roff(o->get_group()) + "\n";
    group = o->get_group();
    std::string names;
    for (const std::string& sn : o->get_snames())
      names += (names.empty() ? "" : ", ") + ("\\fB\\-" + roff(sn) + "\\fR");
    for (const std::string& ln : o->get_lnames())
      names += (names.empty() ? "" : ", ") + ("\\fB\\-\\-" + roff(ln) + "\\fR");
    std::string type = o->get_type_name();
    if (takes_value(*o) && !type.empty()) names += " \\fI" + roff(type) + "\\fR";
    s += ".TP\n" + names + "\n" + roff(o->get_description());
    if (takes_value(*o) && !o->get_default_str().empty())
      s += " (default: " + roff(o->get_default_str()) + ")";
    s += "\n";
  }
  s += ".SH SEE ALSO\n";
  if (path.empty()) {
    std::string see;
    for (const auto& [p, a] : all)
      see += (see.empty() ? "" : ", ") + ("\\fB" + page_name(p) + "\\fR(1)");
    s += see + "\n";
  } else {
    s += "\\fBtapir\\fR(1), \\fBtapir " + roff(path) + " \\-\\-help\\fR\n";
  }
  s += ".PP\nThe documentation is in /usr/share/doc/tapir (docs/engine.md is the reader's path).\n";
  return s;
}

}  // namespace

int print_completion(CLI::App& root, const std::string& out) {
  const std::string script = completion_script(root);
  if (out.empty())
    std::fputs(script.c_str(), stdout);
  else
    write_file_atomic(out, script);
  return 0;
}

int print_man_pages(CLI::App& root, const std::string& version,
                    const std::vector<std::string>& command, const std::string& out) {
  const auto all = commands_of(root);
  if (!out.empty()) {
    TAPIR_CHECK(command.empty(), "man: give a command or --out, not both");
    std::error_code error;
    std::filesystem::create_directories(out, error);
    if (error || !std::filesystem::is_directory(out))
      fail("man --out ", out, ": not a folder that can be made or written (",
           error ? error.message() : "a file of that name exists",
           "); give a folder for the pages");
    write_file_atomic(out + "/tapir.1", man_page("", root, version, all));
    for (const auto& [path, sub] : all)
      write_file_atomic(out + "/" + page_name(path) + ".1", man_page(path, *sub, version, all));
    return 0;
  }
  std::string path;
  for (const std::string& word : command) path += (path.empty() ? "" : " ") + word;
  if (path.empty()) {
    std::fputs(man_page("", root, version, all).c_str(), stdout);
    return 0;
  }
  std::string names;
  for (const auto& [p, sub] : all) {
    if (p == path) {
      std::fputs(man_page(p, *sub, version, all).c_str(), stdout);
      return 0;
    }
    names += (names.empty() ? "" : ", ") + p;
  }
  fail("man: no command ", quoted(path), " (commands: ", names, ")");
}

}  // namespace tapir
