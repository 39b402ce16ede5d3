#include "nn/checkpoint.h"

#include <cmath>
#include <set>

namespace tapir {

const void* HostBytes::of(Tensor t) {
  if (t.device() == Device::cpu) return t.raw();
  copies_.emplace_back(t.nbytes());
  read_bytes(t, copies_.back().data());
  return copies_.back().data();
}

const void* HostBytes::copy(const void* data, size_t n) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  copies_.emplace_back(bytes, bytes + n);
  return copies_.back().data();
}

void add_parameter_writes(std::vector<SafeTensorWrite>& writes,
                          const std::vector<Parameter*>& params, HostBytes& host,
                          const std::string& prefix) {
  for (const Parameter* p : params)
    writes.push_back(
        {prefix + p->name, DType::f32, p->tensor().shape().vec(), host.of(p->tensor())});
}

void save_parameters(const std::string& path, const std::vector<Parameter*>& params,
                     const Metadata& metadata) {
  std::vector<SafeTensorWrite> writes;
  writes.reserve(params.size());
  HostBytes host;
  add_parameter_writes(writes, params, host);
  save_safetensors(path, writes, metadata);
}

void check_finite(const float* values, int64_t n, const std::string& label,
                  const std::string& what) {
  for (int64_t i = 0; i < n; ++i)
    TAPIR_CHECK(std::isfinite(values[i]), label, ": ", what, " holds ", values[i], " at element ",
                i, "; a file with non-finite values cannot be used");
}

void load_parameters(const SafeTensorsFile& file, const std::vector<Parameter*>& params,
                     const std::string& label, const std::string& prefix) {
  std::set<std::string> expected;
  for (Parameter* p : params) {
    expected.insert(prefix + p->name);
    const SafeTensorView* view = file.find(prefix + p->name);
    TAPIR_CHECK(view, label, ": parameter '", p->name, "' ", p->tensor().shape().str(),
                " is missing from the file");
    const Shape file_shape(view->shape);
    TAPIR_CHECK(file_shape == p->tensor().shape(), label, ": parameter '", p->name, "' has shape ",
                file_shape.str(), " in the file but ", p->tensor().shape().str(), " in the model");
    TAPIR_CHECK(view->dtype == DType::f32, label, ": parameter '", p->name, "' is ",
                dtype_name(view->dtype), ", expected F32");
    check_finite(reinterpret_cast<const float*>(view->data), p->tensor().numel(), label,
                 "parameter '" + p->name + "'");
    write_bytes(p->tensor(), view->data);
  }
  for (const SafeTensorView& view : file.tensors())
    TAPIR_CHECK(view.name.compare(0, prefix.size(), prefix) != 0 || expected.count(view.name),
                label, ": tensor '", view.name, "' in the file is not a parameter of this model");
}

}  // namespace tapir
