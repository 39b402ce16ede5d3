// `tapir report DIR`'s work once its flags are read (tools/cmd_report.cpp):
// DIR/report.html written once (report/page.h), or, with watch, written
// again whenever a file under DIR changes, while train, compare, search or
// transfer write there, until the experiment has finished
// (lab/folder_state.h) or the command gets SIGINT or SIGTERM. Sits in
// report/, on report/page.h.
#pragma once
#include <string>

namespace tapir {

struct ReportJob {
  std::string dir;  // the folder reported
  std::string out;  // the page ("": DIR/report.html)
  bool watch = false;
  double interval = 1.0;  // seconds between looks at DIR with watch, 0.1 to 3600
};

// Writes the page (refusing an output that is a file of DIR other than a
// report), once or, with watch, on every change until the experiment ends;
// the exit code.
int run_report_job(const ReportJob& job);

}  // namespace tapir
