// `tapir report` (report/watch.h): the page once, or on every change
// of the folder's files until its experiment ends.
#include "report/watch.h"

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "base/error.h"
#include "base/file_io.h"
#include "base/folder_lock.h"
#include "base/json.h"
#include "lab/folder_state.h"
#include "report/page.h"

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

volatile std::sig_atomic_t stop_signal = 0;

void on_stop_signal(int signal) {
  stop_signal = signal;
}

// Sleeps `seconds`, or until a stop signal comes.
void sleep_unless_stopped(double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (stop_signal == 0 && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

// The page, written and announced when it differs from the one written last.
void write_page(const std::string& out, const std::string& html, const FolderState& state,
                std::string& written) {
  if (html == written) return;
  write_file_atomic(out, html);
  written = html;
  std::printf("rendered %s (%s)\n", out.c_str(), state.summary().c_str());
  std::fflush(stdout);
}

// The experiment will not change any more: it finished, or no tapir process
// writes it (killed or cut short: a later command may take it up, and a new
// watch with it).
bool ended(const FolderState& state) {
  return state.finished() || state.stopped();
}

// Looks at DIR every `interval_s` seconds and renders the page on every
// change of its files, with a refresh tag while the experiment runs. Ends
// when a finished or stopped experiment's files have stayed as they were
// for one look, or on SIGINT or SIGTERM, with the page rendered once more
// without the tag.
int watch_report(const std::string& dir, const std::string& out, double interval_s) {
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  const ReportOptions live{std::max(2, static_cast<int>(std::ceil(interval_s)))};
  const std::string ignored = std::filesystem::path(out).filename().string();
  std::string rendered;  // the files' fingerprint when the page was rendered ("": not since)
  bool finished = false, waiting = false;
  std::string written, error;
  while (stop_signal == 0) {
    const std::string fingerprint = tree_fingerprint(dir, ignored);
    // The same files as on the page: it stays, unless its writer has gone
    // since (killed between two writes), which the page must then say.
    if (!fingerprint.empty() && fingerprint == rendered && (finished || folder_has_writer(dir))) {
      if (finished) return 0;
    } else if (const FolderState state = folder_state(dir); state.kind.empty()) {
      const std::string marker = owned_kind(dir);  // of a folder the report does not read
      TAPIR_CHECK(marker.empty(), "report: ", dir, " is a tapir ", marker,
                  ", which the report does not read");
      // Other people's files and no tapir experiment: no tapir command
      // writes into such a folder (lab/run_jobs.h), so nothing would come.
      if (!waiting) {
        const std::string foreign = foreign_entries(dir);  // besides marker and lock
        TAPIR_CHECK(foreign.empty() || foreign == ignored, "report: ", quoted(dir),
                    " holds files no tapir command wrote (", quoted(foreign),
                    ") and no run, comparison, search or transfer; a tapir "
                    "command will not write there, so there is nothing to wait for");
      }
      if (!waiting)
        std::fprintf(stderr,
                     "report: waiting for %s to hold a run, comparison, search or transfer\n",
                     quoted(dir).c_str());
      waiting = true;
    } else {
      std::string html;
      try {
        html = build_report(dir, state, ended(state) ? ReportOptions{} : live);
      } catch (const Error& e) {
        // Most likely a file read while it was being written: read again at
        // the next look, and say why once.
        if (e.what() != error) std::fprintf(stderr, "report: %s; trying again\n", e.what());
        error = e.what();
        rendered.clear();
        sleep_unless_stopped(interval_s);
        continue;
      }
      write_page(out, html, state, written);
      rendered = fingerprint;
      finished = ended(state);
      error.clear();
    }
    sleep_unless_stopped(interval_s);
  }
  // Stopped: the page as the files are now, without the refresh tag. A file
  // caught half-written gets a few more tries.
  if (folder_state(dir).kind.empty()) {
    std::fprintf(stderr, "report: stopped; %s held nothing to report, so nothing was written\n",
                 dir.c_str());
    return 0;
  }
  for (int attempt = 1;; ++attempt) {
    try {
      const FolderState state = folder_state(dir);
      write_page(out, build_report(dir, state, {}), state, written);
      return 0;
    } catch (const Error&) {
      if (attempt == 10) throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

}  // namespace

int run_report_job(const ReportJob& job) {
  const std::string path = job.out.empty() ? job.dir + "/report.html" : job.out;
  TAPIR_CHECK(job.interval >= 0.1 && job.interval <= 3600,
              "--interval: expected seconds from 0.1 to 3600, got ", job.interval);
  refuse_report_over_input(path, job.dir);
  // A file never becomes a folder: a watch of one would wait forever.
  std::error_code ec;
  TAPIR_CHECK(!std::filesystem::exists(job.dir, ec) || std::filesystem::is_directory(job.dir, ec),
              "report: ", quoted(job.dir),
              " is a file, not a folder: give the folder of a run, comparison, search or "
              "transfer");
  if (job.watch) return watch_report(job.dir, path, job.interval);
  write_file_atomic(path, build_report(job.dir));
  std::printf("wrote %s\n", path.c_str());
  return 0;
}

}  // namespace tapir
