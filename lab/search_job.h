// `tapir search`'s work once its flags are read (tools/cmd_search.cpp): a
// new Stage I search into its folder, or a stopped one continued, with the
// progress and the verdict printed. Under mpirun every rank of the job
// calls the same function and they run one search together
// (optim/search.h); rank 0 owns the folder's lock and reports. Sits in
// lab/, on optim/search.h and lab/progress.h.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "engine/device.h"
#include "optim/search_config.h"

namespace tapir {

// A new search into `out`, which must be empty or absent unless `force`
// (then it must be a search folder, and is emptied). `note` (if not empty)
// is printed first.
void start_search_job(const SearchConfig& config, const std::string& out, bool force,
                      const std::string& note, bool quiet);
// Model seeds of search k of a repeated search start at seed + k times this,
// so that no two searches share a model.
constexpr uint64_t kSearchSeedStride = 1000000;
// `repeat` independent searches: search k in out/search-k, as
// start_search_job makes it, with its models' seeds from config.base.seed +
// k * kSearchSeedStride. Their arch files are what `tapir compare
// --arch-file` takes once each, to read a verdict over searches and seeds.
void start_repeated_search_jobs(const SearchConfig& config, const std::string& out, int repeat,
                                bool force, const std::string& note, bool quiet);
// The search in `dir` continued from its last evaluation (Search::resume:
// `steps` > 0 extends it; `device` and `threads` replace the saved ones).
void resume_search_job(const std::string& dir, int64_t steps, std::optional<Device> device,
                       std::optional<int> threads, bool quiet);

// What `tapir search` was asked, its flags read: a new search (or `repeat`
// of them) into `out`, or the one in `resume` continued.
struct SearchJob {
  SearchConfig config;  // a new search's, validated
  std::string out, resume;
  bool force = false, quiet = false;
  int repeat = 1;
  std::string note;  // a new search's settings note ("": none)
  // A resumed search: what replaces its saved values (none: as saved).
  std::optional<int64_t> steps;
  std::optional<Device> device;
  std::optional<int> threads;
};
// Starts the search (start_repeated_search_jobs) or resumes it
// (resume_search_job); the exit code (0).
int run_search_job(const SearchJob& job);

}  // namespace tapir
