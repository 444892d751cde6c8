#pragma once
// A layer policy declared in test code only: {"policy": "top-layers", "k": N}, the N highest
// layers. tst_runner and tst_gui include this header (one registration per test binary) and
// see it reach plan parsing, the Grow planner's layer sources and a run through the registry
// (importance/policy.h), with no other file naming it: the "Add a layer policy" recipe of
// docs/architecture.md.

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "importance/policy.h"
#include "util/error.h"

namespace gb::test {

inline importance::LayerPolicy top_layers_policy() {
  importance::LayerPolicy p;
  p.id = "top-layers";
  p.name = "Policy: k top layers (test)";
  p.help = "The k highest layers.";
  p.keys = {{"k", ""}};
  p.count_key = "k";
  p.probes = [](const importance::LayerPolicy& self, const nlohmann::json& policy) {
    self.count(policy);
    return std::vector<importance::ProbeNeed>{};
  };
  p.select = [](const importance::LayerPolicy& self, const nlohmann::json& policy,
                const importance::ImportanceResults& results) {
    const int64_t n = results.num_layers, k = self.count(policy);
    if (k > n) gb::fail("{}: asks for {} layers but the model has {}", self.context(), k, n);
    std::vector<int64_t> out;
    for (int64_t l = n - k; l < n; ++l) out.push_back(l);
    return out;
  };
  return p;
}

}  // namespace gb::test

GB_REGISTER_LAYER_POLICY(gb::test::top_layers_policy);
