// `tapir compare`: train variants over the same seeds and compare how fast
// and how reliably they reach a test-accuracy threshold.
#include <cstdio>
#include <filesystem>

#include "engine/file_io.h"
#include "tools/commands.h"
#include "tools/compare.h"
#include "tools/train_options.h"

namespace tapir {

Command add_compare_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "compare", "Train variants (baseline, architectures, options) over seeds and compare them");
  struct Options {
    TrainOptions train;
    std::vector<std::string> variants;
    std::string arch, out;
    int seeds = 5;
    double threshold = 0.99;
    bool quiet = false;
  };
  auto o = std::make_shared<Options>();
  add_train_options(*cmd, o->train);
  cmd->add_option("--variant", o->variants,
                  "A variant: baseline, arch:FILE, or key=value,... train options (repeatable)");
  cmd->add_option("--arch-file", o->arch, "Shorthand for --variant baseline --variant arch:FILE");
  cmd->add_option("--seeds", o->seeds, "Seeds per variant (seed, seed+1, ...)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--threshold", o->threshold, "Test accuracy counted as solved")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Folder for the runs and the comparison")->required();
  cmd->add_flag("--quiet", o->quiet, "Print only the table");
  return {cmd, [o, cmd]() {
            CompareOptions c;
            c.base = finish_train_options(*cmd, o->train);
            std::vector<std::string> specs = o->variants;
            if (!o->arch.empty()) {
              specs.insert(specs.begin(), "arch:" + o->arch);
              specs.insert(specs.begin(), "baseline");
            }
            if (specs.empty()) specs = {"baseline"};
            for (const std::string& s : specs) c.variants.push_back(parse_variant(s));
            c.seeds = o->seeds;
            c.threshold = o->threshold;
            c.out_dir = o->out;
            c.quiet = o->quiet;
            std::filesystem::create_directories(o->out);
            const std::vector<VariantResult> results = run_compare(c);
            const std::string table = compare_table_markdown(results, c.threshold);
            write_file_atomic(o->out + "/compare.md", table);
            write_file_atomic(o->out + "/compare.json", compare_json(results, c.threshold));
            std::printf("\n%s\nwrote %s/compare.md and compare.json\n", table.c_str(),
                        o->out.c_str());
            return 0;
          }};
}

}  // namespace tapir
