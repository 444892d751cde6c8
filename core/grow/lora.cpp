// LoRA operator and unit (see grow/lora.h). Targets among q k v o gate up down, on the
// selected layers (all by default); everything else is frozen. Function preserving: B = 0
// adds an exact zero to every target's output at initialisation.
#include "grow/lora.h"

#include <cmath>

#include <torch/torch.h>

#include "grow/growth.h"
#include "util/error.h"
#include "util/log.h"

namespace gb::grow {

namespace F = torch::nn::functional;

LoraLinearImpl::LoraLinearImpl(LinearUnit base_unit, int64_t r, double a)
    : base(std::move(base_unit)), rank(r), alpha(a), scale(a / static_cast<double>(r)) {
  if (!base) fail("LoRA: no base unit to wrap");
  if (rank < 1) fail("LoRA: rank must be at least 1, found {}", rank);
  register_module("base", base);
  auto ref = base->dense_weight();
  auto options = ref.options().requires_grad(false);
  lora_A = register_parameter("lora_A", torch::empty({rank, base->in_features()}, options));
  lora_B = register_parameter("lora_B", torch::zeros({base->out_features(), rank}, options));
}

void LoraLinearImpl::init_kaiming_uniform(uint64_t seed) {
  torch::NoGradGuard no_grad;
  const double bound = 1.0 / std::sqrt(static_cast<double>(lora_A.size(1)));
  auto gen = at::detail::createCPUGenerator(seed);
  auto a = torch::empty(lora_A.sizes(), torch::dtype(torch::kFloat));
  a.uniform_(-bound, bound, gen);
  lora_A.copy_(a);
}

torch::Tensor LoraLinearImpl::forward(const torch::Tensor& x, const ForwardState& state) {
  auto y = base->forward(x, state);
  return y + F::linear(F::linear(x, lora_A), lora_B) * scale;
}

torch::Tensor LoraLinearImpl::dense_weight() const {
  return base->dense_weight() + torch::matmul(lora_B, lora_A) * scale;
}

std::string LoraLinearImpl::kind() const {
  return "LoRA r=" + std::to_string(rank) + " (" + base->kind() + ")";
}

int64_t merge_lora(CausalLMImpl& model) {
  int64_t merged = 0;
  torch::NoGradGuard no_grad;
  for (int64_t l = 0; l < model.num_layers(); ++l) {
    auto layer = model.layer(l);
    for (const auto& u : layer->units()) {
      auto lora = std::dynamic_pointer_cast<LoraLinearImpl>(u.module);
      if (!lora) continue;
      auto w = lora->dense_weight().detach().clone();
      auto b = lora->dense_bias();
      auto dense = std::make_shared<DenseLinearImpl>(w, b.defined() ? b.detach().clone() : b);
      for (auto& t : dense->parameters(true)) t.set_requires_grad(false);
      layer->set_linear(u.name, dense);
      ++merged;
    }
  }
  return merged;
}

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// One seed per (layer, target), derived from the plan's seed, so that a unit's initial A does
// not depend on which other units the plan targets (and is the same on every platform).
uint64_t unit_seed(uint64_t seed, int64_t layer, const std::string& target) {
  static const char* const kUnits[] = {"q", "k", "v", "o", "gate", "up", "down"};
  uint64_t unit = 0;
  for (uint64_t i = 0; i < 7; ++i) {
    if (target == kUnits[i]) unit = i;
  }
  return splitmix64(splitmix64(seed) ^ (static_cast<uint64_t>(layer) * 8 + unit));
}

}  // namespace

GrowthResult apply_lora(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx) {
  const auto& p = plan.get<LoraParams>();
  if (p.budget > 0 || p.alpha <= 0) {
    fail("plan: LoRA's 'budget' is chosen on the model by apply_plan (VariantModule::resolve)");
  }
  const auto layers = p.layers.resolve(model.num_layers());
  freeze_all(model);
  GrowthResult r;
  r.function_preserving = true;
  for (int64_t l : layers) {
    auto layer = model.layer(l);
    for (const auto& target : p.targets) {
      LinearUnit base = layer->linear(target);  // fails for 'gate' on a plain MLP
      auto lora = std::make_shared<LoraLinearImpl>(base, p.rank, p.alpha);
      if (!ctx.structure_only) {
        lora->init_kaiming_uniform(unit_seed(ctx.seed, l, target));
      }
      for (auto& t : base->parameters(true)) t.set_requires_grad(false);
      lora->lora_A.set_requires_grad(true);
      lora->lora_B.set_requires_grad(true);
      layer->set_linear(target, lora);
      ParamGroup g;
      g.layer = l;
      g.unit = target;
      g.name = "layers." + std::to_string(l) + "." + target + ".lora";
      g.params = {lora->lora_A, lora->lora_B};
      r.groups.push_back(std::move(g));
    }
  }
  log::get("grow")->debug("lora: r = {}, alpha = {}, {} target(s) on {} layer(s)", p.rank, p.alpha,
                          p.targets.size(), layers.size());
  return r;
}

}  // namespace gb::grow
