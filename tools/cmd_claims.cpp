// `tapir claims`: the papers' claims as records (lab/claims.h), its work in
// lab/claims_run.h (list, run) and report/claims_pages.h (render).
//   claims list [ID...]      one line per record: claim, paper, here, status
//   claims run ID... | all   measure each claim from its experiment and
//                            rewrite its record
//   claims render [--check]  docs/claims.md, docs/claims.html and the
//                            README's tally from the records
#include <memory>

#include "report/claims_pages.h"
#include "tools/commands.h"

namespace tapir {

Command add_claims_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "claims", "The papers' claims as records: list them, measure them, render the table");
  cmd->require_subcommand(1);
  auto o = std::make_shared<ClaimsOptions>();
  auto records_option = [o](CLI::App* sub) {
    sub->add_option("--records", o->records, "Folder of claim records (one ID.json per row)")
        ->capture_default_str();
  };
  auto* list = cmd->add_subcommand("list", "One line per claim record: claim, paper, here, status");
  list->add_option("ids", o->ids, "Records to show (default: all)");
  records_option(list);

  auto* run = cmd->add_subcommand(
      "run", "Measure claims from their experiments (Stage I, Stage II) and rewrite their records");
  run->add_option("ids", o->ids, "Records to measure, or all")->required();
  records_option(run);
  run->add_option("--experiments", o->experiments, "The experiments file")->capture_default_str();
  run->add_option("--out", o->out, "Where the experiments' runs go (reused when rerun)")
      ->capture_default_str();
  run->add_option("--into", o->into, "Write the measured records here (default: --records)");
  run->add_flag("--quick", o->quick,
                "The quick budget (fewer searches, seeds, steps): a smoke test, marked as such");
  run->add_option("--ranks", o->ranks,
                  "Processes per command under mpirun (a build with MPI), sharing the runs")
      ->capture_default_str();

  auto* rend = cmd->add_subcommand(
      "render", "Write docs/claims.md, docs/claims.html and README.md's tally from the records");
  records_option(rend);
  rend->add_option("--md", o->md, "The table")->capture_default_str();
  rend->add_option("--html", o->html, "The page of forest plots")->capture_default_str();
  rend->add_option("--readme", o->readme, "The README whose tally is replaced")
      ->capture_default_str();
  rend->add_flag("--check", o->check,
                 "Write nothing; exit 1 when a file differs from what the records give");
  return {cmd, [o, list, run]() {
            if (list->parsed()) return list_claims(*o);
            if (run->parsed()) return run_claims(*o);
            return render_claims(*o);
          }};
}

}  // namespace tapir
