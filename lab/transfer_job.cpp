// `tapir transfer`'s work (lab/transfer_job.h).
#include "lab/transfer_job.h"

#include <cstdio>
#include <sstream>

#include "base/error.h"
#include "base/file_io.h"
#include "base/folder_lock.h"
#include "engine/dist.h"
#include "lab/progress.h"

namespace tapir {

std::vector<std::string> transfer_task_list(const std::string& text) {
  std::vector<std::string> tasks;
  std::stringstream in(text);
  std::string task;
  while (std::getline(in, task, ','))
    if (!task.empty()) tasks.push_back(task);
  return tasks;
}

void set_transfer_task_options(const std::vector<std::string>& items,
                               std::map<std::string, TaskOptions>& into) {
  for (const std::string& item : items) {
    const size_t colon = item.find(':'), eq = item.find('=');
    TAPIR_CHECK(
        colon != std::string::npos && colon > 0 && eq != std::string::npos && eq > colon + 1,
        "--task-opt expects TASK:name=value, got ", tapir::quoted(item));
    TaskOptions& options = into[item.substr(0, colon)];
    const std::string name = item.substr(colon + 1, eq - colon - 1);
    TAPIR_CHECK(!options.has(name), "--task-opt: ", tapir::quoted(item.substr(0, eq)),
                " is given twice; give each option once");
    options.set(name, item.substr(eq + 1));
  }
}

int run_transfer_job(TransferOptions run, const std::string& note, bool quiet,
                     const TransferFigure& figure) {
  if (!note.empty() && !quiet && dist::is_root()) std::printf("%s\n", note.c_str());
  check_transfer(run);  // all of it before the folder is touched
  check_new_or_owned(run.out_dir, "transfer folder");
  const auto lock = lock_for_job(run.out_dir, "transfer folder",
                                 {"transfer.md", "transfer.json", "transfer.svg"});
  Progress progress(quiet || !dist::is_root());  // rank 0 reports for the job
  run.progress = &progress;
  const TransferResult r = run_transfer(run);
  if (!dist::is_root()) return 0;  // rank 0 writes the matrix
  const std::string table = transfer_markdown(r);
  write_file_atomic(run.out_dir + "/transfer.md", table);
  write_file_atomic(run.out_dir + "/transfer.json", transfer_json(r));
  write_file_atomic(run.out_dir + "/transfer.svg", figure(r));
  std::printf("\n%s\nwrote %s/transfer.md, transfer.json and transfer.svg\n", table.c_str(),
              run.out_dir.c_str());
  return 0;
}

}  // namespace tapir
