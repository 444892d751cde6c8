// Baselines every comparison needs: full fine-tuning, Freeze (bottom layers and the input
// embedding frozen) and EWC (full fine-tuning plus λ/2 · Σ F_i (θ_i − θ*_i)²).
#include <torch/torch.h>

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

namespace {

class EwcPenalty : public LossTerm {
 public:
  EwcPenalty(double lambda, std::vector<torch::Tensor> params, std::vector<torch::Tensor> anchors,
             std::vector<torch::Tensor> fisher)
      : m_lambda(lambda),
        m_params(std::move(params)),
        m_anchors(std::move(anchors)),
        m_fisher(std::move(fisher)) {}
  std::string name() const override { return "ewc"; }
  double coefficient() const override { return m_lambda / 2.0; }
  torch::Tensor compute() override {
    torch::Tensor total;
    for (size_t i = 0; i < m_params.size(); ++i) {
      auto term = (m_fisher[i] * (m_params[i] - m_anchors[i]).pow(2)).sum();
      total = total.defined() ? total + term : term;
    }
    return total;
  }

 private:
  double m_lambda;
  std::vector<torch::Tensor> m_params, m_anchors, m_fisher;
};

}  // namespace

GrowthResult apply_ewc(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx) {
  const auto& p = plan.get<EwcParams>();
  GrowthResult r = apply_full(model, plan, ctx);
  if (ctx.structure_only) return r;
  if (ctx.fisher.empty()) {
    fail(
        "plan: EWC needs the diagonal Fisher information of the base model on the original "
        "domain (a probe); run EWC through an experiment, which computes it");
  }
  std::vector<torch::Tensor> params, anchors, fisher;
  torch::NoGradGuard no_grad;
  for (auto& item : model.named_parameters(true)) {
    auto it = ctx.fisher.find(item.key());
    if (it == ctx.fisher.end()) fail("EWC: no Fisher values for parameter '{}'", item.key());
    if (it->second.sizes() != item.value().sizes()) {
      fail("EWC: Fisher values for '{}' have the wrong shape", item.key());
    }
    params.push_back(item.value());
    anchors.push_back(item.value().detach().clone());
    fisher.push_back(it->second.to(item.value().device(), item.value().scalar_type()));
  }
  r.loss_terms.push_back(std::make_shared<EwcPenalty>(p.lambda, params, anchors, fisher));
  return r;
}

}  // namespace gb::grow
