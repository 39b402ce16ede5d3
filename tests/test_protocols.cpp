// --protocol (tools/protocols.h): each protocol's flags by stage, as shares
// of the steps; what the user gives wins; the record names what was set;
// and docs/protocols.md lists every flag of every protocol with its value.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "base/json.h"
#include "tests/parsed_flags.h"
#include "tests/test_support.h"
#include "tools/commands.h"
#include "tools/protocols.h"

using namespace tapir;

namespace {

using Parsed = test_support::ParsedFlags;

bool has(const std::vector<std::string>& flags, const std::string& flag) {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

}  // namespace

TEST_CASE("--protocol authors on a search: Stage I as their code, the weights' trapezoid") {
  Parsed p(true);
  p.parse({"--task", "add", "--steps", "300", "--search-steps", "600", "--arch-grad", "sum"});
  ProtocolRecord r = apply_protocol(p.app, "authors", ProtocolStage::search,
                                    {p.train.config.steps, p.search.steps, /*search=*/true});
  TrainConfig c = finish_train_options(p.app, p.train);
  apply_protocol_task_options("authors", c.task, c.task_options, r);
  const SearchConfig& s = p.search;
  CHECK(s.arch_grad == ArchGrad::sum);  // given: the user wins
  CHECK_FALSE(has(r.flags, "--arch-grad mean"));
  CHECK(s.arch_split == ArchSplit::train);
  CHECK(s.stagger == Stagger::continue_);
  CHECK(s.arch_schedule.kind == Schedule::Kind::trapezoid);
  CHECK(s.arch_schedule.warmup == 60);  // of the search's 600 steps
  CHECK(s.arch_schedule.decay == 300);
  CHECK(s.arch_schedule.min_ratio == 0);
  CHECK(c.model.mlp_spline.grid.knots() == 64);
  CHECK(c.model.mlp_spline.grid.lo() == -15);
  CHECK_FALSE(c.model.mlp_spline.grid.linear());  // constant outside the knots
  CHECK(c.schedule.kind == Schedule::Kind::trapezoid);
  CHECK(c.schedule.warmup == 30);  // of a model's 300 steps
  CHECK(c.schedule.decay == 150);
  CHECK(c.schedule.min_ratio == 0);
  CHECK(c.task_options.values().at("arch-frac") == "0");
  CHECK(r.name == "authors");
  CHECK(has(r.flags, "--stagger continue"));
  CHECK(has(r.flags, "--warmup 30"));
  CHECK(has(r.flags, "--opt arch-frac=0"));
  CHECK(protocol_note(r).rfind("protocol authors: using --spline-knots 64", 0) == 0);
}

TEST_CASE("--protocol authors in Stage II sets the weights' trapezoid and nothing of Stage I") {
  Parsed p(false);  // compare's flags: no search flags, but the spline grid is there
  p.parse({"--task", "copy", "--steps", "1500", "--warmup", "100"});
  const ProtocolRecord r =
      apply_protocol(p.app, "authors", ProtocolStage::stage2, {p.train.config.steps, 0, false});
  const TrainConfig c = finish_train_options(p.app, p.train);
  CHECK(c.schedule.kind == Schedule::Kind::trapezoid);
  CHECK(c.schedule.warmup == 100);  // given
  CHECK(c.schedule.decay == 750);
  CHECK(c.model.mlp_spline.grid.knots() == SplineConfig{}.grid.knots());
  CHECK(r.flags ==
        std::vector<std::string>{"--schedule trapezoid", "--decay 750", "--min-lr-ratio 0"});
}

TEST_CASE("--protocol paper states the paper's Stage I; tapir sets nothing") {
  Parsed p(true);
  p.parse({"--task", "add", "--steps", "300"});
  const ProtocolRecord r =
      apply_protocol(p.app, "paper", ProtocolStage::search, {300, 0, /*search=*/true});
  const TrainConfig c = finish_train_options(p.app, p.train);
  CHECK(p.search.models == 8);
  CHECK(p.search.arch_split == ArchSplit::arch);
  CHECK(p.search.stagger == Stagger::off);
  CHECK(c.model.mlp_spline.grid.knots() == 122);
  CHECK(c.model.mlp_spline.grid.hi() == 20);
  CHECK(c.schedule.kind == Schedule::Kind::constant);  // Stage II's "standard settings"
  CHECK(r.flags.size() == 6);
  CHECK(protocol_flags("paper", ProtocolStage::stage2, {300, 0, false}).empty());
  CHECK(protocol_flags("tapir", ProtocolStage::search, {300, 0, true}).empty());
  CHECK(protocol_flags("tapir", ProtocolStage::stage2, {300, 0, false}).empty());
  CHECK(protocol_task_options("paper").empty());
  CHECK(protocol_note(apply_protocol(p.app, "tapir", ProtocolStage::search, {300, 0, true})) == "");
}

TEST_CASE("--protocol refuses a name it does not know") {
  CHECK_THROWS_WITH_AS(protocol_flags("authorz", ProtocolStage::search, {}),
                       "unknown protocol 'authorz' (known: tapir, paper, authors)", Error);
  CLI::App app{"test"};
  std::string name = default_protocol();
  add_protocol_option(app, name);
  CHECK_THROWS_AS(app.parse(std::vector<std::string>{"papers", "--protocol"}),
                  CLI::ValidationError);
}

TEST_CASE("docs/protocols.md lists every flag of every protocol with its value") {
  const auto path =
      std::filesystem::path(__FILE__).parent_path().parent_path() / "docs" / "protocols.md";
  std::ifstream in(path);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  // At 20000 steps (the authors' own run), each flag as a table row names it.
  for (const std::string& name : protocol_names())
    for (ProtocolStage stage : {ProtocolStage::search, ProtocolStage::stage2})
      for (const PresetFlag& f : protocol_flags(name, stage, {20000, 20000, true})) {
        CAPTURE(name);
        CAPTURE(f.flag);
        CHECK(doc.find("| `" + f.flag + "` |") != std::string::npos);
        CHECK(doc.find(f.reference) != std::string::npos);
      }
}

namespace {

// Runs `tapir COMMAND ARGS...` as tools/main.cpp would, with one command added.
void run_command(Command (*add)(CLI::App&), const std::string& name,
                 std::vector<std::string> args) {
  CLI::App app{"tapir"};
  Command command = add(app);
  args.insert(args.begin(), name);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 wants reversed
  app.parse(reversed);
  command.run();
}

Json config_at(const std::filesystem::path& path) {
  return parse_json(read_file(path.string()));
}

}  // namespace

TEST_CASE("search, compare and transfer record the protocol in every run they set") {
  test_support::TempDir tmp;
  const std::vector<std::string> tiny = {
      "--task",    "add", "--opt",   "digits=2", "--width",      "16", "--heads",      "2",
      "--layers",  "1",   "--steps", "20",       "--eval-every", "10", "--eval-limit", "32",
      "--threads", "1",   "--quiet"};
  std::vector<std::string> search = {"--protocol", "authors", "--models",
                                     "2",          "--out",   tmp.file("s")};
  search.insert(search.begin(), tiny.begin(), tiny.end());
  run_command(add_search_command, "search", search);
  const Json s = config_at(tmp.path() / "s" / "search.json");
  CHECK(s.at("base").at("protocol").at("name").as_string() == "authors");
  CHECK(s.at("base").at("task_options").at("arch-frac").as_string() == "0");
  CHECK(s.at("stagger_mode").as_string() == "continue");
  const Json model = config_at(tmp.path() / "s" / "models" / "model-0" / "config.json");
  CHECK(model.at("protocol") == s.at("base").at("protocol"));
  CHECK(model.at("schedule").at("kind").as_string() == "trapezoid");

  std::vector<std::string> compare = {
      "--protocol", "authors",     "--seeds",
      "1",          "--arch-file", (tmp.path() / "s" / "arch.safetensors").string(),
      "--out",      tmp.file("c")};
  compare.insert(compare.begin(), tiny.begin(), tiny.end());
  run_command(add_compare_command, "compare", compare);
  const Json baseline = config_at(tmp.path() / "c" / "baseline" / "seed-0" / "config.json");
  CHECK(baseline.at("protocol").at("name").as_string() == "authors");
  CHECK(baseline.at("protocol").at("flags").size() == 4);  // the weights' trapezoid alone
  CHECK(baseline.at("schedule").at("decay").as_int() == 10);
  // Without --protocol: tapir's, which sets nothing; the finished runs of
  // the authors' comparison are not this one's (their schedules differ).
  compare.erase(compare.begin() + static_cast<long>(tiny.size()),
                compare.begin() + static_cast<long>(tiny.size()) + 2);
  compare.back() = tmp.file("c2");
  run_command(add_compare_command, "compare", compare);
  const Json plain = config_at(tmp.path() / "c2" / "baseline" / "seed-0" / "config.json");
  CHECK(plain.at("protocol").at("name").as_string() == "tapir");
  CHECK(plain.at("protocol").at("flags").size() == 0);

  run_command(
      add_transfer_command, "transfer",
      {"--tasks",  "add,copy", "--protocol",   "authors", "--width",        "16", "--heads",   "2",
       "--layers", "1",        "--steps",      "20",      "--search-steps", "20", "--models",  "2",
       "--seeds",  "1",        "--eval-every", "10",      "--eval-limit",   "32", "--threads", "1",
       "--quiet",  "--out",    tmp.file("t")});
  const Json t = config_at(tmp.path() / "t" / "search-copy" / "search.json");
  const Json& flags = t.at("base").at("protocol").at("flags");
  CHECK(t.at("base").at("protocol").at("name").as_string() == "authors");
  CHECK(t.at("base").at("task_options").at("arch-frac").as_string() == "0");
  bool copy_option = false;
  for (const Json& f : flags.as_array())
    copy_option |= f.as_string() == "--task-opt copy:arch-frac=0";
  CHECK(copy_option);
}
