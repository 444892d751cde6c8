#include "importance/result.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "util/error.h"

namespace gb::importance {

std::vector<std::string> method_names() {
  return {methods::kMasking,      methods::kTaylor, methods::kTaylorAbs,
          methods::kTaylorCode,   methods::kFisher, methods::kUpdateMagnitude,
          methods::kEffectiveRank};
}

bool is_unit_method(const std::string& m) {
  return m == methods::kTaylor || m == methods::kTaylorAbs || m == methods::kTaylorCode ||
         m == methods::kFisher;
}

namespace {
void check_layers(ImportanceResults& r, const ProbeResult& p, const char* set) {
  if (r.num_layers == 0) r.num_layers = p.num_layers();
  if (p.num_layers() != r.num_layers) {
    fail("importance results: the {} '{}' probe has {} layers, the others {}", set, p.method,
         p.num_layers(), r.num_layers);
  }
}
}  // namespace

void ImportanceResults::add_general(ProbeResult r) {
  check_layers(*this, r, "general");
  general[r.method] = std::move(r);
}

void ImportanceResults::add_domain(ProbeResult r) {
  check_layers(*this, r, "domain");
  domain[r.method] = std::move(r);
}

std::vector<int64_t> importance_ranks(const std::vector<double>& values, const std::string& what) {
  const size_t n = values.size();
  for (size_t i = 0; i < n; ++i) {
    if (std::isnan(values[i])) {
      fail("{}: the value of layer {} is not a number; cannot rank layers", what, i);
    }
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // Largest value first; stable, so equal values keep index order (lower index first).
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return values[a] > values[b]; });
  std::vector<int64_t> ranks(n);
  for (size_t r = 0; r < n; ++r) ranks[order[r]] = static_cast<int64_t>(r) + 1;
  return ranks;
}

std::vector<double> rank_aggregate(const std::vector<std::vector<double>>& unit_values) {
  const size_t layers = unit_values.size();
  size_t columns = 0;
  for (const auto& row : unit_values) columns = std::max(columns, row.size());
  std::vector<double> sum(layers, 0.0);
  std::vector<int64_t> count(layers, 0);
  for (size_t u = 0; u < columns; ++u) {
    std::vector<size_t> present;
    std::vector<double> column;
    for (size_t l = 0; l < layers; ++l) {
      if (u < unit_values[l].size() && !std::isnan(unit_values[l][u])) {
        present.push_back(l);
        column.push_back(unit_values[l][u]);
      }
    }
    auto ranks = importance_ranks(column, "rank aggregation");
    for (size_t i = 0; i < present.size(); ++i) {
      sum[present[i]] += static_cast<double>(ranks[i]);
      count[present[i]] += 1;
    }
  }
  std::vector<double> out(layers, kMissing);
  for (size_t l = 0; l < layers; ++l) {
    if (count[l] > 0) out[l] = sum[l] / static_cast<double>(count[l]);
  }
  return out;
}

}  // namespace gb::importance
