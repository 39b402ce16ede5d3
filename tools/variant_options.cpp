// Variant specs as train flags (tools/variant_options.h).
#include "tools/variant_options.h"

#include <sstream>

#include "base/error.h"
#include "tasks/task.h"
#include "tools/train_options.h"

namespace tapir {

Variant parse_variant(const std::string& spec) {
  Variant v{spec, {}, {}};
  if (spec == "baseline") return v;
  std::stringstream in(spec);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.rfind("arch:", 0) == 0) item = "arch=" + item.substr(5);
    if (item.rfind("pool=", 0) == 0) {  // not a train option: the row it is pooled into
      TAPIR_CHECK(item.size() > 5 && v.pool.empty(), "variant '", spec,
                  "': pool=NAME names one pool, got '", item, "'");
      v.pool = item.substr(5);
      continue;
    }
    TAPIR_CHECK(!item.empty() && item[0] != '=' && item[0] != '-', "variant '", spec,
                "': expected baseline, arch:FILE, key=value or flag items, got '", item, "'");
    // One argument "--key=value" (or "--flag"): CLI11 reads it for options and
    // for flags alike (detach-previous=true, or just detach-previous).
    v.args.push_back("--" + item);
  }
  return v;
}

TrainConfig apply_variant(const TrainConfig& base, const Variant& variant) {
  CLI::App app{"variant"};
  TrainOptions o;
  add_train_options(app, o);
  // After registering: --threads takes the usable cores as its default there.
  o.config = base;
  std::vector<std::string> args(variant.args.rbegin(),
                                variant.args.rend());  // CLI11 wants reversed
  try {
    app.parse(args);
    TrainConfig c = finish_train_options(app, o);
    // Unknown items end up as task options: building the task checks them
    // now rather than after the variants before it have trained.
    make_task(c.task, c.task_options);
    return c;
  } catch (const CLI::ParseError& e) {
    fail("variant '", variant.name, "': ", e.what());
  } catch (const Error& e) {
    fail("variant '", variant.name, "': ", e.what());
  }
}

}  // namespace tapir
