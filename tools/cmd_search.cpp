// `tapir search`: Stage I, M models sharing one set of learned functions
// (optim/search.h). Writes DIR/arch.safetensors, snapshots of the functions
// over time, each model's metrics and the search's own log.
#include <cstdio>
#include <filesystem>

#include "base/folder_lock.h"
#include "engine/dist.h"
#include "lab/compare.h"
#include "lab/progress.h"
#include "optim/search.h"
#include "tools/commands.h"
#include "tools/train_options.h"

namespace tapir {

namespace {

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

Command add_search_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "search", "Stage I: learn shared nonlinearities with M models (writes arch.safetensors)");
  struct Options {
    TrainOptions train;
    SearchConfig search;
    std::string arch_grad = "sum", out, resume;
    bool force = false, quiet = false;
  };
  auto o = std::make_shared<Options>();
  o->train.config.model.mlp_act = MlpAct::spline;  // a search learns something by default
  add_train_options(*cmd, o->train);
  note_defaults_unlike_train(*cmd);
  auto* g = "Search";
  SearchConfig& s = o->search;
  cmd->add_option("--models", s.models, "Models sharing the functions (M)")
      ->group(g)
      ->capture_default_str();
  cmd->add_option("--search-steps", s.steps, "Steps of the search (0: --steps, one lifetime)")
      ->group(g)
      ->capture_default_str();
  cmd->add_flag("--stagger", s.stagger,
                "Model m starts at step m*N/M and restarts after N steps (N = --steps)")
      ->group(g);
  cmd->add_option("--arch-optimizer", s.arch_optimizer.name, "Optimizer of the functions")
      ->group(g)
      ->capture_default_str();
  cmd->add_option("--arch-lr", s.arch_lr, "Learning rate of the functions")
      ->group(g)
      ->capture_default_str();
  cmd->add_option("--arch-beta1", s.arch_optimizer.beta1, "Their Adam beta1")
      ->group(g)
      ->capture_default_str();
  cmd->add_option("--arch-beta2", s.arch_optimizer.beta2, "Their Adam beta2")
      ->group(g)
      ->capture_default_str();
  cmd->add_option("--arch-grad", o->arch_grad, "Combine the models' D_arch gradients: sum | mean")
      ->group(g)
      ->check(CLI::IsMember({"sum", "mean"}))
      ->capture_default_str();
  add_name_option(*cmd, "--arch-split", s.arch_split,
                  "Split of the D_arch batches (train: the weights' own data, as the authors' "
                  "code)")
      ->group(g);
  cmd->add_option("--smoothness", s.smoothness, "Penalty on squared second differences of knots")
      ->group(g)
      ->capture_default_str();
  cmd->add_option("--amplitude", s.amplitude, "Bound |knot value| after each step (0: none)")
      ->group(g)
      ->capture_default_str();
  cmd->add_option("--arch-batch", s.arch_batch, "D_arch batch size (0: --batch)")
      ->group(g)
      ->capture_default_str();
  cmd->add_option("--snapshot-every", s.snapshot_every, "Save the functions every N steps")
      ->group(g)
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Search folder to create");
  cmd->add_flag("--force", o->force, "Overwrite an existing folder");
  cmd->add_option("--resume", o->resume,
                  "Continue the search in this folder from its last evaluation");
  cmd->add_flag("--quiet", o->quiet, "Print nothing but errors");
  return {
      cmd,
      [o, cmd]() {
        namespace fs = std::filesystem;
        // Under mpirun the ranks run one search together (optim/search.h);
        // rank 0 reports.
        o->quiet = o->quiet || !dist::is_root();
        if (!o->resume.empty()) {
          check_resume_flags(*cmd, {"--search-steps", "--threads", "--device", "--quiet"},
                             "the search as its search.json",
                             "--search-steps to extend the search, --threads, --device, --quiet");
          TAPIR_CHECK(fs::is_directory(o->resume), "cannot resume ", o->resume, ": no such folder");
          const auto lock = lock_for_job(o->resume, "search folder");
          const auto search = Search::resume(
              o->resume, cmd->count("--search-steps") > 0 ? o->search.steps : 0,
              cmd->count("--device") > 0 ? std::optional<Device>(o->train.config.device)
                                         : std::nullopt,
              cmd->count("--threads") > 0 ? std::optional<int>(o->train.config.threads)
                                          : std::nullopt,
              /*over_ranks=*/true);
          Progress progress(o->quiet);
          if (!search->resume_note().empty()) progress.line(search->resume_note());
          progress.line("resuming " + o->resume + " at step " +
                        std::to_string(search->steps_done()) + " of " +
                        std::to_string(search->steps_total()));
          finish_search(*search, progress, o->resume, o->quiet);
          return 0;
        }
        TAPIR_CHECK(!o->out.empty(), "search needs --out DIR (or --resume DIR)");
        SearchConfig config = o->search;
        config.base = finish_train_options(*cmd, o->train);
        const std::string note =
            recommended_note(config.base.task, recommend_unless_given(*cmd, config.base));
        config.arch_grad_mean = o->arch_grad == "mean";
        const bool existed = fs::exists(o->out) && !fs::is_empty(o->out);
        if (existed) {
          TAPIR_CHECK(o->force, "output folder ", o->out,
                      " already exists (use --force to overwrite it)");
          TAPIR_CHECK(fs::exists(fs::path(o->out) / "search.json"),
                      "--force replaces only a tapir search folder, and ", o->out,
                      " is not one (no search.json); choose another --out or remove it "
                      "yourself");
        }
        dist::barrier();  // every rank has looked before rank 0 changes the folder
        const auto lock = lock_for_job(o->out, "search folder");
        if (existed && dist::is_root())
          for (const fs::directory_entry& e : fs::directory_iterator(o->out))
            if (e.path().filename() != FolderLock::kFile) fs::remove_all(e.path());
        dist::barrier();  // the folder is empty before any rank writes its models
        Search search(config, o->out, /*over_ranks=*/true);
        Progress progress(o->quiet);
        if (!note.empty()) progress.line(note);
        finish_search(search, progress, o->out, o->quiet);
        return 0;
      },
      Ranks::several};
}

}  // namespace tapir
