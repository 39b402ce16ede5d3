#include "nn/module.h"

namespace tapir {

std::vector<Parameter*> Module::parameters() {
  std::vector<Parameter*> out;
  collect("", out);
  return out;
}

void Module::collect(const std::string& prefix, std::vector<Parameter*>& out) {
  for (auto& owned : params_) {
    owned.param->name = prefix + owned.local_name;
    out.push_back(owned.param.get());
  }
  for (auto& [name, child] : children_) child->collect(prefix + name + ".", out);
}

Parameter* Module::find_parameter(const std::string& name) {
  for (Parameter* p : parameters())
    if (p->name == name) return p;
  return nullptr;
}

int64_t Module::parameter_count() {
  int64_t n = 0;
  for (Parameter* p : parameters()) n += p->tensor().numel();
  return n;
}

void Module::set_training(bool on) {
  training_ = on;
  for (auto& [name, child] : children_) child->set_training(on);
}

void Module::to_device(Device device) {
  for (auto& owned : params_) owned.param->value.to_device(device);
  move_buffers(device);
  for (auto& [name, child] : children_) child->to_device(device);
}

Parameter& Module::add_parameter(const std::string& local_name, const Shape& shape, bool decay) {
  for (auto& owned : params_)
    TAPIR_CHECK(owned.local_name != local_name, "parameter '", local_name, "' registered twice");
  auto p = std::make_unique<Parameter>();
  p->name = local_name;
  p->value = HeapTensor(shape, DType::f32, /*with_grad=*/true);
  p->decay = decay;
  params_.push_back({local_name, std::move(p)});
  return *params_.back().param;
}

void Module::add_child(const std::string& local_name, Module& child) {
  children_.emplace_back(local_name, &child);
}

}  // namespace tapir
