#include "optim/train_config.h"

#include <cmath>

#include "base/json_fields.h"
#include "engine/threads.h"

namespace tapir {

void TrainConfig::validate() const {
  TAPIR_CHECK(steps >= 1, "steps must be at least 1, got ", steps);
  TAPIR_CHECK(batch >= 1 && batch <= 1 << 20, "batch must be in [1, 1048576], got ", batch);
  TAPIR_CHECK(eval_every >= 1, "eval-every must be at least 1, got ", eval_every);
  TAPIR_CHECK(eval_batch >= 1, "eval-batch must be at least 1, got ", eval_batch);
  TAPIR_CHECK(eval_limit >= 0, "eval-limit must be 0 (all) or positive, got ", eval_limit);
  check_thread_count(threads);
  TAPIR_CHECK(std::isfinite(clip) && clip >= 0, "clip must be 0 (off) or positive, got ", clip);
  TAPIR_CHECK(stop_at >= 0 && stop_at <= 1, "stop-at must be in [0, 1], got ", stop_at);
  TAPIR_CHECK(schedule.base_lr > 0 && std::isfinite(schedule.base_lr), "lr must be positive, got ",
              schedule.base_lr);
  schedule.check(schedule.total > 0 ? schedule.total : steps, "");
  TAPIR_CHECK(!arch_trainable || !arch_file.empty(), "arch-trainable needs an arch file (--arch)");
  TAPIR_CHECK((train_noise == TrainNoise::none) == (train_gamma == 0) &&
                  std::isfinite(train_gamma) && train_gamma >= 0,
              "train-noise and train-gamma go together: a noise with a positive gamma, or none "
              "with 0; got ",
              name_of(train_noise), " at ", train_gamma);
  TAPIR_CHECK(train_noise == TrainNoise::none || !constraint.enabled(),
              "train-noise is noise-augmented ERM; it does not take --constraint");
  TAPIR_CHECK(eval_on != EvalOn::arch || train_on == TrainOn::train,
              "eval-on arch needs train-on train: on all of D the arch split is training data");
  optimizer.validate();
  constraint.validate(model.layers);
}

Json TrainConfig::to_json() const {
  return fields_to_json(*this);
}

TrainConfig TrainConfig::from_json(const Json& j) {
  TrainConfig c;
  c.train_on = TrainOn::train;  // what a config.json written before the field meant
  fields_from_json(j, c);
  c.model.validate();
  c.validate();
  return c;
}

}  // namespace tapir
