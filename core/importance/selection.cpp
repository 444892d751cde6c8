#include "importance/selection.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "util/error.h"
#include "util/json.h"

namespace gb::importance {

namespace js = gb::json;
using Json = nlohmann::json;

namespace {

const char* const kContext = "layer policy";

std::string policy_name(const Json& policy) {
  if (!policy.is_object()) {
    fail("{}: expected an object such as {{\"policy\": \"least-important\", \"k\": 2}}, found {}",
         kContext, policy.dump());
  }
  return js::get<std::string>(policy, "policy", kContext);
}

// The score a policy ranks by: "score" (or "method", its older name).
std::string method_of(const Json& policy, const std::string& name) {
  const std::string ctx = std::string(kContext) + " '" + name + "'";
  if (policy.contains("score") && policy.contains("method") &&
      policy["score"] != policy["method"]) {
    fail("{}: give 'score' or its older name 'method', not both", ctx);
  }
  const char* key = policy.contains("method") && !policy.contains("score") ? "method" : "score";
  std::string m = js::get_or<std::string>(policy, key, methods::kMasking, ctx);
  if (m != methods::kMasking && !is_unit_method(m)) {
    fail(
        "{}: '{}' must be masking, taylor (signed θ·∂L/∂θ), taylor-abs (|θ·∂L/∂θ|), "
        "taylor-code (|θ|·mean|∂L_b/∂θ|, ADEPT's code) or fisher, found '{}'",
        ctx, key, m);
  }
  return m;
}

bool rank_aggregate_of(const Json& policy, const std::string& name, const std::string& method) {
  std::string a = js::get_or<std::string>(policy, "aggregate", "cumulation",
                                          std::string(kContext) + " '" + name + "'");
  if (a != "cumulation" && a != "rank") {
    fail("{} '{}': 'aggregate' must be cumulation or rank, found '{}'", kContext, name, a);
  }
  if (a == "rank" && !is_unit_method(method)) {
    fail(
        "{} '{}': 'aggregate': \"rank\" needs a unit method (taylor, taylor-abs, taylor-code "
        "or fisher), not '{}'",
        kContext, name, method);
  }
  return a == "rank";
}

std::string available(const std::map<std::string, ProbeResult>& m) {
  std::string s;
  for (const auto& [k, v] : m) s += (s.empty() ? "" : ", ") + k;
  return s.empty() ? "none" : s;
}

// The layer vector (higher = more important) of a probe, by cumulation or mean rank.
std::vector<double> importance_vector(const std::map<std::string, ProbeResult>& set,
                                      const char* set_name, const std::string& method, bool by_rank,
                                      const std::string& policy) {
  auto it = set.find(method);
  if (it == set.end()) {
    fail("{} '{}': needs a '{}' probe on the {} probe set (available: {})", kContext, policy,
         method, set_name, available(set));
  }
  if (!by_rank) return it->second.layers;
  const auto& ranks = it->second.layer_mean_rank;
  if (ranks.size() != it->second.layers.size()) {
    fail("{} '{}': the {} '{}' probe has no rank aggregation", kContext, policy, set_name, method);
  }
  std::vector<double> v(ranks.size());
  for (size_t l = 0; l < ranks.size(); ++l) v[l] = -ranks[l];  // rank 1 = most important
  return v;
}

void check_k(int64_t k, int64_t n, const std::string& policy) {
  if (n <= 0) fail("{} '{}': the number of layers is unknown", kContext, policy);
  if (k > n) {
    fail("{} '{}': asks for {} layers but the model has {}", kContext, policy, k, n);
  }
}

}  // namespace

std::vector<int64_t> k_extreme(const std::vector<double>& values, int64_t k, bool largest,
                               const std::string& what) {
  const int64_t n = static_cast<int64_t>(values.size());
  if (k < 0 || k > n) fail("{}: cannot pick {} of {} layers", what, k, n);
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(values[i])) fail("{}: the value of layer {} is not a number", what, i);
  }
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // Stable: equal values keep index order, so the lower index wins a tie.
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return largest ? values[a] > values[b] : values[a] < values[b];
  });
  std::vector<int64_t> out(order.begin(), order.begin() + k);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<double> calibrated_scores(const std::vector<double>& general,
                                      const std::vector<double>& domain) {
  if (general.size() != domain.size()) {
    fail("calibrated importance: the general probe has {} layers, the domain probe {}",
         general.size(), domain.size());
  }
  auto rg = importance_ranks(general, "calibrated importance (general)");
  auto rd = importance_ranks(domain, "calibrated importance (domain)");
  std::vector<double> out(general.size());
  for (size_t l = 0; l < out.size(); ++l) out[l] = static_cast<double>(rd[l] - rg[l]);
  return out;
}

std::vector<int64_t> uniform_positions(int64_t num_layers, int64_t count) {
  if (count < 1 || count > num_layers) {
    fail("{} 'uniform': 'count' must be in [1, {}] (the number of layers), found {}", kContext,
         num_layers, count);
  }
  std::vector<int64_t> out;
  for (int64_t i = 0; i < count; ++i) out.push_back(((i + 1) * num_layers) / count - 1);
  return out;
}

std::vector<ProbeNeed> required_probes(const Json& policy) {
  const LayerPolicy& p = layer_policy(policy_name(policy), kContext);
  js::check_keys(policy, p.accepted_keys(), p.context());
  if (!p.probes) return {};
  return p.probes(p, policy);
}

std::vector<int64_t> select_layers(const Json& policy, const ImportanceResults& results) {
  required_probes(policy);  // validates
  const LayerPolicy& p = layer_policy(policy_name(policy), kContext);
  std::vector<int64_t> layers = p.select(p, policy, results);
  std::sort(layers.begin(), layers.end());
  layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
  return layers;
}

// ---------------------------------------------------------------------------------------
// The built-in policies (the header describes each).

namespace {

// Policies that rank the layers by an importance score: the k with the lowest (`largest`
// false) or highest general importance, or by the calibrated score (`calibrated`).
LayerPolicy ranked_policy(const std::string& id, bool largest, bool calibrated) {
  LayerPolicy p;
  p.id = id;
  p.keys = {{"k", ""}, {"score", "method"}, {"aggregate", ""}};
  p.count_key = "k";
  p.form_extra = {{"score", methods::kMasking}};
  p.probes = [calibrated](const LayerPolicy& self, const Json& policy) {
    const auto m = method_of(policy, self.id);
    rank_aggregate_of(policy, self.id, m);
    self.count(policy);
    std::vector<ProbeNeed> needs = {{m, false}};
    if (calibrated) needs.push_back({m, true});
    return needs;
  };
  p.select = [largest, calibrated](const LayerPolicy& self, const Json& policy,
                                   const ImportanceResults& results) {
    const auto m = method_of(policy, self.id);
    const bool by_rank = rank_aggregate_of(policy, self.id, m);
    const int64_t k = self.count(policy);
    auto v = importance_vector(results.general, "general", m, by_rank, self.id);
    if (calibrated) {
      auto d = importance_vector(results.domain, "domain", m, by_rank, self.id);
      check_k(k, static_cast<int64_t>(v.size()), self.id);
      return k_extreme(calibrated_scores(v, d), k, /*largest=*/false, self.context());
    }
    check_k(k, static_cast<int64_t>(v.size()), self.id);
    return k_extreme(v, k, largest, self.context());
  };
  return p;
}

LayerPolicy least_important_policy() {
  LayerPolicy p = ranked_policy("least-important", /*largest=*/false, /*calibrated=*/false);
  p.name = GB_TR("GrowPlanner", "Policy: k least important");
  p.help = GB_TR("GrowPlanner",
                 "The k layers least important on the original domain (ADEPT §3.1), by the "
                 "masking score; resolved from a probe when the run starts.");
  return p;
}

LayerPolicy most_important_policy() {
  LayerPolicy p = ranked_policy("most-important", /*largest=*/true, /*calibrated=*/false);
  p.name = GB_TR("GrowPlanner", "Policy: k most important");
  p.help = GB_TR("GrowPlanner",
                 "The k layers most important on the original domain, by the masking score; "
                 "resolved from a probe when the run starts.");
  return p;
}

LayerPolicy calibrated_policy() {
  LayerPolicy p = ranked_policy("calibrated", /*largest=*/false, /*calibrated=*/true);
  p.name = GB_TR("GrowPlanner", "Policy: calibrated (domain-critical)");
  p.help = GB_TR("GrowPlanner",
                 "The k layers whose importance rank on the new domain most exceeds their rank "
                 "on the original domain (ADEPT App. R), by the masking score.");
  return p;
}

LayerPolicy update_magnitude_policy() {
  LayerPolicy p;
  p.id = "update-magnitude";
  p.name = GB_TR("GrowPlanner", "Policy: top-k by update magnitude");
  p.help = GB_TR("GrowPlanner",
                 "The k layers whose weights move most in a preliminary fine-tuning run on the "
                 "new domain (Grow §4.2).");
  p.keys = {{"k", "n"}};
  p.count_key = "k";
  p.probes = [](const LayerPolicy& self, const Json& policy) {
    self.count(policy);
    return std::vector<ProbeNeed>{{methods::kUpdateMagnitude, false}};
  };
  p.select = [](const LayerPolicy& self, const Json& policy, const ImportanceResults& results) {
    const int64_t k = self.count(policy);
    auto v =
        importance_vector(results.general, "general", methods::kUpdateMagnitude, false, self.id);
    check_k(k, static_cast<int64_t>(v.size()), self.id);
    return k_extreme(v, k, /*largest=*/true, self.context());
  };
  return p;
}

LayerPolicy uniform_policy() {
  LayerPolicy p;
  p.id = "uniform";
  p.name = GB_TR("GrowPlanner", "Policy: uniform positions (LLaMA-Pro)");
  p.help = GB_TR("GrowPlanner", "P layers spread evenly, one after every L/P layers (LLaMA-Pro).");
  p.keys = {{"count", "k"}};
  p.count_key = "count";
  // Not offered by the planner (docs/suggest.md: a loaded plan's uniform policy shows as the
  // loaded plan's policy); the suggest search proposes it.
  p.in_planner = false;
  p.probes = [](const LayerPolicy& self, const Json& policy) {
    self.count(policy);
    return std::vector<ProbeNeed>{};
  };
  p.select = [](const LayerPolicy& self, const Json& policy, const ImportanceResults& results) {
    check_k(1, results.num_layers, self.id);
    return uniform_positions(results.num_layers, self.count(policy));
  };
  return p;
}

LayerPolicy above_lfp_policy() {
  LayerPolicy p;
  p.id = "above-lfp";
  p.name = GB_TR("GrowPlanner", "Policy: every layer above l_fp (SCALE)");
  p.help = GB_TR("GrowPlanner", "Every layer above the lowest l_fp (SCALE's L_fp).");
  p.keys = {{"l_fp", ""}};
  p.in_planner = false;
  p.estimated_layers = [](const LayerPolicy&, const Json& policy, int64_t num_layers) {
    auto it = policy.find("l_fp");
    const int64_t f = it != policy.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
    return std::max<int64_t>(0, num_layers - f);
  };
  p.probes = [](const LayerPolicy& self, const Json& policy) {
    js::get<int64_t>(policy, "l_fp", self.context());
    return std::vector<ProbeNeed>{};
  };
  p.select = [](const LayerPolicy& self, const Json& policy, const ImportanceResults& results) {
    const int64_t n = results.num_layers;
    check_k(1, n, self.id);
    const int64_t f = js::get<int64_t>(policy, "l_fp", self.context());
    if (f < 0 || f >= n) {
      fail(
          "{} 'above-lfp': 'l_fp' must be in [0, {}] so that at least one layer is above it, "
          "found {}",
          kContext, n - 1, f);
    }
    std::vector<int64_t> out;
    for (int64_t l = f; l < n; ++l) out.push_back(l);
    return out;
  };
  return p;
}

LayerPolicy manual_policy() {
  LayerPolicy p;
  p.id = "manual";
  p.name = GB_TR("GrowPlanner", "Manual list");
  p.help = GB_TR("GrowPlanner", "The layers given.");
  p.keys = {{"layers", ""}};
  // The planner's own "Manual list" writes the list itself (plans turn this policy into one).
  p.in_planner = false;
  p.probes = [](const LayerPolicy& self, const Json& policy) {
    js::get<std::vector<int64_t>>(policy, "layers", self.context());
    return std::vector<ProbeNeed>{};
  };
  p.select = [](const LayerPolicy& self, const Json& policy, const ImportanceResults& results) {
    const int64_t n = results.num_layers;
    auto layers = js::get<std::vector<int64_t>>(policy, "layers", self.context());
    if (layers.empty()) fail("{} 'manual': 'layers' is empty", kContext);
    for (int64_t l : layers) {
      if (n > 0 && (l < 0 || l >= n)) {
        fail("{} 'manual': layer {} is out of range (the model has {} layers)", kContext, l, n);
      }
    }
    return layers;
  };
  return p;
}

}  // namespace

GB_REGISTER_LAYER_POLICY(least_important_policy);
GB_REGISTER_LAYER_POLICY(most_important_policy);
GB_REGISTER_LAYER_POLICY(update_magnitude_policy);
GB_REGISTER_LAYER_POLICY(uniform_policy);
GB_REGISTER_LAYER_POLICY(above_lfp_policy);
GB_REGISTER_LAYER_POLICY(calibrated_policy);
GB_REGISTER_LAYER_POLICY(manual_policy);

}  // namespace gb::importance
