// The authors' CSV functions as an architecture (nn/arch_import.h).
#include "nn/arch_import.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "base/file_io.h"
#include "base/parse.h"

namespace tapir {

namespace {

using Row = std::vector<double>;

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// The numbers of every line (blank lines at the end ignored), all lines as
// long as the first.
std::vector<Row> read_rows(const std::string& path) {
  // A published table of functions is a few hundred rows of numbers.
  constexpr int64_t kMaxTableBytes = int64_t{64} << 20;
  const std::string text = read_file(path, kMaxTableBytes);
  std::vector<Row> rows;
  size_t start = 0, line = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view content = trimmed(std::string_view(text).substr(start, end - start));
    start = end + 1;
    ++line;
    if (content.empty()) {
      TAPIR_CHECK(text.find_first_not_of(" \t\r\n", start) == std::string::npos, path, " line ",
                  line, ": is empty, expected comma-separated numbers");
      break;
    }
    Row row;
    size_t from = 0;
    while (true) {
      const size_t comma = content.find(',', from);
      const std::string_view field = trimmed(content.substr(from, comma - from));
      try {
        row.push_back(parse_double(field, "value"));
      } catch (const Error&) {
        fail(path, " line ", line, " number ", row.size() + 1, ": expected a finite number, got ",
             quoted(std::string(field)));
      }
      if (comma == std::string_view::npos) break;
      from = comma + 1;
    }
    TAPIR_CHECK(rows.empty() || row.size() == rows.front().size(), path, " line ", line, ": has ",
                row.size(), " numbers, expected ", rows.front().size(), " as line 1");
    rows.push_back(std::move(row));
  }
  TAPIR_CHECK(!rows.empty(), path, ": holds no line, expected pairs of lines (knots, values)");
  TAPIR_CHECK(rows.size() % 2 == 0, path, ": has ", rows.size(),
              " lines, expected an even count (pairs of lines: knots, then values)");
  return rows;
}

// The grid of the knot line `line` (1-based): increasing, equally spaced.
SplineGrid grid_of(const std::string& path, const Row& knots, size_t line) {
  const auto K = static_cast<int64_t>(knots.size());
  TAPIR_CHECK(K >= 2 && K <= SplineGrid::kMaxKnots, path, " line ", line, ": has ", K,
              " knots, expected 2 to ", SplineGrid::kMaxKnots);
  for (int64_t k = 1; k < K; ++k)
    TAPIR_CHECK(knots[size_t(k)] > knots[size_t(k - 1)], path, " line ", line, ": knot ", k + 1,
                " (", knots[size_t(k)], ") does not exceed knot ", k, " (", knots[size_t(k - 1)],
                "), expected increasing knots");
  const SplineGrid grid(K, knots.front(), knots.back(), /*linear=*/false);
  const double step = (grid.hi() - grid.lo()) / double(K - 1);
  for (int64_t k = 0; k < K; ++k)
    TAPIR_CHECK(std::fabs(knots[size_t(k)] - grid.knot(k)) <= 1e-4 * step, path, " line ", line,
                ": knot ", k + 1, " is ", knots[size_t(k)], ", expected ", grid.knot(k),
                " (equally spaced knots from ", grid.lo(), " to ", grid.hi(), ")");
  return grid;
}

std::string function_name(const std::string& slot, int64_t layer) {
  const char* local = slot == "mlp" ? "mlp.act" : "attn_fn.f";
  if (layer < 0) return slot == "mlp" ? "mlp_act.values" : "attn_fn.values";
  return "blocks." + std::to_string(layer) + "." + local + ".values";
}

// The functions of one slot (`values`, one per layer) into `arch`.
void add_slot(const std::string& path, const std::string& slot, const std::vector<Row>& values,
              const CsvImportOptions& options, SplineConfig& spline, Architecture& arch) {
  const bool equal =
      std::all_of(values.begin(), values.end(), [&](const Row& r) { return r == values.front(); });
  spline.scope = options.scope.value_or(equal ? SplineScope::shared : SplineScope::layer);
  const bool shared = spline.scope == SplineScope::shared;
  TAPIR_CHECK(!shared || equal, path, ": the ", slot,
              " functions differ between layers, so they cannot be shared (use --scope layer)");
  for (size_t l = 0; l < (shared ? 1 : values.size()); ++l) {
    const int64_t layer = shared ? -1 : int64_t(l);
    std::vector<float> v(values[l].begin(), values[l].end());
    arch.functions.push_back({function_name(slot, layer), slot, layer, 1, std::move(v)});
  }
}

}  // namespace

Architecture import_lm_afs_csv(const std::string& path, const CsvImportOptions& options) {
  const int64_t L = options.layers;
  TAPIR_CHECK(L >= 1 && L <= 256, "--layers must be in [1, 256], got ", L);
  const std::vector<Row> rows = read_rows(path);
  const auto pairs = static_cast<int64_t>(rows.size() / 2);
  TAPIR_CHECK(pairs == L || pairs == 2 * L, path, ": holds ", pairs, " functions, expected ", L,
              " (MLP) or ", 2 * L, " (MLP, then attention) for ", L, " layers (--layers)");
  const SplineGrid grid = grid_of(path, rows[0], 1);
  for (size_t i = 2; i < rows.size(); i += 2)
    TAPIR_CHECK(rows[i] == rows[0], path, " line ", i + 1,
                ": the knots differ from those of line 1, expected one grid for every function");
  std::vector<Row> mlp, attn_fn;
  for (int64_t p = 0; p < pairs; ++p) (p < L ? mlp : attn_fn).push_back(rows[size_t(2 * p + 1)]);

  Architecture arch;
  arch.layers = L;
  arch.heads = 4;  // the authors' model; per-head functions are not in the format
  SplineConfig spline;
  spline.grid = grid;
  spline.init = "const:0.01";  // the authors' initial value
  arch.mlp_learned = true;
  arch.mlp_spline = spline;
  add_slot(path, "mlp", mlp, options, arch.mlp_spline, arch);
  if (!attn_fn.empty()) {
    arch.attn_fn_learned = true;
    arch.attn_fn_spline = spline;
    add_slot(path, "attn_fn", attn_fn, options, arch.attn_fn_spline, arch);
  }
  // Parameter order, as architecture_of lists a model's: block by block
  // (attention function before MLP), then the shared ones (MLP first).
  const auto order = [](const Architecture::Function& f) {
    return f.layer >= 0 ? 2 * f.layer + (f.slot == "mlp") : 1000 + (f.slot == "attn_fn");
  };
  std::stable_sort(arch.functions.begin(), arch.functions.end(),
                   [&](const auto& a, const auto& b) { return order(a) < order(b); });
  return arch;
}

}  // namespace tapir
