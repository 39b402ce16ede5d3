#include "nn/architecture.h"

#include <cstring>

#include "engine/safetensors.h"
#include "nn/checkpoint.h"

namespace tapir {

namespace {
constexpr const char* kFormat = "tapir.arch.v1";
}  // namespace

Json Architecture::describe() const {
  Json j = Json::object();
  j.set("layers", layers);
  j.set("heads", heads);
  if (mlp_learned) j.set("mlp", mlp_spline.to_json());
  if (attn != AttentionKind::softmax) {
    Json a = attn_spline.to_json();
    a.set("kernel", name_of(attn));
    a.set("per_head", score_per_head);
    j.set("attn", a);
  }
  Json fns = Json::array();
  for (const Function& f : functions) {
    Json e = Json::object();
    e.set("name", f.name);
    e.set("slot", f.slot);
    e.set("layer", f.layer);
    e.set("rows", f.rows);
    fns.push_back(e);
  }
  j.set("functions", fns);
  return j;
}

Architecture architecture_of(Transformer& model) {
  const ModelConfig& c = model.config();
  Architecture a;
  a.mlp_learned = c.mlp_act == MlpAct::spline;
  a.mlp_spline = c.mlp_spline;
  a.attn = c.attn;
  a.attn_spline = c.attn_spline;
  a.score_per_head = c.score_per_head;
  a.layers = c.layers;
  a.heads = c.heads;
  for (const Transformer::LearnedFunction& f : model.learned_functions()) {
    Tensor v = f.spline->values().tensor();
    std::vector<float> values(static_cast<size_t>(v.numel()));
    read_bytes(v, values.data());
    a.functions.push_back({f.spline->values().name, f.slot, f.layer, f.spline->rows(), values});
  }
  return a;
}

void save_architecture(const std::string& path, const Architecture& arch) {
  TAPIR_CHECK(!arch.functions.empty(), "cannot write architecture ", path,
              ": the model has no learned function (use --mlp-act spline or a spline attention)");
  std::vector<SafeTensorWrite> writes;
  for (const Architecture::Function& f : arch.functions) {
    const int64_t knots = arch.spline_of(f).grid.knots();
    std::vector<int64_t> shape =
        f.rows == 1 ? std::vector<int64_t>{knots} : std::vector<int64_t>{f.rows, knots};
    writes.push_back({f.name, DType::f32, shape, f.values.data()});
  }
  save_safetensors(path, writes, {{"format", kFormat}, {"arch", to_json(arch.describe())}});
}

static Architecture read_architecture(const std::string& path) {
  const SafeTensorsFile file = SafeTensorsFile::load(path);
  TAPIR_CHECK(file.metadata_value("format") == kFormat, path, ": not a tapir architecture file ",
              "(metadata format is '", file.metadata_value("format"), "', expected ", kFormat, ")");
  const Json j = parse_json(file.metadata_value("arch"));
  Architecture a;
  a.layers = j.at("layers").as_int();
  a.heads = j.at("heads").as_int();
  if (const Json* m = j.find("mlp")) {
    a.mlp_learned = true;
    a.mlp_spline = SplineConfig::from_json(*m, a.mlp_spline);
    a.mlp_spline.validate("MLP spline of " + path);
  }
  if (const Json* at = j.find("attn")) {
    const std::string kernel = at->at("kernel").as_string();
    TAPIR_CHECK(kernel == "score-spline" || kernel == "feature-spline", path,
                ": unknown attention kernel '", kernel, "'");
    a.attn = parse_name<AttentionKind>(kernel);
    a.attn_spline = SplineConfig::from_json(*at, a.attn_spline);
    a.attn_spline.validate("attention spline of " + path);
    a.score_per_head = at->at("per_head").as_bool();
  }
  for (const Json& e : j.at("functions").as_array()) {
    Architecture::Function f{e.at("name").as_string(),
                             e.at("slot").as_string(),
                             e.at("layer").as_int(),
                             e.at("rows").as_int(),
                             {}};
    TAPIR_CHECK((f.slot == "mlp" && a.mlp_learned) ||
                    (f.slot == "attn" && a.attn != AttentionKind::softmax),
                path, ": function '", f.name, "' is in slot '", f.slot,
                "', which the architecture does not learn");
    const SafeTensorView& v = file.at(f.name);
    const int64_t knots = a.spline_of(f).grid.knots();
    // One row is written as [knots], several as [rows, knots].
    const Shape expected = f.rows == 1 ? Shape({knots}) : Shape({f.rows, knots});
    TAPIR_CHECK(v.dtype == DType::f32 && Shape(v.shape) == expected, path, ": tensor '", f.name,
                "' must be F32 ", expected.str(), ", found ", dtype_name(v.dtype), " ",
                Shape(v.shape).str());
    f.values.resize(static_cast<size_t>(f.rows * knots));
    std::memcpy(f.values.data(), v.data, v.nbytes);
    check_finite(f.values.data(), f.rows * knots, path, "function '" + f.name + "'");
    a.functions.push_back(std::move(f));
  }
  TAPIR_CHECK(file.tensors().size() == a.functions.size(), path, ": holds ", file.tensors().size(),
              " tensors but describes ", a.functions.size(), " functions");
  return a;
}

// Errors of the description's JSON (a missing key, a wrong type) do not name
// the file by themselves; every error of load_architecture does.
Architecture load_architecture(const std::string& path) {
  try {
    return read_architecture(path);
  } catch (const Error& e) {
    if (std::string_view(e.what()).find(path) != std::string_view::npos) throw;
    fail(path, ": ", e.what());
  }
}

void apply_architecture(const Architecture& arch, ModelConfig& config) {
  auto check_scope = [&](const SplineConfig& s, const char* slot) {
    TAPIR_CHECK(s.scope == SplineScope::shared || arch.layers == config.layers,
                "the architecture's ", slot, " functions are per layer for ", arch.layers,
                " layers, but the model has ", config.layers);
  };
  if (arch.mlp_learned) {
    check_scope(arch.mlp_spline, "MLP");
    config.mlp_act = MlpAct::spline;
    config.mlp_spline = arch.mlp_spline;
  }
  if (arch.attn != AttentionKind::softmax) {
    check_scope(arch.attn_spline, "attention");
    TAPIR_CHECK(!arch.score_per_head || arch.heads == config.heads,
                "the architecture's score splines are per head for ", arch.heads,
                " heads, but the model has ", config.heads);
    config.attn = arch.attn;
    config.attn_spline = arch.attn_spline;
    config.score_per_head = arch.score_per_head;
  }
  config.validate();
}

void load_architecture_values(const Architecture& arch, Transformer& model, bool trainable,
                              const std::string& label) {
  const std::vector<Transformer::LearnedFunction> learned = model.learned_functions();
  size_t matched = 0;
  for (const Transformer::LearnedFunction& f : learned) {
    Parameter& p = f.spline->values();
    const Architecture::Function* source = nullptr;
    for (const Architecture::Function& a : arch.functions)
      if (a.name == p.name) source = &a;
    if (!source) continue;  // a slot the architecture leaves to the model
    TAPIR_CHECK(int64_t(source->values.size()) == p.tensor().numel(), label, ": function '", p.name,
                "' has ", source->values.size(), " values, the model ", p.tensor().numel());
    write_bytes(p.tensor(), source->values.data());
    p.set_frozen(!trainable);
    ++matched;
  }
  TAPIR_CHECK(matched == arch.functions.size(), label, ": ", arch.functions.size() - matched,
              " of its functions have no place in the model");
}

}  // namespace tapir
