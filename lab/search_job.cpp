// A search as `tapir search` runs it (lab/search_job.h).
#include "lab/search_job.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "base/error.h"
#include "engine/dist.h"
#include "lab/progress.h"
#include "lab/run_jobs.h"
#include "optim/search.h"
#include "optim/tokenizer_copy.h"

namespace tapir {

namespace {

// --force clears the folder before the search reads its tokenizer again: a
// tokenizer inside the folder (the copy an earlier search kept) is refused
// while the folder is still whole.
void refuse_tokenizer_inside(const SearchConfig& config, const std::string& out) {
  const std::string tokenizer = tokenizer_path(config.base.task_options);
  if (tokenizer.empty()) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path file = fs::weakly_canonical(tokenizer, ec), dir = fs::weakly_canonical(out, ec);
  const auto [d, f] = std::mismatch(dir.begin(), dir.end(), file.begin(), file.end());
  TAPIR_CHECK(ec || d != dir.end(), "the tokenizer ", tokenizer, " lies in ", out,
              ", which --force clears before the search reads it; copy it elsewhere first");
}

// Runs a new or resumed search to its end and says what it wrote.
void finish_search(Search& search, Progress& progress, const std::string& dir, bool quiet) {
  progress.plan(1);
  progress.set_eval_lines(true);
  run_search(search, progress, "");
  progress.line("wrote " + dir + "/arch.safetensors (snapshots in " + dir + "/snapshots)");
  // A warning is not progress: --quiet does not hide it.
  if (quiet && dist::is_root() && search.outcome().near_chance())
    std::fprintf(stderr, "tapir: %s\n", search.outcome().verdict().c_str());
}

}  // namespace

void start_search_job(const SearchConfig& config, const std::string& out, bool force,
                      const std::string& note, bool quiet) {
  quiet = quiet || !dist::is_root();
  Search::check(config);  // before the folder is looked at or changed
  const SearchFolder folder(out);
  const bool existed = folder.check_replaceable(force);
  if (existed) refuse_tokenizer_inside(config, out);
  dist::barrier();  // every rank has looked before rank 0 changes the folder
  const auto lock = lock_for_job(out, SearchFolder::kKind, SearchFolder::written());
  if (existed && dist::is_root()) folder.clear();
  dist::barrier();  // the folder is empty before any rank writes its models
  Search search(config, out, /*over_ranks=*/true);
  Progress progress(quiet);
  if (!note.empty()) progress.line(note);
  finish_search(search, progress, out, quiet);
}

void start_repeated_search_jobs(const SearchConfig& config, const std::string& out, int repeat,
                                bool force, const std::string& note, bool quiet) {
  TAPIR_CHECK(repeat >= 1, "--repeat must be at least 1, got ", repeat);
  if (force && std::filesystem::exists(out)) refuse_tokenizer_inside(config, out);
  Search::check(config);
  if (repeat == 1) return start_search_job(config, out, force, note, quiet);
  // The searches go into OUT/search-K: a folder of the user's holding
  // anything else is left alone unless --force says to put them beside it.
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(out, ec)) {
    const std::string name = entry.path().filename().string();
    TAPIR_CHECK(force || (entry.is_directory() && name.rfind("search-", 0) == 0), "--out ",
                tapir::quoted(out), " holds ", tapir::quoted(name),
                ", which no search --repeat wrote; give a new or empty folder (or --force to "
                "put the searches beside it)");
  }
  for (int k = 0; k < repeat; ++k) {
    SearchConfig one = config;
    one.base.seed = config.base.seed + static_cast<uint64_t>(k) * kSearchSeedStride;
    const std::string dir = (std::filesystem::path(out) / ("search-" + std::to_string(k))).string();
    if (!quiet && dist::is_root())
      std::printf("== search %d of %d: %s (seeds from %llu)\n", k + 1, repeat, dir.c_str(),
                  static_cast<unsigned long long>(one.base.seed));
    start_search_job(one, dir, force, k == 0 ? note : "", quiet);
  }
}

void resume_search_job(const std::string& dir, int64_t steps, std::optional<Device> device,
                       std::optional<int> threads, bool quiet) {
  quiet = quiet || !dist::is_root();
  SearchFolder(dir).read_config_to_resume();  // a folder that is no search gets no lock file
  const auto lock = lock_for_job(dir, SearchFolder::kKind, SearchFolder::written());
  const auto search = Search::resume(dir, steps, device, threads, /*over_ranks=*/true);
  Progress progress(quiet);
  if (!search->resume_note().empty()) progress.line(search->resume_note());
  progress.line("resuming " + dir + " at step " + std::to_string(search->steps_done()) + " of " +
                std::to_string(search->steps_total()));
  finish_search(*search, progress, dir, quiet);
}

int run_search_job(const SearchJob& job) {
  if (job.resume.empty()) {
    start_repeated_search_jobs(job.config, job.out, job.repeat, job.force, job.note, job.quiet);
    return 0;
  }
  TAPIR_CHECK(!job.steps || *job.steps >= 1,
              "--search-steps must be at least 1 to extend a search, got ", *job.steps);
  resume_search_job(job.resume, job.steps.value_or(0), job.device, job.threads, job.quiet);
  return 0;
}

}  // namespace tapir
