#include "grow/adept_stage2.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "model/units.h"
#include "util/error.h"

namespace gb::grow {

const char* unit_norm_name(UnitNorm norm) {
  return norm == UnitNorm::Kind ? "kind" : "all";
}

UnitNorm parse_unit_norm(const std::string& name) {
  if (name == "all") return UnitNorm::All;
  if (name == "kind") return UnitNorm::Kind;
  fail(
      "unit_norm: must be all (one min-max over every unit, ADEPT's code) or kind (norms "
      "apart from matrices), found '{}'",
      name);
}

bool unit_rates_due(int64_t steps_done, int64_t t_update) {
  if (t_update < 1) fail("t_update: must be at least 1, found {}", t_update);
  return steps_done > 0 && steps_done % t_update == 0;
}

std::vector<UnitRate> unit_rates(const importance::ProbeResult& probe,
                                 const std::vector<int64_t>& layers, UnitNorm norm) {
  if (probe.units.empty() || probe.unit_names.empty()) {
    fail(
        "ADEPT stage 2: the '{}' probe has no unit importances (use a unit method: taylor-code, "
        "taylor, taylor-abs or fisher)",
        probe.method);
  }
  std::vector<UnitRate> out;
  for (int64_t l : layers) {
    if (l < 0 || l >= static_cast<int64_t>(probe.units.size())) {
      fail("ADEPT stage 2: layer {} is outside the '{}' probe's {} layers", l, probe.method,
           probe.units.size());
    }
    const auto& row = probe.units[static_cast<size_t>(l)];
    for (size_t u = 0; u < probe.unit_names.size() && u < row.size(); ++u) {
      if (std::isnan(row[u])) continue;
      UnitRate r;
      r.layer = l;
      r.unit = probe.unit_names[u];
      r.group = fmt::format("layers.{}.{}", l, r.unit);
      const units::UnitInfo* info = units::find(r.unit);
      r.norm = info && info->kind == units::Kind::Norm;
      r.importance = row[u];
      out.push_back(std::move(r));
    }
  }
  // Min-max within each class: one class ("all") or norms and matrices ("kind").
  for (int cls = 0; cls < (norm == UnitNorm::Kind ? 2 : 1); ++cls) {
    auto member = [&](const UnitRate& r) { return norm == UnitNorm::All || r.norm == (cls == 1); };
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& r : out) {
      if (!member(r)) continue;
      lo = std::min(lo, r.importance);
      hi = std::max(hi, r.importance);
    }
    for (auto& r : out) {
      if (!member(r)) continue;
      r.scale = hi > lo ? 2.0 * (hi - r.importance) / (hi - lo) : 1.0;
    }
  }
  return out;
}

}  // namespace gb::grow
