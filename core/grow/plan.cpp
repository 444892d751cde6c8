#include "grow/plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "grow/layer_range.h"
#include "importance/policy.h"
#include "util/error.h"
#include "util/json.h"

namespace gb::grow {

using Json = nlohmann::json;
namespace js = gb::json;

void check_layers_in_range(const LayerSelection& sel, int64_t n, const std::string& ctx) {
  if (sel.kind != LayerSelection::Kind::List) return;
  for (int64_t l : sel.layers) {
    if (l < 0 || l >= n) {
      fail("{}: layer index {} is out of range (the model has {} layers, 0..{})", ctx, l, n, n - 1);
    }
  }
}

// ---------------------------------------------------------------------------------------
// LayerSelection

LayerSelection LayerSelection::list(std::vector<int64_t> layers) {
  LayerSelection s;
  s.kind = Kind::List;
  std::sort(layers.begin(), layers.end());
  layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
  s.layers = std::move(layers);
  return s;
}

LayerSelection LayerSelection::parse(const Json& j, const std::string& ctx) {
  if (j.is_null()) return all();
  if (j.is_string()) {
    if (j.get<std::string>() == "all") return all();
    fail("{}: 'layers' must be \"all\", a list of layer indices or a policy object, found '{}'",
         ctx, j.get<std::string>());
  }
  if (j.is_array()) {
    std::vector<int64_t> v;
    for (const auto& e : j) {
      if (!e.is_number_integer()) {
        fail("{}: 'layers' must hold integer layer indices, found {}", ctx, e.dump());
      }
      if (e.get<int64_t>() < 0) fail("{}: layer index {} is negative", ctx, e.get<int64_t>());
      v.push_back(e.get<int64_t>());
    }
    if (v.empty()) fail("{}: 'layers' is an empty list", ctx);
    return list(std::move(v));
  }
  if (j.is_object()) {
    std::string p = js::get<std::string>(j, "policy", ctx + ".layers");
    // The policy's own keys are checked when the run resolves it (importance/selection.h).
    importance::layer_policy(p, ctx + ".layers");  // throws naming the registered ids
    if (p == "manual") {
      return list(js::get<std::vector<int64_t>>(j, "layers", ctx + ".layers"));
    }
    LayerSelection s;
    s.kind = Kind::Policy;
    s.policy = j;
    return s;
  }
  fail("{}: 'layers' must be \"all\", a list or a policy object, found {}", ctx, js::type_name(j));
}

std::vector<int64_t> LayerSelection::resolve(int64_t n) const {
  switch (kind) {
    case Kind::All: {
      std::vector<int64_t> v(n);
      for (int64_t i = 0; i < n; ++i) v[i] = i;
      return v;
    }
    case Kind::List:
      check_layers_in_range(*this, n, "plan");
      return layers;
    case Kind::Policy:
      fail(
          "plan: the layer policy {} must be resolved from importance probes first (run it "
          "through growbench-cli run, or give explicit layers)",
          policy.dump());
  }
  return {};
}

Json LayerSelection::to_json() const {
  switch (kind) {
    case Kind::All:
      return "all";
    case Kind::List:
      return layers;
    case Kind::Policy:
      return policy;
  }
  return "all";
}

// ---------------------------------------------------------------------------------------
// GrowthPlan: its data only. What a variant module knows (parsing, labels, layers, JSON) is in
// grow/plan_parse.cpp, which sees the registry (grow/variant.h); this file does not.

void GrowthPlan::throw_wrong_params(const char* type) const {
  fail("internal error: plan '{}' does not hold parameters of type {}", variant, type);
}

std::optional<EwcOptions> GrowthPlan::effective_ewc() const {
  if (ewc) return ewc;
  if (variant == Variant::Ewc && params) {
    EwcOptions o;
    o.lambda = get<EwcParams>().lambda;
    return o;
  }
  return std::nullopt;
}

}  // namespace gb::grow
