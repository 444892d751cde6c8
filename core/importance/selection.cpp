#include "importance/selection.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

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

void check_policy_keys(const Json& policy, const std::string& name) {
  static const std::set<std::string> kImportance = {"policy", "k", "score", "method", "aggregate"};
  std::string ctx = std::string(kContext) + " '" + name + "'";
  if (name == "least-important" || name == "most-important" || name == "calibrated") {
    js::check_keys(policy, kImportance, ctx);
  } else if (name == "update-magnitude") {
    js::check_keys(policy, {"policy", "k", "n"}, ctx);
  } else if (name == "uniform") {
    js::check_keys(policy, {"policy", "count", "k"}, ctx);
  } else if (name == "above-lfp") {
    js::check_keys(policy, {"policy", "l_fp"}, ctx);
  } else if (name == "manual") {
    js::check_keys(policy, {"policy", "layers"}, ctx);
  } else {
    fail(
        "{}: unknown policy '{}' (known: least-important, most-important, update-magnitude, "
        "uniform, above-lfp, calibrated, manual)",
        kContext, name);
  }
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

int64_t count_key(const Json& policy, const std::string& name, const char* key, const char* alias) {
  std::string ctx = std::string(kContext) + " '" + name + "'";
  const char* used = policy.contains(key) ? key : alias;
  if (!policy.contains(used)) fail("{}: missing '{}' (the number of layers)", ctx, key);
  int64_t k = js::get<int64_t>(policy, used, ctx);
  if (k < 1) fail("{}: '{}' must be at least 1, found {}", ctx, used, k);
  return k;
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
  const std::string name = policy_name(policy);
  check_policy_keys(policy, name);
  if (name == "least-important" || name == "most-important") {
    auto m = method_of(policy, name);
    rank_aggregate_of(policy, name, m);
    count_key(policy, name, "k", "k");
    return {{m, false}};
  }
  if (name == "calibrated") {
    auto m = method_of(policy, name);
    rank_aggregate_of(policy, name, m);
    count_key(policy, name, "k", "k");
    return {{m, false}, {m, true}};
  }
  if (name == "update-magnitude") {
    count_key(policy, name, "k", "n");
    return {{methods::kUpdateMagnitude, false}};
  }
  if (name == "uniform") {
    count_key(policy, name, "count", "k");
  } else if (name == "above-lfp") {
    js::get<int64_t>(policy, "l_fp", std::string(kContext) + " 'above-lfp'");
  } else if (name == "manual") {
    js::get<std::vector<int64_t>>(policy, "layers", std::string(kContext) + " 'manual'");
  }
  return {};
}

std::vector<int64_t> select_layers(const Json& policy, const ImportanceResults& results) {
  required_probes(policy);  // validates
  const std::string name = policy_name(policy);
  const int64_t n = results.num_layers;
  if (name == "least-important" || name == "most-important") {
    const auto m = method_of(policy, name);
    const bool by_rank = rank_aggregate_of(policy, name, m);
    const int64_t k = count_key(policy, name, "k", "k");
    auto v = importance_vector(results.general, "general", m, by_rank, name);
    check_k(k, static_cast<int64_t>(v.size()), name);
    return k_extreme(v, k, name == "most-important", std::string(kContext) + " '" + name + "'");
  }
  if (name == "calibrated") {
    const auto m = method_of(policy, name);
    const bool by_rank = rank_aggregate_of(policy, name, m);
    const int64_t k = count_key(policy, name, "k", "k");
    auto g = importance_vector(results.general, "general", m, by_rank, name);
    auto d = importance_vector(results.domain, "domain", m, by_rank, name);
    check_k(k, static_cast<int64_t>(g.size()), name);
    return k_extreme(calibrated_scores(g, d), k, /*largest=*/false,
                     std::string(kContext) + " 'calibrated'");
  }
  if (name == "update-magnitude") {
    const int64_t k = count_key(policy, name, "k", "n");
    auto v = importance_vector(results.general, "general", methods::kUpdateMagnitude, false, name);
    check_k(k, static_cast<int64_t>(v.size()), name);
    return k_extreme(v, k, /*largest=*/true, std::string(kContext) + " 'update-magnitude'");
  }
  if (name == "uniform") {
    check_k(1, n, name);
    return uniform_positions(n, count_key(policy, name, "count", "k"));
  }
  if (name == "above-lfp") {
    check_k(1, n, name);
    const int64_t f = js::get<int64_t>(policy, "l_fp", std::string(kContext) + " 'above-lfp'");
    if (f < 0 || f >= n) {
      fail(
          "{} 'above-lfp': 'l_fp' must be in [0, {}] so that at least one layer is above it, "
          "found {}",
          kContext, n - 1, f);
    }
    std::vector<int64_t> out;
    for (int64_t l = f; l < n; ++l) out.push_back(l);
    return out;
  }
  // manual
  auto layers =
      js::get<std::vector<int64_t>>(policy, "layers", std::string(kContext) + " 'manual'");
  if (layers.empty()) fail("{} 'manual': 'layers' is empty", kContext);
  for (int64_t l : layers) {
    if (n > 0 && (l < 0 || l >= n)) {
      fail("{} 'manual': layer {} is out of range (the model has {} layers)", kContext, l, n);
    }
  }
  std::sort(layers.begin(), layers.end());
  layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
  return layers;
}

}  // namespace gb::importance
