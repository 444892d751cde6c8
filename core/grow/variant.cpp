#include "grow/variant.h"
#include "grow/plan_schema.h"
#include "importance/policy.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "util/error.h"
#include "util/json.h"
#include "util/registry.h"

namespace gb::grow {

using Json = nlohmann::json;

const char* type_name(ParamSpec::Type type) {
  switch (type) {
    case ParamSpec::Type::Int:
      return "int";
    case ParamSpec::Type::Number:
      return "number";
    case ParamSpec::Type::Bool:
      return "bool";
    case ParamSpec::Type::Choice:
      return "choice";
    case ParamSpec::Type::StringList:
      return "list";
    case ParamSpec::Type::Layers:
      return "layers";
    case ParamSpec::Type::Plan:
      return "plan";
  }
  return "?";
}

bool ParamSpec::applies(const Json& values) const {
  if (when_key.empty()) return true;
  auto it = values.find(when_key);
  if (it == values.end() || !it->is_string()) return false;
  return std::find(when_values.begin(), when_values.end(), it->get<std::string>()) !=
         when_values.end();
}

Json ParamSpec::to_json() const {
  Json j = {{"name", name},
            {"type", type_name(type)},
            {"default", default_value},
            {"help", help},
            {"label", label}};
  // An integer parameter's bounds are integers.
  auto bound = [&](double v) -> Json {
    return type == Type::Int ? Json(static_cast<int64_t>(v)) : Json(v);
  };
  if (min) j["min"] = bound(*min);
  if (max) j["max"] = bound(*max);
  if (!choices.empty()) j["choices"] = choices;
  if (!choice_labels.empty()) j["choice_labels"] = choice_labels;
  if (!unit.empty()) j["unit"] = unit;
  if (!when_key.empty()) j["applies_when"] = {{"key", when_key}, {"values", when_values}};
  return j;
}

schema::Key to_schema_key(const ParamSpec& p) {
  schema::Key k;
  k.name = p.name;
  switch (p.type) {
    case ParamSpec::Type::Int:
      k.type = schema::Type::Int;
      break;
    case ParamSpec::Type::Number:
      k.type = schema::Type::Number;
      break;
    case ParamSpec::Type::Bool:
      k.type = schema::Type::Bool;
      break;
    case ParamSpec::Type::Choice:
      k.type = schema::Type::Choice;
      break;
    case ParamSpec::Type::StringList:
      k.type = schema::Type::List;
      k.item = "string";
      break;
    case ParamSpec::Type::Layers:
      k.type = schema::Type::Any;
      k.type_text = "layers";
      k.input = "layers";
      break;
    case ParamSpec::Type::Plan:
      k.type = schema::Type::Ref;
      k.ref = "PLAN";
      break;
  }
  k.default_value = p.default_value;
  k.min = p.min;
  k.max = p.max;
  k.choices = p.choices;
  k.unit = p.unit;
  k.help = p.help;
  k.label = p.label;
  k.choice_labels = p.choice_labels;
  if (!p.when_key.empty()) {
    std::string vals;
    for (const auto& v : p.when_values) vals += (vals.empty() ? "" : ", ") + v;
    k.when = "when " + p.when_key + " is " + vals;
  }
  return k;
}

const ParamSpec* VariantModule::find(const std::string& key) const {
  for (const auto& p : params) {
    if (p.name == key) return &p;
  }
  return nullptr;
}

const ParamSpec* VariantModule::layers_param() const {
  for (const auto& p : params) {
    if (p.type == ParamSpec::Type::Layers) return &p;
  }
  return nullptr;
}

Json VariantModule::to_json() const {
  Json ps = Json::array();
  for (const auto& p : params) {
    if (!p.hidden) ps.push_back(p.to_json());
  }
  return {{"id", id},
          {"name", name},
          {"paper", paper},
          {"description", description},
          {"exportable_hf", exportable_hf},
          {"export", export_note},
          {"params", ps}};
}

namespace {

// The order in which forms and listings show the variants: baselines first.
util::Registry<VariantModule>& registry() {
  static util::Registry<VariantModule> r({"full", "freeze", "lora", "grow", "scale", "depth",
                                          "neutral-residues", "adapters", "ewc", "loramoe",
                                          "mh-moe"});
  return r;
}

}  // namespace

bool register_variant(const VariantModule* module) {
  return registry().add(module);
}

const std::vector<const VariantModule*>& variants() {
  return registry().all();
}

const VariantModule* find_variant(const std::string& id) {
  return registry().find(id);
}

const VariantModule& variant_module(const std::string& id) {
  if (const VariantModule* m = find_variant(id)) return *m;
  fail("unknown variant '{}' (known: {})", id, registry().ids());
}

namespace {

std::string cell(const Json& v) {
  if (v.is_string()) return "`\"" + v.get<std::string>() + "\"`";
  if (v.is_null()) return "—";
  return "`" + v.dump() + "`";
}

}  // namespace

std::string params_markdown(const VariantModule& m) {
  std::string s = "| key | type | default | allowed | help |\n|---|---|---|---|---|\n";
  int rows = 0;
  for (const auto& p : m.params) {
    if (p.hidden) continue;
    ++rows;
    std::string allowed;
    if (!p.choices.empty()) {
      for (const auto& c : p.choices) allowed += (allowed.empty() ? "" : ", ") + c;
    } else if (p.min || p.max) {
      allowed = fmt::format("{} … {}", p.min ? json::number_text(*p.min) : "",
                            p.max ? json::number_text(*p.max) : "");
    } else if (p.type == ParamSpec::Type::Layers) {
      allowed = "\"all\", a list, a policy";
    } else if (p.type == ParamSpec::Type::Plan) {
      allowed = "a growth plan";
    }
    std::string help = p.help;
    if (!p.when_key.empty()) {
      std::string vals;
      for (const auto& v : p.when_values) vals += (vals.empty() ? "" : ", ") + v;
      help += fmt::format(" (only when {} is {})", p.when_key, vals);
    }
    if (!p.unit.empty()) help += fmt::format(" [{}]", p.unit);
    // A default outside the range means the key is required (where it applies).
    const bool required =
        p.default_value.is_number() && ((p.min && p.default_value.get<double>() < *p.min) ||
                                        (p.max && p.default_value.get<double>() > *p.max));
    s += fmt::format("| `{}` | {} | {} | {} | {} |\n", p.name, type_name(p.type),
                     required ? std::string("required") : cell(p.default_value), allowed, help);
  }
  if (rows == 0) return "This variant has no parameters.\n";
  return s;
}

// ---------------------------------------------------------------------------------------
// Estimates

int64_t layer_param_count(const ModelConfig& config) {
  if (config.num_layers <= 0) return 0;
  ModelConfig zero = config;
  zero.num_layers = 0;
  return (config.param_count() - zero.param_count()) / config.num_layers;
}

std::pair<int64_t, int64_t> unit_shape(const ModelConfig& c, const std::string& unit) {
  const int64_t d = c.hidden_size, p = c.intermediate_size;
  const int64_t qd = c.num_heads * c.head_dim, kvd = c.num_kv_heads * c.head_dim;
  if (unit == "q") return {d, qd};
  if (unit == "k" || unit == "v") return {d, kvd};
  if (unit == "o") return {qd, d};
  if (unit == "gate" || unit == "up") return {d, p};
  if (unit == "down") return {p, d};
  return {0, 0};
}

int estimate_layer_count(const LayerSelection& sel, int64_t L, std::string* note) {
  switch (sel.kind) {
    case LayerSelection::Kind::All:
      return static_cast<int>(L);
    case LayerSelection::Kind::List:
      return static_cast<int>(sel.layers.size());
    case LayerSelection::Kind::Policy: {
      if (note) {
        *note =
            GB_TR("PlanEstimate",
                  "The layer policy is resolved from importance probes when the run starts; the "
                  "figures assume its layer count.");
      }
      // The policy's own declaration says how many layers it will choose (its count).
      const Json& p = sel.policy;
      const auto* policy = importance::find_policy(p.value("policy", std::string()));
      if (policy) return static_cast<int>(policy->estimate(p, L));
      auto it = p.find("k");  // an unknown policy: the run's parser names it
      return it != p.end() && it->is_number_integer() ? it->get<int>() : 1;
    }
  }
  return -1;
}

int64_t estimate_lowest_layer(const LayerSelection& sel) {
  if (sel.kind != LayerSelection::Kind::List || sel.layers.empty()) return 0;
  return std::max<int64_t>(0, *std::min_element(sel.layers.begin(), sel.layers.end()));
}

}  // namespace gb::grow
