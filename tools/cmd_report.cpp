// `tapir report DIR`: writes DIR/report.html (lab/report.h).
#include <cstdio>
#include <filesystem>

#include "base/file_io.h"
#include "lab/report.h"
#include "tools/commands.h"

namespace tapir {

namespace {

// The report reads every file in DIR: an output inside DIR may only replace
// a report.
void refuse_report_over_input(const std::string& out, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(out, ec) || fs::path(out).filename() == "report.html") return;
  const std::string inside = fs::weakly_canonical(out, ec).string();
  const std::string folder = fs::weakly_canonical(dir, ec).string() + "/";
  TAPIR_CHECK(inside.rfind(folder, 0) != 0, out, " is a file in ", dir,
              ", which this command reads; choose another output path");
}

}  // namespace

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
            refuse_report_over_input(path, *dir);
            write_file_atomic(path, build_report(*dir));
            std::printf("wrote %s\n", path.c_str());
            return 0;
          }};
}

}  // namespace tapir
