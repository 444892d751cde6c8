#include "importance/policy.h"

#include <algorithm>

#include "util/error.h"
#include "util/json.h"

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
int display_rank(const std::string& id) {
  static const std::vector<std::string> order = {
      "least-important", "most-important", "update-magnitude", "uniform", "above-lfp",
      "calibrated",      "manual"};
  auto it = std::find(order.begin(), order.end(), id);
  return it == order.end() ? static_cast<int>(order.size()) : static_cast<int>(it - order.begin());
}

std::vector<const LayerPolicy*>& registry() {
  static std::vector<const LayerPolicy*> r;
  return r;
}

}  // namespace

bool register_policy(const LayerPolicy* policy) {
  auto& r = registry();
  r.push_back(policy);
  std::stable_sort(r.begin(), r.end(), [](const LayerPolicy* a, const LayerPolicy* b) {
    const int ra = display_rank(a->id), rb = display_rank(b->id);
    return ra != rb ? ra < rb : a->id < b->id;  // unlisted policies last, by id
  });
  return true;
}

const std::vector<const LayerPolicy*>& layer_policies() {
  return registry();
}

const LayerPolicy* find_policy(const std::string& id) {
  for (const LayerPolicy* p : registry()) {
    if (p->id == id) return p;
  }
  return nullptr;
}

const LayerPolicy& layer_policy(const std::string& id, const std::string& context) {
  if (const LayerPolicy* p = find_policy(id)) return *p;
  std::string known;
  for (const LayerPolicy* p : registry()) known += (known.empty() ? "" : ", ") + p->id;
  fail("{}: unknown policy '{}' (known: {})", context, id, known);
}

}  // namespace gb::importance
