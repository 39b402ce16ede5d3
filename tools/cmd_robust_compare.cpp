// `tapir robust-compare`: ERM against per-layer descent constraints over
// several seeds (lab/robust_compare.h). The constrained arm is DIR/<arm>_s<seed>
// (arm "descent" unless --arm-name); every other option is the same for both.
#include "lab/robust_compare.h"
#include "report/robust_figures.h"
#include "tasks/task.h"
#include "tools/commands.h"
#include "tools/train_options.h"

namespace tapir {

Command add_robust_compare_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "robust-compare", "Train ERM and descent-constrained runs over seeds and compare them");
  struct Options {
    TrainOptions train;
    RobustCompareConfig config;
    std::string gamma = "0,0.25,0.5,1,1.5,2";
  };
  auto o = std::make_shared<Options>();
  RobustCompareConfig& c = o->config;
  add_train_options(*cmd, o->train);
  note_defaults_unlike_train(*cmd);
  cmd->add_option("--out", c.out, "Folder for the runs and the report")->required();
  cmd->add_option("--arm-name", c.arm, "Name of the constrained runs (DIR/NAME_s<seed>)")
      ->capture_default_str();
  cmd->add_option("--seeds", c.seeds, "Seeds per arm: seed, seed + 1, ...")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_option("--noise", c.noise, "Noise kinds (comma-separated; discrete needs tokens)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--gamma", o->gamma, "Noise strengths")->capture_default_str();
  cmd->add_option("--repeats", c.repeats, "Noise seeds per gamma and run")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--split", c.split, "Split for the profile and the noise")->capture_default_str();
  cmd->add_option("--limit", c.limit, "Max examples per evaluation (0: all)");
  cmd->add_flag("--quiet", c.quiet, "Print only the tables");
  return {
      cmd,
      [o, cmd]() {
        RobustCompareConfig config = o->config;
        config.base = finish_train_options(*cmd, o->train);
        config.note =
            settings_note(o->train, config.base.task, recommend_unless_given(*cmd, config.base));
        TAPIR_CHECK(config.base.constraint.enabled() || config.base.train_noise != TrainNoise::none,
                    "robust-compare needs --constraint descent or deep-supervision, or "
                    "--train-noise (the arm compared with ERM)");
        TAPIR_CHECK(!config.arm.empty() && config.arm != "erm" &&
                        config.arm.find_first_of("/ ") == std::string::npos,
                    "--arm-name must be a plain name other than erm, got '", config.arm, "'");
        config.gammas = parse_double_list(o->gamma, "--gamma");
        if (run_robust_compare(config)) write_robust_compare_figures(config.out, config.arm);
        return 0;
      },
      Ranks::several};
}

}  // namespace tapir
