// Baselines every comparison needs: full fine-tuning, Freeze (bottom layers and the input
// embedding frozen) and EWC (full fine-tuning plus λ/2 · Σ F_i (θ_i − θ*_i)²).
#include <torch/torch.h>

#include "grow/ewc.h"
#include "grow/growth.h"
#include "util/error.h"

namespace gb::grow {

GrowthResult apply_full(CausalLMImpl& model, const GrowthPlan&, const ApplyContext&) {
  for (auto& p : model.parameters(true)) p.set_requires_grad(true);
  GrowthResult r;
  r.groups = groups_from_requires_grad(model);
  r.function_preserving = true;
  return r;
}

GrowthResult apply_freeze(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext&) {
  const auto& p = plan.get<FreezeParams>();
  for (auto& t : model.parameters(true)) t.set_requires_grad(true);
  for (int64_t l = 0; l < p.bottom; ++l) {
    for (auto& t : model.layer(l)->parameters(true)) t.set_requires_grad(false);
  }
  if (p.freeze_embedding) {
    for (auto& t : model.model->embed_tokens->parameters(true)) t.set_requires_grad(false);
    if (model.model->embed_positions) {
      for (auto& t : model.model->embed_positions->parameters(true)) t.set_requires_grad(false);
    }
  }
  GrowthResult r;
  r.groups = groups_from_requires_grad(model);
  r.function_preserving = true;
  return r;
}

GrowthResult apply_ewc(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx) {
  GrowthResult r = apply_full(model, plan, ctx);
  if (ctx.structure_only) return r;
  if (ctx.fisher.empty()) {
    fail(
        "plan: EWC needs the diagonal Fisher information of the base model on the original "
        "domain (a probe); run EWC through an experiment, which computes it");
  }
  std::vector<std::pair<std::string, torch::Tensor>> params;
  for (auto& item : model.named_parameters(true)) params.emplace_back(item.key(), item.value());
  auto penalty = std::make_shared<EwcPenalty>(*plan.effective_ewc(), std::move(params));
  penalty->add_task(ctx.fisher);
  r.loss_terms.push_back(penalty);
  return r;
}

}  // namespace gb::grow
