// The subcommands of `tapir`. Each add_* function registers its CLI11
// subcommand and returns a runner that is called when that subcommand was
// given; a runner returns the process exit code.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <vector>

namespace tapir {

using Runner = std::function<int()>;
// Whether a command may run under mpirun on several ranks, sharing its work
// among them (docs/distributed.md); one that may not refuses to start there.
enum class Ranks { one, several };
struct Command {
  CLI::App* app;
  Runner run;
  Ranks ranks = Ranks::one;
};

Command add_selfcheck_command(CLI::App& app);
Command add_train_command(CLI::App& app);
Command add_eval_command(CLI::App& app);
Command add_dump_command(CLI::App& app);
Command add_bench_command(CLI::App& app);
Command add_compare_command(CLI::App& app);
Command add_search_command(CLI::App& app);
Command add_transfer_command(CLI::App& app);
Command add_report_command(CLI::App& app);
Command add_plot_command(CLI::App& app);
Command add_arch_command(CLI::App& app);
// `arch import`, a subcommand of `arch` (tools/cmd_arch_import.cpp).
Command add_arch_import_subcommand(CLI::App& parent);
// `arch stats`, a subcommand of `arch` (tools/cmd_arch_stats.cpp).
Command add_arch_stats_subcommand(CLI::App& arch);
// `arch control`, a subcommand of `arch` (tools/cmd_arch_control.cpp).
Command add_arch_control_subcommand(CLI::App& arch);
Command add_tasks_command(CLI::App& app);
Command add_layers_command(CLI::App& app);
Command add_robust_command(CLI::App& app);
Command add_robust_compare_command(CLI::App& app);
Command add_tokenizer_command(CLI::App& app);
Command add_claims_command(CLI::App& app);
// `tapir completion` and `tapir man` (tools/cmd_shell.cpp, the pages in
// tools/shell_pages.cpp), made from the definitions of every command
// registered before them; `version` heads the man pages.
Command add_completion_command(CLI::App& app);
Command add_man_command(CLI::App& app, const std::string& version);

}  // namespace tapir
