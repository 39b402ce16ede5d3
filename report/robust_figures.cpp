// The figures of `tapir robust-compare` (report/robust_figures.h).
#include "report/robust_figures.h"

#include <cstdio>

#include "base/file_io.h"
#include "base/json.h"
#include "report/svg.h"

namespace tapir {

namespace {

// One arm's curve: at each x, the mean over seeds of rows[i][arm] and its
// standard deviation.
PlotSeries arm_series(const std::string& arm, const std::vector<double>& xs,
                      const std::vector<const Json*>& rows) {
  PlotSeries s{arm, xs, {}, {}};
  for (const Json* row : rows) {
    s.y.push_back(row->at(arm).at("mean").as_double());
    s.spread.push_back(row->at(arm).at("std").as_double());
  }
  return s;
}

}  // namespace

void write_robust_compare_figures(const std::string& dir, const std::string& arm) {
  const std::string summary_path = dir + "/summary_" + arm + ".json";
  const Json summary = read_json_file(summary_path);
  const std::string split = summary.at("split").as_string();
  const std::string metric = summary.at("metric").as_string();
  const std::string prefix = dir + "/compare_" + arm + "_";

  std::vector<double> layers;
  std::vector<const Json*> layer_rows;
  for (const Json& row : summary.at("layers").as_array()) {
    layers.push_back(double(layers.size()));
    layer_rows.push_back(&row);
  }
  write_svg_line_plot(prefix + "layers.svg",
                      {"per-layer " + split + " loss", "layer", "loss", true},
                      {arm_series("erm", layers, layer_rows), arm_series(arm, layers, layer_rows)});

  for (const auto& [noise, by_gamma] : summary.at("noise").as_object()) {
    std::vector<double> gammas;
    std::vector<const Json*> rows;
    for (const Json& row : by_gamma.as_array()) {
      gammas.push_back(row.at("gamma").as_double());
      rows.push_back(&row);
    }
    write_svg_line_plot(prefix + noise + ".svg",
                        {metric + " under " + noise + " noise", "gamma", metric, false},
                        {arm_series("erm", gammas, rows), arm_series(arm, gammas, rows)});
  }
  std::printf("figures: %s*.svg\n", prefix.c_str());
}

}  // namespace tapir
