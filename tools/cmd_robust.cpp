// `tapir robust`: a checkpoint's metric under test-time input noise of
// growing strength gamma (gaussian or uniform noise on the embeddings,
// discrete token replacement; extra frame noise for denoise), mean and spread
// over noise seeds; a table per noise kind and one SVG plot
// (report/checkpoint_report.h).
#include <memory>

#include "report/checkpoint_report.h"
#include "tasks/task.h"
#include "tools/checkpoint_options.h"
#include "tools/commands.h"

namespace tapir {

Command add_robust_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("robust", "Metric under input noise of growing strength");
  struct Options {
    CheckpointOptions checkpoint;
    RobustReportOptions report;
    std::string gamma = "0,0.25,0.5,1,1.5,2";
  };
  auto o = std::make_shared<Options>();
  add_checkpoint_options(*cmd, o->checkpoint);
  cmd->add_option("--noise", o->report.noise,
                  "gaussian | uniform | discrete (comma-separated for several)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--gamma", o->gamma, "Noise strengths, comma-separated")->capture_default_str();
  cmd->add_option("--repeats", o->report.repeats, "Noise seeds per gamma")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--seed", o->report.seed, "First noise seed")->capture_default_str();
  cmd->add_option("--split", o->report.split, "Evaluation split")->capture_default_str();
  cmd->add_option("--svg", o->report.svg,
                  "Plot file (default RUN/robust_SPLIT.svg; 'none': no plot)");
  cmd->add_flag("--json", o->report.json, "Print one JSON object per noise kind and gamma");
  return {cmd, [o]() {
            const std::vector<double> gammas = parse_double_list(o->gamma, "--gamma");
            return print_robustness(open_checkpoint(o->checkpoint), o->checkpoint.checkpoint,
                                    gammas, o->report);
          }};
}

}  // namespace tapir
