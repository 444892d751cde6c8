#include "grow/growth.h"

#include "grow/variant.h"

#include <map>

#include <torch/torch.h>

#include "model/arch.h"
#include "model/units.h"
#include "util/error.h"
#include "util/log.h"

namespace gb::grow {

int64_t ParamGroup::numel() const {
  int64_t n = 0;
  for (const auto& p : params) n += p.numel();
  return n;
}

nlohmann::json GrowthResult::to_json() const {
  nlohmann::json groups_json = nlohmann::json::array();
  for (const auto& g : groups) {
    groups_json.push_back({{"name", g.name},
                           {"layer", g.layer},
                           {"unit", g.unit},
                           {"params", g.numel()},
                           {"tensors", g.params.size()}});
  }
  nlohmann::json terms = nlohmann::json::array();
  for (const auto& t : loss_terms)
    terms.push_back({{"name", t->name()}, {"coefficient", t->coefficient()}});
  return {{"plan", grow::to_json(plan)},
          {"label", plan.label()},
          {"base_params", base_params},
          {"total_params", total_params},
          {"added_params", added_params()},
          {"trainable_params", trainable_params},
          {"trainable_share", base_params > 0 ? double(trainable_params) / base_params : 0.0},
          {"function_preserving", function_preserving},
          {"new_layers", new_layers},
          {"unit_lr_layers", unit_lr_layers},
          {"loss_terms", terms},
          {"groups", groups_json}};
}

void freeze_all(CausalLMImpl& model) {
  for (auto& p : model.parameters(true)) p.set_requires_grad(false);
}

std::map<std::string, torch::Tensor> parameter_map(CausalLMImpl& model) {
  std::map<std::string, torch::Tensor> m;
  for (auto& item : model.named_parameters(true)) m.emplace(item.key(), item.value());
  return m;
}

namespace {

// (layer, unit) of a registered parameter name.
std::pair<int64_t, std::string> unit_of(const std::string& name) {
  const std::string layers = "model.layers.";
  if (name.rfind(layers, 0) == 0) {
    size_t dot = name.find('.', layers.size());
    int64_t layer = std::stoll(name.substr(layers.size(), dot - layers.size()));
    std::string rest = name.substr(dot + 1);
    if (const units::UnitInfo* u = units::of_path(rest)) return {layer, u->name};
    // A branch (adapter, moe, ...): its registered name is the unit.
    return {layer, rest.substr(0, rest.find('.'))};
  }
  if (name.rfind("model.embed_tokens.", 0) == 0) return {-1, "embed"};
  if (name.rfind("model.embed_positions.", 0) == 0) return {-1, "positions"};
  if (name.rfind("model.norm.", 0) == 0) return {-1, "final_norm"};
  if (name.rfind("lm_head.", 0) == 0) return {-1, "lm_head"};
  return {-1, name.substr(0, name.rfind('.'))};
}

}  // namespace

std::vector<ParamGroup> groups_from_requires_grad(CausalLMImpl& model) {
  std::vector<ParamGroup> groups;
  std::map<std::pair<int64_t, std::string>, size_t> index;
  for (auto& item : model.named_parameters(true)) {
    if (!item.value().requires_grad()) continue;
    auto key = unit_of(item.key());
    auto it = index.find(key);
    if (it == index.end()) {
      ParamGroup g;
      g.layer = key.first;
      g.unit = key.second;
      g.name = key.first >= 0 ? fmt::format("layers.{}.{}", key.first, key.second) : key.second;
      index[key] = groups.size();
      groups.push_back(std::move(g));
      it = index.find(key);
    }
    groups[it->second].params.push_back(item.value());
  }
  return groups;
}

std::vector<int64_t> resolve_layers(const LayerSelection& sel, int64_t num_layers,
                                    const ApplyContext& ctx) {
  if (sel.kind == LayerSelection::Kind::Policy) {
    if (!ctx.resolve_policy) {
      fail(
          "plan: the layer policy {} needs importance probes; run the plan through an "
          "experiment (growbench-cli run) or give explicit layers",
          sel.policy.dump());
    }
    auto layers = LayerSelection::list(ctx.resolve_policy(sel.policy));
    return layers.resolve(num_layers);
  }
  return sel.resolve(num_layers);
}

torch::Tensor init_normal(c10::IntArrayRef shape, double std, uint64_t seed,
                          const torch::TensorOptions& options) {
  auto gen = at::detail::createCPUGenerator(seed);
  auto t = at::empty(shape, torch::TensorOptions().dtype(torch::kFloat));
  t.normal_(0.0, std, gen);
  return t.to(options);
}

GrowthResult apply_plan(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx) {
  validate_plan(plan, model.config);
  const int64_t base = count_parameters(model);
  // Operators see explicit layer lists: policies are resolved here, once.
  GrowthPlan resolved = plan;
  if (LayerSelection* sel = resolved.layers()) {
    *sel = LayerSelection::list(resolve_layers(*sel, model.num_layers(), ctx));
  }
  const VariantModule& module = variant_module(plan.variant);
  if (module.resolve) module.resolve(*resolved.params.get(), model.config, "plan");
  GrowthResult r = module.apply(model, resolved, ctx);
  r.plan = resolved;
  r.base_params = base;
  r.total_params = count_parameters(model);
  r.trainable_params = count_parameters(model, true);
  // The groups must hold exactly the trainable tensors, each once.
  int64_t grouped = 0;
  for (const auto& g : r.groups) {
    for (const auto& p : g.params) {
      if (!p.requires_grad()) fail("internal error: group {} holds a frozen tensor", g.name);
      grouped += p.numel();
    }
  }
  if (grouped != r.trainable_params) {
    fail("internal error: parameter groups hold {} values but {} are trainable", grouped,
         r.trainable_params);
  }
  log::get("grow")->info("applied {}: {} -> {} parameters, {} trainable ({:.2f}% of base)",
                         r.plan.label(), r.base_params, r.total_params, r.trainable_params,
                         100.0 * r.trainable_params / std::max<int64_t>(1, r.base_params));
  return r;
}

}  // namespace gb::grow
