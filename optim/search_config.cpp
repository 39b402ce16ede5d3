// SearchConfig and SearchOutcome (optim/search_config.h): their checks and
// their JSON.
#include "optim/search_config.h"

#include <cmath>
#include <cstdio>

#include "base/json_fields.h"

namespace tapir {

OptimizerConfig SearchConfig::default_arch_optimizer() {
  OptimizerConfig c;
  c.kind = OptimizerKind::adam;
  c.beta1 = 0.99;
  c.beta2 = 0.999;
  c.eps = 1e-8;
  c.weight_decay = 0;
  return c;
}

void SearchConfig::validate() const {
  base.validate();
  TAPIR_CHECK(models >= 1 && models <= 256, "search: models must be in [1, 256], got ", models);
  TAPIR_CHECK(steps >= 0, "search: search-steps must be 0 (--steps) or positive, got ", steps);
  TAPIR_CHECK(arch_lr > 0 && std::isfinite(arch_lr), "search: arch-lr must be positive, got ",
              arch_lr);
  TAPIR_CHECK(smoothness >= 0, "search: smoothness must be non-negative, got ", smoothness);
  TAPIR_CHECK(amplitude >= 0, "search: amplitude must be non-negative, got ", amplitude);
  TAPIR_CHECK(arch_batch >= 0, "search: arch-batch must be non-negative, got ", arch_batch);
  TAPIR_CHECK(snapshot_every >= 0,
              "search: snapshot-every must be 0 (--eval-every) or positive, got ", snapshot_every);
  arch_optimizer.validate("search: arch-");
  arch_lr_schedule().check(resolved().steps, "arch-");
}

Schedule SearchConfig::arch_lr_schedule() const {
  Schedule s = arch_schedule;
  s.base_lr = arch_lr;
  s.total = resolved().steps;
  return s;
}

SearchConfig SearchConfig::resolved() const {
  SearchConfig c = *this;
  if (c.steps == 0) c.steps = c.base.steps;
  if (c.arch_batch == 0) c.arch_batch = c.base.batch;
  if (c.snapshot_every == 0) c.snapshot_every = c.base.eval_every;
  // The weights train on D_wts, the train split; the arch split is D_arch's.
  c.base.train_on = TrainOn::train;
  return c;
}

Json SearchConfig::to_json() const {
  return fields_to_json(*this);
}

SearchConfig SearchConfig::from_json(const Json& j) {
  SearchConfig c;
  fields_from_json(j, c);
  c.validate();  // the model is checked when the search builds it (its vocab comes from the task)
  return c;
}

bool SearchOutcome::near_chance() const {
  return final_accuracy < untrained_accuracy + 0.1 * (1.0 - untrained_accuracy);
}

std::string SearchOutcome::verdict() const {
  char buf[320];
  if (near_chance())
    std::snprintf(buf, sizeof buf,
                  "warning: the models ended near chance: mean test accuracy %.4f after %lld "
                  "steps, %.4f untrained (largest |knot| %.3g); the learned functions are "
                  "unlikely to help (try more --steps, a lower --arch-lr or --amplitude)",
                  final_accuracy, static_cast<long long>(steps), untrained_accuracy, knot_abs_max);
  else
    std::snprintf(buf, sizeof buf,
                  "the models reached mean test accuracy %.4f after %lld steps (%.4f untrained; "
                  "largest |knot| %.3g)",
                  final_accuracy, static_cast<long long>(steps), untrained_accuracy, knot_abs_max);
  std::string line = buf;
  if (model0_accuracy >= 0) {
    std::snprintf(buf, sizeof buf, "; model 0 ended at %.4f", model0_accuracy);
    line += buf;
  }
  return line;
}

Json SearchOutcome::to_json() const {
  Json j = Json::object();
  j.set("steps", steps);
  if (wall_s >= 0) j.set("wall_s", wall_s);
  j.set("untrained_mean_test_accuracy", untrained_accuracy);
  j.set("final_mean_test_accuracy", final_accuracy);
  j.set("knot_abs_max", knot_abs_max);
  if (model0_accuracy >= 0) j.set("model0_test_accuracy", model0_accuracy);
  j.set("near_chance", near_chance());
  return j;
}

SearchOutcome SearchOutcome::from_json(const Json& j) {
  SearchOutcome o;
  JsonFieldReader::read(j, "", [&](JsonFieldReader& f) {
    f.required("steps", o.steps);
    f.optional("wall_s", o.wall_s);
    f.required("untrained_mean_test_accuracy", o.untrained_accuracy);
    f.required("final_mean_test_accuracy", o.final_accuracy);
    f.required("knot_abs_max", o.knot_abs_max);
    f.optional("model0_test_accuracy", o.model0_accuracy);
    bool near_chance = false;  // written for readers of the file; follows from the above
    f.optional("near_chance", near_chance);
  });
  return o;
}

}  // namespace tapir
