// `tapir report DIR`: writes DIR/report.html (report/page.h). With --watch it
// writes it again whenever a file under DIR changes, until the experiment
// has finished or the command gets SIGINT or SIGTERM (report/watch.h).
#include <memory>

#include "report/watch.h"
#include "tools/commands.h"

namespace tapir {

Command add_report_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("report",
                                 "Write an offline HTML report for a run, comparison, "
                                 "search or transfer folder");
  auto o = std::make_shared<ReportJob>();
  cmd->add_option("dir", o->dir, "The folder")->required();
  cmd->add_option("-o,--out", o->out, "Output file (default DIR/report.html)");
  auto* watch_flag = cmd->add_flag("--watch", o->watch,
                                   "Write the report again whenever a file under DIR changes, "
                                   "until the experiment has finished (or Ctrl-C); the page "
                                   "reloads itself meanwhile");
  // Its range is checked when it runs, with the unit in the message.
  cmd->add_option("--interval", o->interval,
                  "Seconds between looks at DIR with --watch, 0.1 to 3600")
      ->needs(watch_flag)
      ->capture_default_str();
  return {cmd, [o]() { return run_report_job(*o); }};
}

}  // namespace tapir
