#include "nn/checkpoint.h"

#include <cstring>
#include <set>

namespace tapir {

void save_parameters(const std::string& path, const std::vector<Parameter*>& params,
                     const Metadata& metadata) {
  std::vector<SafeTensorWrite> writes;
  writes.reserve(params.size());
  for (const Parameter* p : params)
    writes.push_back({p->name, DType::f32, p->tensor().shape().vec(), p->tensor().raw()});
  save_safetensors(path, writes, metadata);
}

void load_parameters(const SafeTensorsFile& file, const std::vector<Parameter*>& params,
                     const std::string& label) {
  std::set<std::string> expected;
  for (Parameter* p : params) {
    expected.insert(p->name);
    const SafeTensorView* view = file.find(p->name);
    TAPIR_CHECK(view, label, ": parameter '", p->name, "' ", p->tensor().shape().str(),
                " is missing from the file");
    const Shape file_shape(view->shape);
    TAPIR_CHECK(file_shape == p->tensor().shape(), label, ": parameter '", p->name, "' has shape ",
                file_shape.str(), " in the file but ", p->tensor().shape().str(), " in the model");
    TAPIR_CHECK(view->dtype == DType::f32, label, ": parameter '", p->name, "' is ",
                dtype_name(view->dtype), ", expected F32");
    std::memcpy(p->tensor().raw(), view->data, view->nbytes);
  }
  for (const SafeTensorView& view : file.tensors())
    TAPIR_CHECK(expected.count(view.name), label, ": tensor '", view.name,
                "' in the file is not a parameter of this model");
}

}  // namespace tapir
