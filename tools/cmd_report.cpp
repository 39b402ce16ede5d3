// `tapir report DIR`: writes DIR/report.html (lab/report.h).
#include <cstdio>
#include <filesystem>

#include "base/file_io.h"
#include "lab/report.h"
#include "tools/commands.h"

namespace tapir {

Command add_report_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("report",
                                 "Write an offline HTML report for a run, comparison, "
                                 "search or transfer folder");
  auto dir = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  cmd->add_option("dir", *dir, "The folder")->required();
  cmd->add_option("-o,--out", *out, "Output file (default DIR/report.html)");
  return {cmd, [dir, out]() {
            const std::string path = out->empty() ? *dir + "/report.html" : *out;
            write_file_atomic(path, build_report(*dir));
            std::printf("wrote %s\n", path.c_str());
            return 0;
          }};
}

}  // namespace tapir
