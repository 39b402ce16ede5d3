// Multiple comparisons over the rows of a claim (lab/claims.h): a row's
// p-value from its interval, and Holm's adjustment over its family.
#include <algorithm>
#include <cmath>
#include <map>

#include "lab/claims.h"

namespace tapir {

std::optional<double> interval_p_value(const ClaimMeasure& m, const ClaimResult& r) {
  if (!r.value || !r.lo || !r.hi || r.interval != "95% CI") return std::nullopt;
  const bool log_scale = m.format == "ratio";
  const auto at = [log_scale](double v) { return log_scale ? std::log(v) : v; };
  if (log_scale && (*r.lo <= 0 || *r.value <= 0 || m.null_value <= 0)) return std::nullopt;
  const double point = at(*r.value), lo = at(*r.lo), hi = at(*r.hi), null = at(m.null_value);
  if (!std::isfinite(point) || !std::isfinite(lo) || !std::isfinite(hi)) return std::nullopt;
  const double se = (hi - lo) / (2 * 1.959963984540054);
  if (se <= 0) return point == null ? 1.0 : 0.0;
  return std::erfc(std::fabs(point - null) / se / std::sqrt(2.0));
}

std::vector<double> holm_adjust(const std::vector<double>& p) {
  std::vector<size_t> order(p.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&p](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> out(p.size());
  double running = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    running = std::max(running, std::min(1.0, double(p.size() - k) * p[order[k]]));
    out[order[k]] = running;
  }
  return out;
}

std::string claim_family(const ClaimRecord& r) {
  return r.id.substr(0, r.id.find('-'));
}

std::vector<FamilyAdjusted> adjust_by_family(const std::vector<ClaimRecord>& records) {
  std::vector<FamilyAdjusted> out(records.size());
  std::map<std::string, std::vector<size_t>> families;
  for (size_t i = 0; i < records.size(); ++i) {
    const ClaimRecord& r = records[i];
    if (r.measure && r.result) out[i].p = interval_p_value(*r.measure, *r.result);
    if (out[i].p) families[claim_family(r)].push_back(i);
  }
  for (const auto& [family, rows] : families) {
    std::vector<double> p;
    for (size_t i : rows) p.push_back(*out[i].p);
    const std::vector<double> adjusted = holm_adjust(p);
    for (size_t k = 0; k < rows.size(); ++k) {
      out[rows[k]].rows = static_cast<int>(rows.size());
      out[rows[k]].holm_p = adjusted[k];
    }
  }
  return out;
}

}  // namespace tapir
