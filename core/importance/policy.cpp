#include "importance/policy.h"

#include <algorithm>

#include "util/error.h"
#include "util/json.h"
#include "util/registry.h"

namespace gb::importance {

namespace js = gb::json;
using Json = nlohmann::json;

std::string LayerPolicy::context() const {
  return "layer policy '" + id + "'";
}

std::set<std::string> LayerPolicy::accepted_keys() const {
  std::set<std::string> s = {"policy"};
  for (const PolicyKey& k : keys) {
    s.insert(k.name);
    if (!k.alias.empty()) s.insert(k.alias);
  }
  return s;
}

Json LayerPolicy::form_json(int64_t k) const {
  Json j = form_extra.is_object() ? form_extra : Json::object();
  j["policy"] = id;
  if (!count_key.empty()) j[count_key] = k;
  return j;
}

int64_t LayerPolicy::count(const Json& policy) const {
  std::string alias;
  for (const PolicyKey& k : keys) {
    if (k.name == count_key) alias = k.alias;
  }
  // The key itself wins over its alias when both are given.
  const std::string used = policy.contains(count_key) || alias.empty() ? count_key : alias;
  if (!policy.contains(used)) fail("{}: missing '{}' (the number of layers)", context(), count_key);
  const int64_t k = js::get<int64_t>(policy, used.c_str(), context());
  if (k < 1) fail("{}: '{}' must be at least 1, found {}", context(), used, k);
  return k;
}

int64_t LayerPolicy::estimate(const Json& policy, int64_t num_layers) const {
  if (estimated_layers) return estimated_layers(*this, policy, num_layers);
  if (count_key.empty()) return num_layers;
  try {
    return count(policy);
  } catch (const Error&) {
    return 1;  // the run's parser names what is wrong; the estimate assumes one layer
  }
}

namespace {

// The order in which forms and messages list the policies: by importance, by update
// magnitude, by position, explicit.
util::Registry<LayerPolicy>& registry() {
  static util::Registry<LayerPolicy> r({"least-important", "most-important", "update-magnitude",
                                        "uniform", "above-lfp", "calibrated", "manual"});
  return r;
}

}  // namespace

bool register_policy(const LayerPolicy* policy) {
  return registry().add(policy);
}

const std::vector<const LayerPolicy*>& layer_policies() {
  return registry().all();
}

const LayerPolicy* find_policy(const std::string& id) {
  return registry().find(id);
}

const LayerPolicy& layer_policy(const std::string& id, const std::string& context) {
  if (const LayerPolicy* p = find_policy(id)) return *p;
  fail("{}: unknown policy '{}' (known: {})", context, id, registry().ids());
}

}  // namespace gb::importance
