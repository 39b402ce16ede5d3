#include "nn/architecture.h"

#include <cstring>
#include <set>

#include "base/json_fields.h"
#include "engine/safetensors.h"
#include "nn/checkpoint.h"

namespace tapir {

namespace {

constexpr const char* kFormat = "tapir.arch.v1";

// The `attn` object of the description: the attention spline's fields next
// to its kernel and whether it is per head.
struct AttnDescription {
  SplineConfig spline = ModelConfig::default_attn_spline();
  std::string kernel;
  bool per_head = false;
  template <class Self, class Fields>
  static void fields(Self& c, Fields& f) {
    SplineConfig::fields(c.spline, f);
    f.required("kernel", c.kernel);
    f.required("per_head", c.per_head);
  }
};

// One entry of `functions`: a Function without its values.
struct FunctionDescription {
  std::string name, slot;
  int64_t layer = 0, rows = 0;
  template <class Self, class Fields>
  static void fields(Self& c, Fields& f) {
    f.required("name", c.name);
    f.required("slot", c.slot);
    f.required("layer", c.layer);
    f.required("rows", c.rows);
  }
};

// The whole description as read; `mlp` and `attn` are present only for the
// slots the architecture learns.
struct Description {
  int64_t layers = 0, heads = 0;
  SplineConfig mlp;
  AttnDescription attn;
  SplineConfig attn_fn = default_attn_fn_spline();
  std::vector<FunctionDescription> functions;
  template <class Self, class Fields>
  static void fields(Self& c, Fields& f) {
    f.required("layers", c.layers);
    f.required("heads", c.heads);
    f.optional("mlp", c.mlp);
    f.optional("attn", c.attn);
    f.optional("attn_fn", c.attn_fn);
    f.required("functions", c.functions);
  }
};

constexpr const char* kSlots[] = {"mlp", "attn", "attn_fn"};

}  // namespace

bool Architecture::learns(const std::string& slot) const {
  if (slot == "mlp") return mlp_learned;
  if (slot == "attn") return attn != AttentionKind::softmax;
  return slot == "attn_fn" && attn_fn_learned;
}

const SplineConfig& Architecture::spline_of(const std::string& slot) const {
  if (slot == "mlp") return mlp_spline;
  return slot == "attn" ? attn_spline : attn_fn_spline;
}

Json Architecture::describe() const {
  Json j = Json::object();
  j.set("layers", layers);
  j.set("heads", heads);
  if (mlp_learned) j.set("mlp", mlp_spline.to_json());
  if (attn != AttentionKind::softmax)
    j.set("attn", fields_to_json(AttnDescription{attn_spline, name_of(attn), score_per_head}));
  if (attn_fn_learned) j.set("attn_fn", attn_fn_spline.to_json());
  Json fns = Json::array();
  for (const Function& f : functions)
    fns.push_back(fields_to_json(FunctionDescription{f.name, f.slot, f.layer, f.rows}));
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
  a.attn_fn_learned = c.attn_fn == AttnFn::spline;
  a.attn_fn_spline = c.attn_fn_spline;
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
              ": the model has no learned function (use --mlp-act spline, a spline attention or "
              "--attn-fn spline)");
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
  Description d;
  Json j;
  try {
    j = parse_json(file.metadata_value("arch"));
    fields_from_json(j, d);
  } catch (const Error& e) {
    fail(path, ": metadata 'arch': ", e.what());
  }
  TAPIR_CHECK(d.layers >= 0 && d.layers <= 256, path,
              ": metadata 'arch': key 'layers': expected 0 to 256, got ", d.layers);
  TAPIR_CHECK(d.heads >= 1 && d.heads <= 65536, path,
              ": metadata 'arch': key 'heads': expected 1 to 65536, got ", d.heads);
  Architecture a;
  a.layers = d.layers;
  a.heads = d.heads;
  if (j.find("mlp") != nullptr) {
    a.mlp_learned = true;
    a.mlp_spline = d.mlp;
    a.mlp_spline.validate("MLP spline of " + path);
  }
  if (j.find("attn") != nullptr) {
    const std::string& kernel = d.attn.kernel;
    TAPIR_CHECK(kernel == "score-spline" || kernel == "feature-spline", path,
                ": unknown attention kernel ", tapir::quoted(kernel));
    a.attn = parse_name<AttentionKind>(kernel);
    a.attn_spline = d.attn.spline;
    a.attn_spline.validate("attention spline of " + path);
    a.score_per_head = d.attn.per_head;
    TAPIR_CHECK(!a.score_per_head || a.attn == AttentionKind::score_spline, path,
                ": metadata 'arch': per_head is true for kernel '", kernel,
                "', expected it only with score-spline");
  }
  if (j.find("attn_fn") != nullptr) {
    a.attn_fn_learned = true;
    a.attn_fn_spline = d.attn_fn;
    a.attn_fn_spline.validate("attention function spline of " + path);
  }
  std::set<std::string> names, places;
  for (const FunctionDescription& e : d.functions) {
    Architecture::Function f{e.name, e.slot, e.layer, e.rows, {}};
    TAPIR_CHECK(a.learns(f.slot), path, ": function '", f.name, "' is in slot '", f.slot,
                "', which the architecture does not learn");
    TAPIR_CHECK(names.insert(f.name).second, path, ": function '", f.name,
                "' is described twice, expected each name once");
    // The layout the model builds (nn/transformer.cpp): a shared function
    // serves every block (layer -1), a per-layer one its own block; only
    // per-head score splines have a row per head.
    const bool shared = a.spline_of(f).scope == SplineScope::shared;
    TAPIR_CHECK(shared ? f.layer == -1 : f.layer >= 0 && f.layer < a.layers, path, ": function '",
                f.name, "' is for layer ", f.layer, ", expected ",
                shared ? "-1 (its " + f.slot + " spline is shared)"
                       : "0 to " + std::to_string(a.layers - 1) + " (its " + f.slot +
                             " spline is per layer, " + std::to_string(a.layers) + " layers)");
    TAPIR_CHECK(places.insert(f.slot + "/" + std::to_string(f.layer)).second, path, ": function '",
                f.name, "' is a second ", f.slot, " function for layer ", f.layer);
    const int64_t rows = f.slot == "attn" && a.score_per_head ? a.heads : 1;
    TAPIR_CHECK(f.rows == rows, path, ": function ", tapir::quoted(f.name), " has ", f.rows,
                " rows, expected ", rows,
                rows == 1 ? "" : " (per-head score splines, " + std::to_string(rows) + " heads)");
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
  // Every function of a learned slot: one when shared, one per layer.
  for (const char* slot : kSlots) {
    if (!a.learns(slot)) continue;
    const SplineConfig& spline = a.spline_of(slot);
    const int64_t expected = spline.scope == SplineScope::shared ? 1 : a.layers;
    int64_t count = 0;
    for (const Architecture::Function& f : a.functions) count += f.slot == slot;
    TAPIR_CHECK(count == expected, path, ": describes ", count, " ", slot, " functions, expected ",
                expected,
                spline.scope == SplineScope::shared
                    ? " (shared)"
                    : " (one per layer, " + std::to_string(a.layers) + " layers)");
  }
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
  if (arch.attn_fn_learned) {
    check_scope(arch.attn_fn_spline, "attention input");
    config.attn_fn = AttnFn::spline;
    config.attn_fn_spline = arch.attn_fn_spline;
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
    if (!arch.learns(f.slot)) continue;  // a slot the architecture leaves to the model
    // Left out, the model's function would keep its initial values unnoticed.
    TAPIR_CHECK(source != nullptr, label, ": has no function '", p.name, "' (", f.slot,
                f.layer < 0 ? " shared" : " layer " + std::to_string(f.layer),
                "), which the model learns");
    TAPIR_CHECK(
        source->slot == f.slot && source->layer == f.layer && source->rows == f.spline->rows(),
        label, ": function '", p.name, "' is for ", source->slot, " layer ", source->layer,
        " with ", source->rows, " rows, expected ", f.slot, " layer ", f.layer, " with ",
        f.spline->rows(), " rows as in the model");
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
