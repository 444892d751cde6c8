// What of GrowthPlan (grow/plan.h) depends on the variant registry: parsing a plan from
// JSON, validating it against a model, writing it back, its label and layer selection, and
// the keys every plan shares. Kept apart from grow/plan.cpp so that the plan's data does not
// include the registry that itself includes the plan (grow/variant.h).
#include "grow/plan.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "grow/layer_range.h"
#include "grow/peft.h"
#include "grow/plan_schema.h"
#include "grow/variant.h"
#include "importance/policy.h"
#include "util/error.h"
#include "util/json.h"

namespace gb::grow {

using Json = nlohmann::json;
namespace js = gb::json;

const char* variant_name(const std::string& id) {
  const VariantModule* m = find_variant(id);
  return m ? m->id.c_str() : "?";
}

std::vector<std::string> variant_names() {
  std::vector<std::string> v;
  for (const VariantModule* m : variants()) v.push_back(m->id);
  return v;
}

const LayerSelection* GrowthPlan::layers() const {
  return const_cast<GrowthPlan*>(this)->layers();
}

LayerSelection* GrowthPlan::layers() {
  const VariantModule* m = find_variant(variant);
  if (!m || !params) return nullptr;
  const ParamSpec* spec = m->layers_param();
  if (!spec || !spec->applies(to_json(*this))) return nullptr;
  return spec->layers(*params.get());
}

std::string GrowthPlan::label() const {
  if (!name.empty()) return name;
  std::string s = variant;
  const VariantModule* m = find_variant(variant);
  if (m && m->label && params) s += m->label(*params.get());
  if (ewc) {
    s += fmt::format(" +ewc lambda={}{}", ewc->lambda,
                     ewc->mode == "online" ? fmt::format(" online gamma={}", ewc->gamma) : "");
  }
  if (const LayerSelection* sel = layers()) {
    if (sel->kind == LayerSelection::Kind::List) {
      std::string l;
      for (int64_t i : sel->layers) l += (l.empty() ? "" : ",") + std::to_string(i);
      s += " layers=" + l;
    } else if (sel->kind == LayerSelection::Kind::Policy) {
      s += " layers=" + sel->policy.value("policy", std::string("policy"));
    }
  }
  return s;
}

namespace {

EwcOptions parse_ewc(const Json& j, const std::string& ctx) {
  const std::string c = ctx + ".ewc";
  if (!j.is_object()) {
    fail("{}: expected an object such as {{\"lambda\": 1.0, \"mode\": \"per-task\"}}, found {}", c,
         js::type_name(j));
  }
  js::check_keys(j, {"lambda", "mode", "gamma"}, c);
  EwcOptions o;
  if (!j.contains("lambda")) fail("{}: missing 'lambda' (the strength of the penalty)", c);
  o.lambda = js::get<double>(j, "lambda", c);
  if (!(o.lambda >= 0) || !std::isfinite(o.lambda)) {
    fail("{}: 'lambda' must be a finite number >= 0, found {}", c, j["lambda"].dump());
  }
  o.mode = js::get_or<std::string>(j, "mode", "per-task", c);
  if (o.mode != "per-task" && o.mode != "online") {
    fail("{}: 'mode' must be per-task or online, found '{}'", c, o.mode);
  }
  o.gamma = js::get_or<double>(j, "gamma", 1.0, c);
  if (!(o.gamma > 0 && o.gamma <= 1)) {
    fail("{}: 'gamma' must be in (0, 1], found {}", c, j["gamma"].dump());
  }
  if (o.mode == "per-task" && j.contains("gamma")) {
    fail("{}: 'gamma' applies to mode \"online\" only (per-task keeps every task's Fisher)", c);
  }
  return o;
}
bool is_common_key(const std::string& key) {
  for (const auto& k : plan_common_keys()) {
    if (key == k.name && key != "from_peft") return true;
  }
  return false;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& e : v) s += (s.empty() ? "" : ", ") + e;
  return s;
}

// Checks the type, range and choices of one value and returns it in canonical form.
Json checked_value(const ParamSpec& s, const Json& v, const VariantModule& m,
                   const std::string& ctx) {
  const std::string where = fmt::format("{}: '{}' (variant '{}')", ctx, s.name, m.id);
  auto check_range = [&](double x) {
    const bool low = s.min && x < *s.min, high = s.max && x > *s.max;
    if (!low && !high) return;
    const std::string allowed =
        s.min && s.max
            ? fmt::format("; allowed: [{}, {}]", js::number_text(*s.min), js::number_text(*s.max))
            : std::string();
    fail("{}: '{}' must be {} {}, found {} (variant '{}'{})", ctx, s.name,
         low ? "at least" : "at most", js::number_text(low ? *s.min : *s.max), v.dump(), m.id,
         allowed);
  };
  switch (s.type) {
    case ParamSpec::Type::Int:
      if (!v.is_number_integer()) {
        fail("{} must be an integer, found {}", where, v.is_number() ? v.dump() : js::type_name(v));
      }
      check_range(static_cast<double>(v.get<int64_t>()));
      return v.get<int64_t>();
    case ParamSpec::Type::Number:
      if (!v.is_number()) fail("{} must be a number, found {}", where, js::type_name(v));
      check_range(v.get<double>());
      return v.get<double>();
    case ParamSpec::Type::Bool:
      if (!v.is_boolean()) fail("{} must be a boolean, found {}", where, js::type_name(v));
      return v;
    case ParamSpec::Type::Choice: {
      if (!v.is_string()) fail("{} must be a string, found {}", where, js::type_name(v));
      if (s.check) s.check(v, ctx);
      const std::string x = v.get<std::string>();
      for (const auto& c : s.choices) {
        if (c == x) return v;
      }
      fail("{}: '{}' must be one of {}, found '{}' (variant '{}')", ctx, s.name, join(s.choices), x,
           m.id);
    }
    case ParamSpec::Type::StringList: {
      if (!v.is_array()) fail("{} must be a list of strings, found {}", where, js::type_name(v));
      for (const auto& e : v) {
        if (!e.is_string()) fail("{} must hold strings, found {}", where, e.dump());
        if (s.choices.empty()) continue;
        bool known = false;
        for (const auto& c : s.choices) known |= c == e.get<std::string>();
        if (!known) {
          fail("{}: unknown {} '{}' in '{}' (variant '{}'; allowed: {})", ctx,
               s.unit.empty() ? std::string("item") : s.unit, e.get<std::string>(), s.name, m.id,
               join(s.choices));
        }
      }
      return v;
    }
    case ParamSpec::Type::Layers:
      LayerSelection::parse(v, ctx);  // throws naming what is wrong
      return v;
    case ParamSpec::Type::Plan:
      if (v.is_null()) return v;
      if (!v.is_object())
        fail("{} must be a growth plan (an object), found {}", where, js::type_name(v));
      parse_plan(v, ctx + "." + s.name);  // throws naming what is wrong
      return v;
  }
  return v;
}

}  // namespace

namespace {

// {"variant": "lora", "from_peft": DIR}: rank, alpha, targets and layers come from the
// adapter (grow/peft.h); keys also given must agree with it.
GrowthPlan parse_peft_plan(const Json& j, const std::string& ctx) {
  const Json& dir = j["from_peft"];
  if (!dir.is_string() || dir.get<std::string>().empty()) {
    fail("{}: 'from_peft' must be the path of a PEFT adapter folder, found {}", ctx, dir.dump());
  }
  const std::string v = js::get<std::string>(j, "variant", ctx);
  if (v != Variant::Lora) {
    fail("{}: 'from_peft' applies to variant 'lora' only (a PEFT LoRA adapter), not '{}'", ctx, v);
  }
  const peft::Adapter a = peft::read_adapter(dir.get<std::string>());
  const Json from_adapter = {
      {"rank", a.rank}, {"alpha", a.alpha}, {"targets", a.targets}, {"layers", a.layers}};
  Json merged = j;
  merged.erase("from_peft");
  for (auto it = from_adapter.begin(); it != from_adapter.end(); ++it) {
    if (!j.contains(it.key()) || j[it.key()].is_null()) {
      merged[it.key()] = it.value();
      continue;
    }
    const Json& given = j[it.key()];
    bool same = given == it.value();
    if (it.key() == "alpha" && given.is_number()) {
      const double g = given.get<double>(), w = it.value().get<double>();
      same = std::abs(g - w) <= 1e-12 * std::max(std::abs(g), std::abs(w));
    }
    if (it.key() == "targets" && given.is_array()) {
      std::vector<std::string> g;
      for (const auto& e : given) {
        if (e.is_string()) g.push_back(e.get<std::string>());
      }
      std::vector<std::string> w = a.targets;
      std::sort(g.begin(), g.end());
      std::sort(w.begin(), w.end());
      same = g == w;
    }
    if (!same) {
      fail(
          "{}: '{}' is {} but the PEFT adapter {} has {}; leave '{}' out (it comes from the "
          "adapter)",
          ctx, it.key(), given.dump(), a.folder, it.value().dump(), it.key());
    }
  }
  GrowthPlan plan = parse_plan(merged, ctx);
  plan.from_peft = a.folder;
  return plan;
}

}  // namespace

GrowthPlan parse_plan(const Json& j, const std::string& ctx) {
  if (!j.is_object()) fail("{}: expected an object, found {}", ctx, js::type_name(j));
  if (auto it = j.find("from_peft"); it != j.end() && !it->is_null()) {
    return parse_peft_plan(j, ctx);
  }
  GrowthPlan plan;
  const std::string v = js::get<std::string>(j, "variant", ctx);
  const VariantModule* m = find_variant(v);
  if (!m) fail("{}: unknown variant '{}' (known: {})", ctx, v, join(variant_names()));
  plan.variant = m->id;
  plan.name = js::get_or<std::string>(j, "name", "", ctx);
  if (auto it = j.find("replay"); it != j.end() && !it->is_null()) {
    if (!it->is_number()) {
      fail("{}: 'replay' must be a number in [0, 1), found {}", ctx, js::type_name(*it));
    }
    const double p = it->get<double>();
    if (!(p >= 0 && p < 1)) {
      fail("{}: 'replay' must be in [0, 1) (the fraction of original-domain batches), found {}",
           ctx, it->dump());
    }
    plan.replay = p;
  }
  if (auto it = j.find("replay_mode"); it != j.end() && !it->is_null()) {
    if (!it->is_string() || (*it != "batches" && *it != "rows")) {
      fail("{}: 'replay_mode' must be \"batches\" or \"rows\", found {}", ctx, it->dump());
    }
    plan.replay_mode = it->get<std::string>();
  }
  if (auto it = j.find("ewc"); it != j.end() && !it->is_null()) {
    if (m->id == Variant::Ewc) {
      fail(
          "{}: the \"ewc\" variant is full fine-tuning with EWC (its 'lambda'); give 'ewc' to "
          "another variant, e.g. {{\"variant\": \"full\", \"ewc\": {{\"lambda\": 1}}}}",
          ctx);
    }
    plan.ewc = parse_ewc(*it, ctx);
  }
  // Known keys.
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (is_common_key(it.key()) || m->find(it.key())) continue;
    std::vector<std::string> allowed;
    for (const auto& k : plan_common_keys()) {
      if (k.name != "from_peft") allowed.push_back(k.name);
    }
    for (const auto& s : m->params) allowed.push_back(s.name);
    if (m->id == Variant::Lora) allowed.push_back("from_peft");
    const std::string near = schema::nearest(it.key(), allowed);
    fail("{}: unknown key '{}' for variant '{}' ({}allowed: {})", ctx, it.key(), m->id,
         near.empty() ? std::string() : "did you mean '" + near + "'? ", join(allowed));
  }
  // Values with defaults filled in, then which keys apply (a key may depend on a mode).
  Json values = Json::object();
  for (const auto& s : m->params) {
    auto it = j.find(s.name);
    values[s.name] =
        it != j.end() && !it->is_null() ? checked_value(s, *it, *m, ctx) : s.default_value;
  }
  for (const auto& s : m->params) {
    if (s.default_for && (!j.contains(s.name) || j[s.name].is_null())) {
      values[s.name] = s.default_for(values);
    }
  }
  for (const auto& s : m->params) {
    if (s.applies(values)) continue;
    // A key that does not apply is an error unless it holds the default (plans written
    // by earlier versions list every key).
    if (j.contains(s.name) && !j[s.name].is_null() && values[s.name] != s.default_value) {
      std::string when;
      for (size_t i = 0; i < s.when_values.size(); ++i) {
        when += (i == 0 ? "" : i + 1 == s.when_values.size() ? " and " : ", ") + s.when_values[i];
      }
      fail("{}: '{}' applies to {} only ('{}' is '{}' here; variant '{}'){}", ctx, s.name, when,
           s.when_key, values[s.when_key].get<std::string>(), m->id,
           s.when_hint.empty() ? "" : "; " + s.when_hint);
    }
  }
  // Defaults obey the ranges too (a required key has an out-of-range default).
  for (const auto& s : m->params) {
    if (s.applies(values) && !j.contains(s.name)) checked_value(s, values[s.name], *m, ctx);
  }
  plan.params = ParamsHolder(m->make());
  for (const auto& s : m->params) s.write(*plan.params.get(), values[s.name]);
  if (m->validate) m->validate(*plan.params.get(), j, ctx);
  return plan;
}

const std::vector<schema::Key>& plan_common_keys() {
  using schema::Key;
  using schema::Type;
  static const std::vector<Key> keys = [] {
    std::vector<Key> k;
    auto add = [&](std::string name, Type type, Json def, std::string help) -> Key& {
      Key key;
      key.name = std::move(name);
      key.type = type;
      key.default_value = std::move(def);
      key.help = std::move(help);
      k.push_back(std::move(key));
      return k.back();
    };
    Key& variant = add("variant", Type::Choice, nullptr,
                       "the growth variant (docs/plans.md has each variant's own keys)");
    variant.default_text = "required";
    variant.label = "Variant";
    variant.choices = variant_names();
    add("name", Type::String, nullptr, "the plan's label in run names and tables").label = "Name";
    Key& replay = add("replay", Type::Number, nullptr,
                      "fraction p of original-domain batches for this plan (overrides "
                      "train.replay; 0 is valid: for neutral residues the local loss then never "
                      "applies)");
    replay.default_text = "train.replay";
    replay.label = "Own replay fraction";
    replay.min = 0;
    replay.max = 1;
    replay.max_open = true;
    Key& mode = add("replay_mode", Type::Choice, nullptr,
                    "how replay mixes for this plan (overrides train.replay_mode): batches, each "
                    "batch original-domain with probability p; rows, round(p · batch size) "
                    "original-domain rows in every batch (the fraction carried over), so "
                    "neutral residues' local loss applies at every step");
    mode.default_text = "train.replay_mode";
    mode.label = "Own replay mode";
    mode.choices = {"batches", "rows"};
    mode.choice_labels = {"whole batches", "rows in every batch"};
    Key& ewc = add("ewc", Type::Object, nullptr,
                   "an EWC penalty λ/2 · Σ F_i (θ_i − θ*_i)² on the plan's trainable weights; in "
                   "a task sequence the Fisher is estimated again after each task "
                   "(docs/plans.md, Common keys)");
    ewc.label = "EWC penalty";
    Key lambda;
    lambda.name = "lambda";
    lambda.type = Type::Number;
    lambda.default_text = "required";
    lambda.min = 0;
    lambda.help = "the strength of the penalty";
    lambda.label = "EWC λ";
    Key ewc_mode;
    ewc_mode.name = "mode";
    ewc_mode.type = Type::Choice;
    ewc_mode.default_value = "per-task";
    ewc_mode.choices = {"per-task", "online"};
    ewc_mode.choice_labels = {"per task", "online"};
    ewc_mode.help = "per-task keeps every task's Fisher; online one decayed Fisher";
    ewc_mode.label = "EWC mode";
    Key gamma;
    gamma.name = "gamma";
    gamma.type = Type::Number;
    gamma.default_value = 1.0;
    gamma.min = 0;
    gamma.min_open = true;
    gamma.max = 1;
    gamma.help = "the decay of the online Fisher";
    gamma.when = "when mode is online";
    gamma.label = "EWC γ";
    ewc.keys = {lambda, ewc_mode, gamma};
    Key& peft = add("from_peft", Type::String, nullptr,
                    "a PEFT LoRA adapter folder: rank, alpha, targets and layers come from it");
    peft.when = "for variant lora";
    peft.label = "PEFT adapter";
    peft.input = "path";
    return k;
  }();
  return keys;
}

void validate_plan(const GrowthPlan& plan, const ModelConfig& c, const std::string& ctx) {
  const VariantModule& m = variant_module(plan.variant);
  if (const LayerSelection* sel = plan.layers()) check_layers_in_range(*sel, c.num_layers, ctx);
  if (m.validate_model) m.validate_model(*plan.params.get(), c, ctx);
}

Json to_json(const GrowthPlan& plan) {
  Json j;
  j["variant"] = plan.variant;
  if (!plan.name.empty()) j["name"] = plan.name;
  if (plan.replay) j["replay"] = *plan.replay;
  if (plan.replay_mode) j["replay_mode"] = *plan.replay_mode;
  if (!plan.from_peft.empty()) j["from_peft"] = plan.from_peft;
  if (plan.ewc) {
    j["ewc"] = {{"lambda", plan.ewc->lambda}, {"mode", plan.ewc->mode}};
    if (plan.ewc->mode == "online") j["ewc"]["gamma"] = plan.ewc->gamma;
  }
  const VariantModule* m = find_variant(plan.variant);
  if (!m || !plan.params) return j;
  Json values = Json::object();
  for (const auto& s : m->params) values[s.name] = s.read(*plan.params.get());
  for (const auto& s : m->params) {
    if (!s.applies(values)) continue;
    if (s.omit_default && values[s.name] == s.default_value) continue;
    j[s.name] = values[s.name];
  }
  return j;
}

}  // namespace gb::grow
