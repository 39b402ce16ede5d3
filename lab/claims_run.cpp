// What `tapir claims` does (lab/claims_run.h): the records chosen, each
// claim's experiment run (this program again, under mpirun when asked) and
// its record written, and the table, page and tally rendered.
#include "lab/claims_run.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "base/error.h"
#include "base/file_io.h"
#include "lab/arch_controls.h"
#include "lab/folder_state.h"
#include "lab/run_jobs.h"
#include "lab/search_job.h"

extern char** environ;

namespace tapir {

// The records named by `ids` ("all": every one), in table order.
std::vector<ClaimRecord> chosen_claims(const std::vector<ClaimRecord>& records,
                                       const std::vector<std::string>& ids) {
  if (ids.empty() || (ids.size() == 1 && ids[0] == "all")) return records;
  std::vector<ClaimRecord> out;
  for (const std::string& id : ids) {
    auto it = std::find_if(records.begin(), records.end(),
                           [&](const ClaimRecord& r) { return r.id == id; });
    if (it == records.end()) {
      std::string known;
      for (const ClaimRecord& r : records) known += (known.empty() ? "" : ", ") + r.id;
      fail("no claim record ", tapir::quoted(id), " (records: ", known, ")");
    }
    out.push_back(*it);
  }
  return out;
}

namespace {

// Runs this program with `args`, under `mpirun -np ranks` when ranks > 1;
// throws when it fails.
void run_tapir(const std::vector<std::string>& args, int ranks) {
  std::vector<std::string> argv;
  if (ranks > 1) {
    argv = {"mpirun", "--oversubscribe", "-np", std::to_string(ranks)};
    if (geteuid() == 0) argv.insert(argv.begin() + 1, "--allow-run-as-root");
  }
  // This very program, even where its file was replaced (rebuilt) since it
  // started: the children measure with the build the record will name.
  argv.push_back("/proc/" + std::to_string(getpid()) + "/exe");
  argv.insert(argv.end(), args.begin(), args.end());
  std::string shown = ranks > 1 ? "mpirun -np " + std::to_string(ranks) + " tapir" : "tapir";
  for (const std::string& a : args) shown += " " + a;
  std::printf("claims: %s\n", shown.c_str());
  std::fflush(stdout);
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, cargv[0], nullptr, nullptr, cargv.data(), environ);
  TAPIR_CHECK(spawned == 0, "cannot start ", argv[0], " (", std::strerror(spawned), ")");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    TAPIR_CHECK(errno == EINTR, "waiting for ", argv[0], ": ", std::strerror(errno));
  TAPIR_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the claim's command failed: ", shown);
}

// The commit of this build ("5a401df"), from its stamp.
std::string build_commit() {
  const std::string& stamp = build_stamp();
  const size_t at = stamp.find("commit ");
  if (at == std::string::npos) return "";
  const size_t end = stamp.find(',', at);
  return stamp.substr(at + 7, end == std::string::npos ? std::string::npos : end - at - 7);
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
}

// Where an experiment's runs go: out/ID, out/ID-quick for the quick budget.
std::string experiment_dir(const ClaimExperiment& e, const ClaimsOptions& o) {
  return o.out + "/" + e.id + (o.quick ? "-quick" : "");
}

// Stage I (when the experiment has one) and Stage II of one experiment in
// experiment_dir, under `budget`; the commands reuse what an earlier, killed run
// finished. Returns the seconds it took.
double run_experiment(const ClaimExperiment& e, const ClaimBudget& budget, const ClaimsOptions& o,
                      const std::string& searches_dir) {
  const std::string dir = experiment_dir(e, o);
  const std::string steps = std::to_string(budget.steps > 0 ? budget.steps : e.steps);
  // Stage I's own steps scale with a budget's as Stage II's do.
  const int64_t own_search_steps = e.search_steps > 0 ? e.search_steps : e.steps;
  const std::string search_steps = std::to_string(
      budget.steps > 0 ? std::max<int64_t>(1, own_search_steps * budget.steps / e.steps)
                       : own_search_steps);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> arch_files;
  if (e.search) {
    // Each search in its own folder, seeded as `search --repeat` seeds them:
    // a finished one is kept, a stopped one resumed.
    for (int k = 0; k < budget.searches; ++k) {
      const std::string search_dir = searches_dir + "/search/search-" + std::to_string(k);
      if (folder_state(search_dir).finished()) {
        std::printf("claims: %s is finished; kept\n", search_dir.c_str());
      } else if (std::filesystem::exists(search_dir)) {
        run_tapir({"search", "--resume", search_dir, "--threads", "1"}, o.ranks);
      } else {
        std::vector<std::string> search = {"search"};
        search.insert(search.end(), e.task.begin(), e.task.end());
        search.insert(search.end(), {"--protocol", e.protocol, "--steps", search_steps, "--seed",
                                     std::to_string(static_cast<uint64_t>(k) * kSearchSeedStride),
                                     "--threads", "1", "--out", search_dir});
        search.insert(search.end(), e.search_flags.begin(), e.search_flags.end());
        run_tapir(search, o.ranks);
      }
      arch_files.push_back("--arch-file");
      arch_files.push_back(search_dir + "/arch.safetensors");
      // Each control of this search's functions, pooled by kind over the searches.
      for (const std::string& kind : e.controls) {
        const std::string file =
            dir + "/controls/search-" + std::to_string(k) + "-" + kind + ".safetensors";
        std::filesystem::create_directories(dir + "/controls");
        std::printf("claims: %s\n",
                    write_control(search_dir + "/arch.safetensors", parse_name<ArchControl>(kind),
                                  -3, 3, static_cast<uint64_t>(k), file)
                        .c_str());
        arch_files.push_back("--variant");
        arch_files.push_back("arch:" + file + ",pool=control-" + kind);
      }
    }
  }
  if (e.command == "robust-compare") {
    std::vector<std::string> robust = {"robust-compare"};
    robust.insert(robust.end(), e.task.begin(), e.task.end());
    robust.insert(robust.end(), {"--steps", steps, "--seeds", std::to_string(budget.seeds),
                                 "--threads", "1", "--arm-name", e.arm, "--out", dir + "/robust"});
    robust.insert(robust.end(), e.compare_flags.begin(), e.compare_flags.end());
    run_tapir(robust, o.ranks);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  std::vector<std::string> compare = {"compare"};
  compare.insert(compare.end(), e.task.begin(), e.task.end());
  compare.insert(compare.end(), {"--protocol", e.protocol, "--steps", steps, "--seeds",
                                 std::to_string(budget.seeds), "--threshold", e.threshold,
                                 "--threads", "1", "--out", dir + "/compare"});
  compare.insert(compare.end(), e.compare_flags.begin(), e.compare_flags.end());
  compare.insert(compare.end(), arch_files.begin(), arch_files.end());
  run_tapir(compare, o.ranks);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int run_claims(const ClaimsOptions& o) {
  TAPIR_CHECK(o.ranks >= 1, "--ranks expects a number of processes >= 1, got ", o.ranks);
#if !TAPIR_HAS_MPI
  TAPIR_CHECK(o.ranks == 1, "--ranks ", o.ranks, ": this build has no MPI (tapir --version)");
#endif
  const std::vector<ClaimRecord> records = read_claims(o.records);
  const std::map<std::string, ClaimExperiment> experiments = read_claim_experiments(o.experiments);
  const std::vector<ClaimRecord> todo = chosen_claims(records, o.ids);
  const bool all = o.ids.empty() || (o.ids.size() == 1 && o.ids[0] == "all");
  // Which experiments to run, each once for all the claims it measures.
  std::vector<std::string> order;
  for (const ClaimRecord& r : todo) {
    const bool runnable = r.measure && !r.measure->experiment.empty();
    if (!runnable) {
      TAPIR_CHECK(all, "claim ", r.id, " has no experiment the runner can run; it is measured by ",
                  r.command.empty() ? "nothing yet" : r.command);
      continue;
    }
    // An experiment a claim is measured against runs first.
    for (const std::string& id : {r.measure->against, r.measure->experiment}) {
      if (id.empty()) continue;
      TAPIR_CHECK(experiments.count(id), o.experiments, ": no experiment ", tapir::quoted(id),
                  " (claim ", r.id, ")");
      if (std::find(order.begin(), order.end(), id) == order.end()) order.push_back(id);
    }
  }
  struct Done {
    std::string path;  // compare.json or summary_ARM.json
    Json results;
    double seconds = 0;
    bool robust = false;
  };
  std::map<std::string, Done> done;
  for (const std::string& id : order) {
    const ClaimExperiment& e = experiments.at(id);
    const ClaimBudget& budget = o.quick ? e.quick : e.full;
    std::printf("claims: experiment %s (%s), %s budget: %d searches x %d seeds\n", id.c_str(),
                e.about.c_str(), o.quick ? "quick" : "full", e.search ? budget.searches : 0,
                budget.seeds);
    Done d;
    // Another experiment's searches are used as they are: they must be there.
    const std::string searches = e.searches_from.empty()
                                     ? experiment_dir(e, o)
                                     : experiment_dir(experiments.at(e.searches_from), o);
    TAPIR_CHECK(
        e.searches_from.empty() || std::filesystem::is_directory(searches + "/search/search-0"),
        "experiment ", tapir::quoted(id), " uses the searches of ", tapir::quoted(e.searches_from),
        ", which has none in ", searches, "/search: run one of its claims first");
    d.seconds = run_experiment(e, budget, o, searches);
    const std::string dir = experiment_dir(e, o);
    d.robust = e.command == "robust-compare";
    d.path = d.robust ? dir + "/robust/summary_" + e.arm + ".json" : dir + "/compare/compare.json";
    d.results = read_json_file(d.path);
    done.emplace(id, std::move(d));
  }
  const std::string into = o.into.empty() ? o.records : o.into;
  for (ClaimRecord r : todo) {
    if (!r.measure || r.measure->experiment.empty()) continue;
    const ClaimMeasure& m = *r.measure;
    const Done& d = done.at(m.experiment);
    ClaimResult result;
    if (!m.against.empty()) {
      const Done& other = done.at(m.against);
      result = result_between(m, d.results, other.results);
      result.wall_s = d.seconds + other.seconds;
      result.source = d.path + " against " + other.path;
    } else {
      result = d.robust            ? result_from_robust_summary(m, d.results)
               : !m.versus.empty() ? result_versus(m, d.results)
                                   : result_from_compare(m, d.results);
      result.wall_s = d.seconds;
      result.source = d.path;
    }
    result.budget = o.quick ? "quick" : "full";
    result.commit = build_commit();
    result.date = today();
    r.result = result;
    write_claim(into, r);
    std::printf("%s\n", claim_line(r).c_str());
  }
  return 0;
}

int list_claims(const ClaimsOptions& o) {
  for (const ClaimRecord& r : chosen_claims(read_claims(o.records), o.ids))
    std::printf("%s\n", claim_line(r).c_str());
  return 0;
}

}  // namespace tapir
