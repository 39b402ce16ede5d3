#include "optim/train_config.h"

#include <cmath>

namespace tapir {

void TrainConfig::validate() const {
  TAPIR_CHECK(steps >= 1, "steps must be at least 1, got ", steps);
  TAPIR_CHECK(batch >= 1 && batch <= 1 << 20, "batch must be in [1, 1048576], got ", batch);
  TAPIR_CHECK(eval_every >= 1, "eval-every must be at least 1, got ", eval_every);
  TAPIR_CHECK(eval_batch >= 1, "eval-batch must be at least 1, got ", eval_batch);
  TAPIR_CHECK(eval_limit >= 0, "eval-limit must be 0 (all) or positive, got ", eval_limit);
  TAPIR_CHECK(threads >= 1 && threads <= 256, "threads must be in [1, 256], got ", threads);
  TAPIR_CHECK(std::isfinite(clip), "clip must be a finite number, got ", clip);
  TAPIR_CHECK(stop_at >= 0 && stop_at <= 1, "stop-at must be in [0, 1], got ", stop_at);
  TAPIR_CHECK(schedule.base_lr > 0 && std::isfinite(schedule.base_lr), "lr must be positive, got ",
              schedule.base_lr);
  TAPIR_CHECK(schedule.warmup >= 0, "warmup must be non-negative, got ", schedule.warmup);
  TAPIR_CHECK(schedule.min_ratio >= 0 && schedule.min_ratio <= 1,
              "min-lr-ratio must be in [0, 1], got ", schedule.min_ratio);
  TAPIR_CHECK(!arch_trainable || !arch_file.empty(), "arch-trainable needs an arch file (--arch)");
  constraint.validate(model.layers);
}

Json TrainConfig::to_json() const {
  Json j = Json::object();
  j.set("task", task);
  Json opts = Json::object();
  for (const auto& [name, value] : task_options.values()) opts.set(name, value);
  j.set("task_options", opts);
  j.set("model", model.to_json());
  Json o = Json::object();
  o.set("name", optimizer.name);
  o.set("beta1", optimizer.beta1);
  o.set("beta2", optimizer.beta2);
  o.set("eps", optimizer.eps);
  o.set("weight_decay", optimizer.weight_decay);
  o.set("momentum", optimizer.momentum);
  o.set("nesterov", optimizer.nesterov);
  j.set("optimizer", o);
  Json s = Json::object();
  s.set("kind", schedule_kind_name(schedule.kind));
  s.set("lr", schedule.base_lr);
  s.set("warmup", schedule.warmup);
  s.set("total", schedule.total);
  s.set("min_ratio", schedule.min_ratio);
  j.set("schedule", s);
  j.set("constraint", constraint.to_json());
  j.set("steps", steps);
  j.set("batch", batch);
  j.set("clip", clip);
  j.set("eval_every", eval_every);
  j.set("eval_batch", eval_batch);
  j.set("eval_limit", eval_limit);
  j.set("stop_at", stop_at);
  j.set("seed", static_cast<int64_t>(seed));
  j.set("threads", threads);
  j.set("device", device_name(device));
  j.set("arch_file", arch_file);
  j.set("arch_trainable", arch_trainable);
  return j;
}

TrainConfig TrainConfig::from_json(const Json& j) {
  TrainConfig c;
  c.task = j.at("task").as_string();
  std::map<std::string, std::string> opts;
  for (const auto& [name, value] : j.at("task_options").as_object()) opts[name] = value.as_string();
  c.task_options = TaskOptions(opts);
  c.model = ModelConfig::from_json(j.at("model"));
  const Json& o = j.at("optimizer");
  c.optimizer.name = o.at("name").as_string();
  c.optimizer.beta1 = o.at("beta1").as_double();
  c.optimizer.beta2 = o.at("beta2").as_double();
  c.optimizer.eps = o.at("eps").as_double();
  c.optimizer.weight_decay = o.at("weight_decay").as_double();
  c.optimizer.momentum = o.at("momentum").as_double();
  c.optimizer.nesterov = o.at("nesterov").as_bool();
  const Json& s = j.at("schedule");
  c.schedule.kind = parse_schedule_kind(s.at("kind").as_string());
  c.schedule.base_lr = s.at("lr").as_double();
  c.schedule.warmup = s.at("warmup").as_int();
  c.schedule.total = s.at("total").as_int();
  c.schedule.min_ratio = s.at("min_ratio").as_double();
  if (const Json* cj = j.find("constraint")) c.constraint = ConstraintConfig::from_json(*cj);
  c.steps = j.at("steps").as_int();
  c.batch = j.at("batch").as_int();
  c.clip = j.at("clip").as_double();
  c.eval_every = j.at("eval_every").as_int();
  c.eval_batch = j.at("eval_batch").as_int();
  c.eval_limit = j.at("eval_limit").as_int();
  c.stop_at = j.at("stop_at").as_double();
  c.seed = static_cast<uint64_t>(j.at("seed").as_int());
  c.threads = static_cast<int>(j.at("threads").as_int());
  if (const Json* v = j.find("device")) c.device = parse_device(v->as_string());  // absent in older runs: cpu
  if (const Json* v = j.find("arch_file")) c.arch_file = v->as_string();  // absent in older runs
  if (const Json* v = j.find("arch_trainable")) c.arch_trainable = v->as_bool();
  c.validate();
  return c;
}

}  // namespace tapir
