#include "optim/search.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>

#include "autograd/ops.h"
#include "base/clock.h"
#include "base/file_io.h"
#include "engine/dist.h"
#include "engine/threads.h"
#include "optim/batch.h"
#include "optim/task_loss.h"

namespace tapir {

namespace fs = std::filesystem;

Search::Search(const SearchConfig& config, std::string out_dir, bool over_ranks)
    : Search(config, std::move(out_dir), over_ranks, nullptr, "") {}

Search::Search(const SearchConfig& config, std::string out_dir, bool over_ranks,
               const SafeTensorsFile* state, const std::string& path)
    : config_(config),
      out_dir_(std::move(out_dir)),
      over_ranks_(over_ranks && dist::distributed()),
      wall_start_(now_seconds()) {
  config_.validate();
  config_ = config_.resolved();
  TAPIR_CHECK(config_.base.arch_file.empty(),
              "search learns its own functions: --arch cannot be given to it");
  members_.resize(static_cast<size_t>(config_.models));
  for (int m = 0; m < config_.models; ++m) {
    Member& member = members_[static_cast<size_t>(m)];
    if (state == nullptr) {
      member.start = first_start(m);
      start_member(m, 0);
    } else {
      // Where and in which generation the model is; restore_state checks both.
      const std::string prefix = member_prefix(m);
      member.start = metadata_count(*state, path, prefix + "start");
      start_member(m, metadata_count(*state, path, prefix + "generation"), /*fresh=*/false);
    }
  }
  // The shared functions start as model 0's initial splines (every model
  // initialises them identically from the config).
  Member& first = members_.front();
  TAPIR_CHECK(!first.splines.empty(),
              "search needs a model with learned functions (--mlp-act spline and/or --attn "
              "score-spline or feature-spline)");
  const auto learned = first.trainer->model().learned_functions();
  for (size_t k = 0; k < first.splines.size(); ++k) {
    auto p = std::make_unique<Parameter>();
    Parameter& src = first.splines[k]->values();
    p->name = src.name;
    p->value = HeapTensor(src.tensor().shape(), DType::f32, true);
    p->decay = false;
    copy_values(p->tensor(), src.tensor());  // the shared functions live on the host
    shared_.push_back(std::move(p));
  }
  arch_optimizer_ = make_optimizer(config_.arch_optimizer, shared_parameters());
  if (state != nullptr) {
    restore_state(*state, path);
  } else if (writes_shared()) {
    fs::create_directories(fs::path(out_dir_) / "snapshots");
    write_config();
  }
}

bool Search::owns(int m) const {
  return !over_ranks_ || dist::owner(m) == dist::rank();
}

bool Search::writes_shared() const {
  return !out_dir_.empty() && (!over_ranks_ || dist::is_root());
}

int64_t Search::member_steps(int m) const {
  return std::max<int64_t>(0, step_ - members_[static_cast<size_t>(m)].start);
}

Search::ModelLists Search::models_with_steps(int64_t min_steps) const {
  ModelLists lists;
  for (int m = 0; m < config_.models; ++m)
    if (active(m) && member_steps(m) >= min_steps) {
      lists.all.push_back(m);
      if (owns(m)) lists.mine.push_back(m);
    }
  return lists;
}

void Search::write_config() const {
  write_file_atomic((fs::path(out_dir_) / kConfig).string(), to_json(config_.to_json(), 2) + "\n");
}

int64_t Search::first_start(int m) const {
  return config_.stagger ? config_.base.steps * m / config_.models : 0;
}

std::string Search::member_dir(int m, int64_t generation) const {
  if (out_dir_.empty()) return "";
  std::string name = "model-" + std::to_string(m);
  if (generation > 0) {
    name += "-gen-";
    name += std::to_string(generation);
  }
  return (fs::path(out_dir_) / "models" / name).string();
}

void Search::start_member(int m, int64_t generation, bool fresh) {
  Member& member = members_[static_cast<size_t>(m)];
  TrainConfig c = config_.base;
  // Model m, generation g: a seed of its own, and the D_arch stream next to it.
  c.seed = config_.base.seed + static_cast<uint64_t>(generation * config_.models + m);
  // Every process builds every model (the same seeds give the same models);
  // only the one that steps it gives it its folder.
  member.trainer = std::make_unique<Trainer>(c, owns(m) ? member_dir(m, generation) : "");
  if (fresh && owns(m)) member.trainer->start_fresh(/*force=*/true);
  member.generation = generation;
  member.arch_rng = Rng(c.seed, 2);
  member.splines.clear();
  member.weights.clear();
  for (const auto& f : member.trainer->model().learned_functions())
    member.splines.push_back(f.spline);
  for (Parameter* p : member.trainer->model().parameters()) {
    bool is_spline = false;
    for (Spline* s : member.splines) is_spline = is_spline || &s->values() == p;
    if (!is_spline) member.weights.push_back(p);
  }
}

std::vector<Parameter*> Search::shared_parameters() const {
  std::vector<Parameter*> out;
  for (auto& p : shared_) out.push_back(p.get());
  return out;
}

bool Search::active(int model) const {
  return step_ >= members_[static_cast<size_t>(model)].start;
}

void Search::copy_shared_into(Member& member) {
  for (size_t k = 0; k < shared_.size(); ++k)
    copy_values(member.splines[k]->values().tensor(), shared_[k]->tensor());
}

double Search::arch_backward(int model) {
  const double value = arch_gradient(model);
  add_arch_gradient(model);
  return value;
}

double Search::arch_gradient(int model) {
  Member& member = members_[static_cast<size_t>(model)];
  Trainer& trainer = *member.trainer;
  copy_shared_into(member);
  // Weights frozen: the D_arch loss reaches only the splines.
  for (Parameter* p : member.weights) p->set_frozen(true);
  for (Spline* s : member.splines) {
    s->values().set_frozen(false);
    s->values().value.zero_grad();
  }
  Batch batch;
  trainer.task().sample(name_of(config_.arch_split), config_.arch_batch, member.arch_rng, batch);
  const BatchTensors t = to_tensors(batch, trainer.device());
  Tensor loss = task_loss(trainer.model().forward(t.inputs), t.targets, t.mask);
  const double value = loss.item();
  TAPIR_CHECK(std::isfinite(value), "search: D_arch loss of model ", model, " became ", value,
              " at step ", step_ + 1);
  backward(loss);
  reset_step();
  member.arch_grad.resize(shared_.size());
  for (size_t k = 0; k < shared_.size(); ++k) {
    // The member's gradient, read on the host (a copy when the member is on cuda).
    const Tensor g = to_host(grad_view(member.splines[k]->values().tensor()));
    const float* src = g.host_data<float>();
    member.arch_grad[k].assign(src, src + g.numel());
    member.splines[k]->values().value.zero_grad();
  }
  for (Parameter* p : member.weights) p->set_frozen(false);
  return value;
}

void Search::add_arch_gradient(int model) {
  const Member& member = members_[static_cast<size_t>(model)];
  for (size_t k = 0; k < shared_.size(); ++k) {
    float* dst = shared_[k]->tensor().host_grad<float>();
    const std::vector<float>& src = member.arch_grad[k];
    for (size_t i = 0; i < src.size(); ++i) dst[i] += src[i];
  }
}

void Search::for_models(const std::vector<int>& models, const std::function<void(int)>& f) {
  // Concurrent models need the host's per-thread tapes and arenas; a cuda
  // search keeps one thread on its device.
  if (!concurrent_ || config_.base.device != Device::cpu) {
    for (int m : models) f(m);
    return;
  }
  // Every model runs even if one fails, and the failure reported is the
  // first model's in order, as in a run one model after the other.
  std::vector<std::exception_ptr> errors(models.size());
  parallel_tasks(static_cast<int64_t>(models.size()), [&](int64_t k) {
    try {
      f(models[static_cast<size_t>(k)]);
    } catch (...) {
      reset_step();  // this thread's tape and arenas, left mid-step
      errors[static_cast<size_t>(k)] = std::current_exception();
    }
  });
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

void Search::weights_step(int model) {
  Member& member = members_[static_cast<size_t>(model)];
  copy_shared_into(member);
  // Splines frozen: the D_wts step moves only the weights.
  for (Spline* s : member.splines) s->values().set_frozen(true);
  member.trainer->train_step();
  for (Spline* s : member.splines) s->values().set_frozen(false);
}

void Search::add_smoothness_gradient() {
  // d/dv of lambda * sum_k (v[k-1] - 2 v[k] + v[k+1])^2, per row.
  const double lambda = config_.smoothness;
  for (auto& p : shared_) {
    Tensor t = p->tensor();
    const int64_t K = t.shape().last(), rows = t.numel() / K;
    const float* v = t.host_data<float>();
    float* g = t.host_grad<float>();
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 1; k + 1 < K; ++k) {
        const double d2 = double(v[r * K + k - 1]) - 2.0 * v[r * K + k] + v[r * K + k + 1];
        const double c = 2.0 * lambda * d2;
        g[r * K + k - 1] += static_cast<float>(c);
        g[r * K + k] += static_cast<float>(-2.0 * c);
        g[r * K + k + 1] += static_cast<float>(c);
      }
  }
}

void Search::step() {
  for (auto& p : shared_) p->value.zero_grad();
  const auto [models, mine] = models_with_steps(0);
  std::vector<double> losses(static_cast<size_t>(config_.models), 0.0);
  for_models(mine, [&](int m) {
    losses[static_cast<size_t>(m)] = arch_gradient(m);
    weights_step(m);
  });
  if (over_ranks_) share_arch_gradients(models, losses);
  // In model order, whichever thread ran each model.
  const int active_models = static_cast<int>(models.size());
  double arch_loss = 0;
  for (int m : models) {
    arch_loss += losses[static_cast<size_t>(m)];
    add_arch_gradient(m);
  }
  if (active_models > 0) {
    if (config_.arch_grad == ArchGrad::mean)
      for (auto& p : shared_) {
        float* g = p->tensor().host_grad<float>();
        for (int64_t i = 0; i < p->tensor().numel(); ++i) g[i] /= float(active_models);
      }
    if (config_.smoothness > 0) add_smoothness_gradient();
    arch_optimizer_->step(config_.arch_lr);
    if (config_.amplitude > 0)
      for (auto& p : shared_) {
        float* v = p->tensor().host_data<float>();
        const float a = static_cast<float>(config_.amplitude);
        for (int64_t i = 0; i < p->tensor().numel(); ++i) v[i] = std::clamp(v[i], -a, a);
      }
    last_arch_loss_ = arch_loss / active_models;
  }
  ++step_;
  // Models that finished their lifetime start over (staggered search only).
  if (config_.stagger)
    for (int m = 0; m < config_.models; ++m) {
      Member& member = members_[static_cast<size_t>(m)];
      if (active(m) && member_steps(m) >= config_.base.steps) {
        member.start = step_;
        start_member(m, member.generation + 1);
      }
    }
}

Architecture Search::architecture() {
  Trainer& t = *members_.front().trainer;
  copy_shared_into(members_.front());
  return architecture_of(t.model());
}

void Search::run(const Events& events) {
  // Every model's kernels and BLAS calls run on the configured thread count
  // (a fresh process would otherwise give OpenBLAS its own default).
  set_num_threads(config_.base.threads);
  // What an untrained model scores: model 0 before its first step.
  if (step_ == 0) {
    copy_shared_into(members_.front());
    outcome_.untrained_accuracy = members_.front().trainer->evaluate().front().tally.all.accuracy();
  }
  while (step_ < config_.steps) {
    step();
    int active_models = 0;
    for (int m = 0; m < config_.models; ++m) active_models += active(m) ? 1 : 0;
    if (events.on_step) events.on_step(step_, active_models, last_arch_loss_);
    const bool last = step_ == config_.steps;
    const bool evaluate = step_ % config_.base.eval_every == 0 || last;
    double mean_accuracy = 0;
    if (evaluate) {
      const auto [models, mine] = models_with_steps(1);  // the models that have trained
      std::vector<double> accuracy(static_cast<size_t>(config_.models), 0.0);
      for_models(mine, [&](int m) {
        Member& member = members_[static_cast<size_t>(m)];
        copy_shared_into(member);
        accuracy[static_cast<size_t>(m)] =
            member.trainer->evaluate_and_log().front().tally.all.accuracy();
      });
      if (over_ranks_) share_values(models, accuracy);
      double total = 0;
      for (int m : models) total += accuracy[static_cast<size_t>(m)];
      const int counted = static_cast<int>(models.size());
      mean_accuracy = counted ? total / counted : 0;
      outcome_.final_accuracy = mean_accuracy;
      if (!models.empty() && models.front() == 0) outcome_.model0_accuracy = accuracy.front();
      if (writes_shared()) {
        Json line = Json::object();
        line.set("step", step_);
        line.set("arch_loss", last_arch_loss_);
        line.set("active_models", active_models);
        line.set("mean_test_accuracy", mean_accuracy);
        append_line((fs::path(out_dir_) / kLog).string(), to_json(line));
      }
    }
    if (writes_shared() && (step_ % config_.snapshot_every == 0 || last)) {
      char name[64];
      std::snprintf(name, sizeof name, "arch-step-%08lld.safetensors",
                    static_cast<long long>(step_));
      save_architecture((fs::path(out_dir_) / "snapshots" / name).string(), architecture());
    }
    if (evaluate) {
      save_state();  // after the logs and the snapshot of this step
      if (events.on_eval) events.on_eval(step_, mean_accuracy);
    }
  }
  outcome_.steps = step_;
  outcome_.knot_abs_max = 0;
  for (const auto& p : shared_) {
    const float* v = p->tensor().host_data<float>();
    for (int64_t i = 0; i < p->tensor().numel(); ++i)
      outcome_.knot_abs_max = std::max(outcome_.knot_abs_max, std::fabs(double(v[i])));
  }
  if (writes_shared()) {
    save_architecture((fs::path(out_dir_) / "arch.safetensors").string(), architecture());
    write_file_atomic((fs::path(out_dir_) / "search_result.json").string(),
                      to_json(outcome_.to_json(), 2) + "\n");
  }
}

}  // namespace tapir
