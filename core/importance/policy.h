#pragma once
// Layer policies as modules, like the growth variants (grow/variant.h). A policy is the
// {"policy": ID, ...} object a plan's "layers" may hold; it is declared once: its id, display
// name and help, the keys its object accepts, how a form with a layer count writes it, the
// probes it needs and how it picks the layers. It registers itself with
// GB_REGISTER_LAYER_POLICY. Plan parsing (grow/plan.cpp), required_probes() and
// select_layers() (importance/selection.h, which also documents the built-in policies), the
// Grow planner's layer sources and the suggest search's policy choices come from these
// declarations. docs/architecture.md shows how to add a policy.
//
// No LibTorch here: the GUI includes this header.

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "importance/result.h"

// The display-string marker of grow/variant.h, defined identically (a macro may be defined
// twice with the same body): the GUI shows QCoreApplication::translate(context, text), and
// lupdate finds these in core/importance through the GB_TR alias
// (translations/CMakeLists.txt).
#define GB_TR(context, text) text

namespace gb::importance {

// A probe a policy needs: a method on the general or the domain probe set.
struct ProbeNeed {
  std::string method;
  bool domain = false;
  bool operator==(const ProbeNeed& o) const { return method == o.method && domain == o.domain; }
};

// A key of a policy object besides "policy".
struct PolicyKey {
  std::string name;
  std::string alias;  // an older or shorter name accepted for it ("n" for "k"); "" for none
};

struct LayerPolicy {
  std::string id;    // the "policy" value
  std::string name;  // display name (the Grow planner's layer source; context "GrowPlanner")
  std::string help;  // one line (its tooltip)
  std::vector<PolicyKey> keys;
  // The key that holds the number of layers when a form's "k" sets it ("k", "count"); ""
  // when the policy takes none.
  std::string count_key;
  // What a form writes besides "policy" and the count, e.g. {"score": "masking"}.
  nlohmann::json form_extra = nlohmann::json::object();
  // Whether the Grow planner offers the policy as a layer source (a loaded plan's policy
  // that it does not offer is kept as it was).
  bool in_planner = true;
  // The probes the policy needs (`self`: this declaration). Validates the object's values
  // with errors naming the key; the keys themselves are checked before against `keys`.
  // Empty: none needed and nothing more to check.
  std::function<std::vector<ProbeNeed>(const LayerPolicy& self, const nlohmann::json& policy)>
      probes;
  // The layers for `policy` from the probe results (results.num_layers is the model's L),
  // after `probes` validated it. select_layers() sorts them and drops repeats.
  std::function<std::vector<int64_t>(const LayerPolicy& self, const nlohmann::json& policy,
                                     const ImportanceResults& results)>
      select;

  // How many of `num_layers` layers it chooses as far as the object alone tells (the
  // planner's and the memory estimates' figures, before any probe runs). Unset: its count,
  // or every layer when it takes none.
  std::function<int64_t(const LayerPolicy& self, const nlohmann::json& policy, int64_t num_layers)>
      estimated_layers;

  // "layer policy 'ID'": the context of its error messages.
  std::string context() const;
  // "policy" and every key and alias.
  std::set<std::string> accepted_keys() const;
  // The object a form writes for `k` layers (k is ignored without a count key).
  nlohmann::json form_json(int64_t k) const;
  // The number of layers `policy` asks for: `count_key` or its alias, at least 1.
  int64_t count(const nlohmann::json& policy) const;
  // estimated_layers, or its default; an object whose count cannot be read counts 1.
  int64_t estimate(const nlohmann::json& policy, int64_t num_layers) const;
};

// The registry, in a fixed display order (the built-in policies first, then by id).
const std::vector<const LayerPolicy*>& layer_policies();
const LayerPolicy* find_policy(const std::string& id);
// Throws "CONTEXT: unknown policy 'ID' (known: ...)" naming the registered ids.
const LayerPolicy& layer_policy(const std::string& id, const std::string& context);
bool register_policy(const LayerPolicy* policy);

}  // namespace gb::importance

#define GB_POLICY_CONCAT2(a, b) a##b
#define GB_POLICY_CONCAT(a, b) GB_POLICY_CONCAT2(a, b)
// Registers the LayerPolicy returned by `factory` (a function returning LayerPolicy). Named
// by __COUNTER__ as GB_REGISTER_VARIANT is, for the unity build.
#define GB_REGISTER_LAYER_POLICY(factory)                                  \
  static const bool GB_POLICY_CONCAT(gb_policy_registered_, __COUNTER__) = \
      ::gb::importance::register_policy(new ::gb::importance::LayerPolicy(factory()))
