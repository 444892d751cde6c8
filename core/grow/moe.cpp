// LoRAMoE and MH-MoE branches; the design and the paper references are in moe.h.
#include "grow/moe.h"

#include <cmath>

#include <torch/torch.h>

#include "grow/adapters.h"
#include "grow/growth.h"
#include "grow/routes.h"
#include "util/error.h"
#include "util/log.h"

namespace gb::grow {

namespace F = torch::nn::functional;

Routing top_k_routing(const torch::Tensor& logits, int64_t top_k, bool renormalise) {
  const int64_t k_all = logits.size(-1);
  if (top_k < 1 || top_k > k_all) {
    fail("MoE routing: top_k = {} must be between 1 and the number of experts ({})", top_k, k_all);
  }
  auto lf = logits.to(torch::kFloat);
  auto top = lf.topk(top_k, -1);
  const auto& values = std::get<0>(top);   // (..., k)
  const auto& indices = std::get<1>(top);  // (..., k)
  Routing r;
  r.selected = torch::zeros_like(lf).scatter(-1, indices, 1.0);
  r.probs = torch::softmax(lf, -1);
  if (renormalise) {
    // Softmax over the selected logits only (eq. 13), scattered back to all K experts.
    r.weights = torch::zeros_like(lf).scatter(-1, indices, torch::softmax(values, -1));
  } else {
    // Softmax over all K, the selected experts keep their share (not renormalised).
    r.weights = r.probs * r.selected;
  }
  return r;
}

torch::Tensor balance_loss(const torch::Tensor& probs, const torch::Tensor& selected,
                           const torch::Tensor& token_weights, int64_t top_k) {
  // probs, selected (N, G, K) → scalar
  const double k_all = static_cast<double>(probs.size(-1));
  torch::Tensor f, p;  // (G, K)
  if (token_weights.defined()) {
    auto w = token_weights.to(probs.device(), torch::kFloat).reshape({-1, 1, 1});
    auto n = w.sum().clamp_min(1.0);
    f = (selected.detach() * w).sum(0) / (n * static_cast<double>(top_k));
    p = (probs * w).sum(0) / n;
  } else {
    f = selected.detach().mean(0) / static_cast<double>(top_k);
    p = probs.mean(0);
  }
  return k_all * (f * p).sum(-1).mean();
}

namespace {

void check_options(const MoeOptions& o, const char* what) {
  if (o.hidden <= 0 || o.heads <= 0 || o.experts <= 0 || o.rank <= 0) {
    fail("{}: hidden size, heads, experts and rank must be positive (got {}, {}, {}, {})", what,
         o.hidden, o.heads, o.experts, o.rank);
  }
  if (o.top_k < 1 || o.top_k > o.experts) {
    fail("{}: 'top_k' ({}) must be between 1 and 'experts' ({})", what, o.top_k, o.experts);
  }
  if (o.hidden % o.heads != 0) {
    fail(
        "{}: 'heads' = {} does not divide the hidden size {} (the hidden state is split into "
        "equal slices)",
        what, o.heads, o.hidden);
  }
}

// Token weights (N) for the balancing loss, or undefined.
torch::Tensor flat_token_weights(const ForwardState& state, const torch::Tensor& x) {
  if (x.dim() != 3) return {};
  auto w = branch_token_weights(state, x.size(0), x.size(1), x.device());
  return w.defined() ? w.reshape({-1}) : w;
}

void draw(torch::Tensor& t, double std, uint64_t seed) {
  t.copy_(init_normal(t.sizes(), std, seed, t.options()));
}

// The composition slices of a one-head bank's router input (routes.h): 4, 2 or 1.
int64_t composition_slices(int64_t d_in) {
  for (int64_t c : {4, 2}) {
    if (d_in % c == 0) return c;
  }
  return 1;
}

// Reports a batch's routes to ForwardState::routes. route (N, H, K); compositions (N, C).
void report_routes(const ForwardState& state, const MoeOptions& o, const torch::Tensor& x,
                   const Routing& route, const torch::Tensor& compositions) {
  if (!state.routes) return;
  const int64_t h = route.selected.size(-2), k = route.selected.size(-1);
  auto selected = route.selected.reshape({-1, h, k});
  state.routes->record(o.stats_name.empty() ? std::string("moe") : o.stats_name, o.top_k,
                       route_ids(selected), compositions.reshape({selected.size(0), -1}), selected,
                       flat_token_weights(state, x));
}

}  // namespace

// ---------------------------------------------------------------------------------------
// LoRAMoE

LoraMoeImpl::LoraMoeImpl(const MoeOptions& o, const torch::TensorOptions& to) : MoeBankImpl(o) {
  check_options(o, "LoRAMoE");
  if (o.heads != 1) fail("LoRAMoE routes whole tokens (heads = 1); use MH-MoE for heads > 1");
  const int64_t d = o.hidden, k = o.experts, r = o.rank;
  router = register_parameter("router", torch::zeros({k, d}, to));
  lora_a = register_parameter("lora_a", torch::zeros({k, r, d}, to));
  lora_b = register_parameter("lora_b", torch::zeros({k, o.out_features(), r}, to));
}

std::string LoraMoeImpl::kind() const {
  return fmt::format("LoRAMoE K={} top{} r={}", options.experts, options.top_k, options.rank);
}

int64_t LoraMoeImpl::num_parameters() const {
  const int64_t d = options.hidden, k = options.experts, r = options.rank;
  return k * r * (d + options.out_features()) + d * k;
}

void LoraMoeImpl::init_values(uint64_t seed) {
  torch::NoGradGuard no_grad;
  const double s = 1.0 / std::sqrt(static_cast<double>(options.hidden));
  draw(router, s, branch_seed(seed, 0, 1));
  draw(lora_a, s, branch_seed(seed, 0, 2));
  lora_b.zero_();
}

Routing LoraMoeImpl::route(const torch::Tensor& x) const {
  return top_k_routing(F::linear(x, router), options.top_k, options.renormalise);  // (..., K)
}

torch::Tensor LoraMoeImpl::run(const torch::Tensor& x, const ForwardState& state) {
  const int64_t d = options.hidden, k = options.experts, r = options.rank,
                d_out = options.out_features();
  auto xf = x.reshape({-1, d});                        // (N, d)
  Routing route_ = route(xf);                          // (N, K)
  auto z = F::linear(xf, lora_a.reshape({k * r, d}));  // (N, K·r): every expert's A x
  z = z.view({-1, k, r}) * route_.weights.to(z.scalar_type()).unsqueeze(-1);
  // Σ_j α_j B_j (A_j x) as one matmul with the stacked B matrices (K·r, d_out).
  auto y = z.reshape({-1, k * r}).matmul(lora_b.permute({0, 2, 1}).reshape({k * r, d_out}));
  if (options.scale != 1.0) y = y * options.scale;
  if (state.aux && options.balance > 0) {
    auto loss = balance_loss(route_.probs.unsqueeze(1), route_.selected.unsqueeze(1),
                             flat_token_weights(state, x), options.top_k);
    state.aux->push_back({"balance", loss, options.balance});
  }
  if (state.routes) {
    // Compositions: the expert each slice of the input would choose on its own (routes.h).
    const int64_t c = composition_slices(d);
    auto partial =
        torch::einsum("nci,kci->nck", {xf.reshape({-1, c, d / c}), router.reshape({k, c, d / c})});
    Routing one;
    one.selected = route_.selected.unsqueeze(1);
    report_routes(state, options, x, one, partial.argmax(-1));
  }
  auto shape = x.sizes().vec();
  shape.back() = d_out;
  return y.view(shape);
}

// ---------------------------------------------------------------------------------------
// MH-MoE

MhMoeImpl::MhMoeImpl(const MoeOptions& o, const torch::TensorOptions& to) : MoeBankImpl(o) {
  check_options(o, "MH-MoE");
  const int64_t h = o.heads, dh = o.hidden / o.heads, k = o.experts, r = o.rank;
  router = register_parameter("router", torch::zeros({h, k, dh}, to));
  lora_a = register_parameter("lora_a", torch::zeros({h, k, r, dh}, to));
  lora_b = register_parameter("lora_b", torch::zeros({h, k, o.out_features(), r}, to));
}

std::string MhMoeImpl::kind() const {
  return fmt::format("MH-MoE H={} K={} top{} r={}", options.heads, options.experts, options.top_k,
                     options.rank);
}

int64_t MhMoeImpl::num_parameters() const {
  const int64_t d = options.hidden, h = options.heads, dh = d / h, k = options.experts,
                r = options.rank;
  return h * (k * r * (dh + options.out_features()) + dh * k);
}

void MhMoeImpl::init_values(uint64_t seed) {
  torch::NoGradGuard no_grad;
  const double s = 1.0 / std::sqrt(static_cast<double>(options.hidden / options.heads));
  draw(router, s, branch_seed(seed, 0, 1));
  draw(lora_a, s, branch_seed(seed, 0, 2));
  lora_b.zero_();
}

Routing MhMoeImpl::route(const torch::Tensor& x) const {
  const int64_t h = options.heads, dh = options.hidden / h;
  auto lead = x.sizes().vec();
  lead.pop_back();
  auto xs = x.reshape({-1, h, dh});                           // (N, H, d/H)
  auto logits = torch::einsum("nhi,hki->nhk", {xs, router});  // (N, H, K)
  Routing r = top_k_routing(logits, options.top_k, options.renormalise);
  auto shape = lead;
  shape.push_back(h);
  shape.push_back(options.experts);
  r.weights = r.weights.view(shape);
  r.selected = r.selected.view(shape);
  r.probs = r.probs.view(shape);
  return r;
}

torch::Tensor MhMoeImpl::run(const torch::Tensor& x, const ForwardState& state) {
  const int64_t d = options.hidden, h = options.heads, dh = d / h, k = options.experts,
                r = options.rank, d_out = options.out_features();
  auto xs = x.reshape({-1, h, dh});                        // (N, H, d/H): eq. 12
  Routing route_ = route(xs.reshape({-1, d}));             // (N, H, K): eq. 13, per head
  auto z = torch::einsum("nhi,hkri->nhkr", {xs, lora_a});  // (N, H, K, r)
  z = z * route_.weights.to(z.scalar_type()).unsqueeze(-1);
  // Σ_m Σ_j α_mj B_j^(m) (A_j^(m) x_m) (eq. 15-16) as one matmul with (H·K·r, d_out).
  auto y =
      z.reshape({-1, h * k * r}).matmul(lora_b.permute({0, 1, 3, 2}).reshape({h * k * r, d_out}));
  if (options.scale != 1.0) y = y * options.scale;
  if (state.aux && options.balance > 0) {
    auto loss =
        balance_loss(route_.probs, route_.selected, flat_token_weights(state, x), options.top_k);
    state.aux->push_back({"balance", loss, options.balance});
  }
  if (state.routes) {
    // Compositions: the tuple of the heads' routes (routes.h).
    auto sel = route_.selected.reshape({-1, h, k});
    report_routes(state, options, x, route_, route_ids(sel));
  }
  auto shape = x.sizes().vec();
  shape.back() = d_out;
  return y.view(shape);
}

// ---------------------------------------------------------------------------------------
// A linear with a bank of experts beside it

MoeLinearImpl::MoeLinearImpl(LinearUnit base_unit, MoeBank bank_module, const std::string& name)
    : base(std::move(base_unit)), bank(std::move(bank_module)), bank_name(name) {
  if (!base || !bank) fail("MoE: a linear and a bank are needed");
  if (bank->options.hidden != base->in_features() ||
      bank->options.out_features() != base->out_features()) {
    fail("MoE: the bank maps {} → {} but the linear {} → {}", bank->options.hidden,
         bank->options.out_features(), base->in_features(), base->out_features());
  }
  register_module("base", base);
  register_module(bank_name, bank);
}

torch::Tensor MoeLinearImpl::forward(const torch::Tensor& x, const ForwardState& state) {
  return base->forward(x, state) + bank->run(x, state);
}

std::string MoeLinearImpl::kind() const {
  return bank->kind() + " beside " + base->kind();
}

std::string family_linear_name(const ModelConfig& c, const std::string& unit) {
  if (c.family == Family::Gpt2) {
    if (unit == "up") return "c_fc";
    if (unit == "down") return "c_proj";
  } else if (c.family == Family::GptNeoX) {
    if (unit == "up") return "dense_h_to_4h";
    if (unit == "down") return "dense_4h_to_h";
  }
  if (unit == "gate" || unit == "up" || unit == "down") return unit + "_proj";
  fail("MoE: '{}' is not a linear of the MLP (gate, up, down)", unit);
}

// ---------------------------------------------------------------------------------------

GrowthResult apply_moe(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx) {
  const auto& p = plan.get<MoeParams>();
  const bool mh = plan.variant == Variant::MhMoe;
  MoeOptions o;
  o.heads = mh ? p.heads : 1;
  if (!mh && p.heads != 1) {
    fail("plan: LoRAMoE routes whole tokens; use variant \"mh-moe\" for 'heads' > 1");
  }
  o.experts = p.experts;
  o.top_k = p.top_k;
  o.rank = p.rank;
  o.scale = p.alpha > 0 ? p.alpha / static_cast<double>(p.rank) : 1.0;
  o.balance = p.balance;
  o.renormalise = p.router_weights != "softmax_all";
  if (o.top_k > o.experts) {
    fail("plan: 'top_k' ({}) cannot exceed 'experts' ({})", o.top_k, o.experts);
  }
  const std::vector<int64_t> layers = resolve_layers(p.layers, model.num_layers(), ctx);
  if (layers.empty()) fail("plan: {} selects no layer", variant_name(plan.variant));

  freeze_all(model);
  const bool beside = p.placement == "beside-mlp";
  GrowthResult r;
  int64_t slot = 0;
  auto make_bank = [&](int64_t l, int64_t d_in, int64_t d_out, const std::string& where,
                       const torch::TensorOptions& options) -> MoeBank {
    if (d_in % o.heads != 0) {
      fail(
          "plan: MH-MoE splits the input of each expert bank into 'heads' = {} equal slices; "
          "layer {}'s {} has {} input features, not divisible",
          o.heads, l, where, d_in);
    }
    MoeOptions bo = o;
    bo.hidden = d_in;
    bo.out = d_out;
    bo.stats_name = fmt::format("{}.{}", l, where);
    MoeBank bank;
    if (mh) {
      bank = std::make_shared<MhMoeImpl>(bo, options);
    } else {
      bank = std::make_shared<LoraMoeImpl>(bo, options);
    }
    // Beside the MLP: slot 100 (GrowBench's first form); per linear: 101, 102, 103.
    if (!ctx.structure_only) bank->init_values(branch_seed(ctx.seed, l, 100 + slot));
    for (auto& t : bank->parameters(true)) t.set_requires_grad(true);
    return bank;
  };
  // One optimizer group per bank.
  auto add_group = [&](int64_t l, const std::string& unit, std::string name, MoeBankImpl& bank) {
    ParamGroup g;
    g.layer = l;
    g.unit = unit;
    g.name = std::move(name);
    g.params = bank.parameters(true);
    r.groups.push_back(std::move(g));
  };
  std::string kind;
  for (int64_t l : layers) {
    auto layer = model.layer(l);
    auto options = layer->mlp->up_proj->dense_weight().options().requires_grad(false);
    if (beside) {
      const int64_t d = layer->mlp->up_proj->in_features();
      slot = 0;
      auto bank = make_bank(l, d, d, kMoeBranch, options);
      kind = bank->kind();
      layer->add_branch(kMoeBranch, bank);
      add_group(l, kMoeBranch, fmt::format("layers.{}.{}", l, kMoeBranch), *bank);
      continue;
    }
    std::vector<std::string> units;
    if (layer->mlp->gate_proj) units.push_back("gate");
    units.push_back("up");
    units.push_back("down");
    for (size_t u = 0; u < units.size(); ++u) {
      const std::string& unit = units[u];
      LinearUnit base = layer->linear(unit);
      const std::string name = family_linear_name(model.config, unit);
      slot = 1 + static_cast<int64_t>(u) + (layer->mlp->gate_proj ? 0 : 1);
      auto bank = make_bank(l, base->in_features(), base->out_features(), name, options);
      kind = bank->kind();
      layer->set_linear(unit, std::make_shared<MoeLinearImpl>(base, bank, "moe_" + name));
      add_group(l, unit, fmt::format("layers.{}.{}.moe", l, unit), *bank);
    }
  }
  if (o.top_k == 1 && o.renormalise && o.balance <= 0) {
    r.warnings.push_back(fmt::format(
        "{} with top_k = 1 and renormalised router weights (eq. 13): every selected expert "
        "gets weight 1, so the routers receive no gradient and keep their initial routing; "
        "set 'router_weights': \"softmax_all\", 'balance' > 0 or top_k >= 2 to train them",
        variant_name(plan.variant)));
    log::get("grow")->warn("{}", r.warnings.back());
  }
  r.function_preserving = true;  // B = 0
  log::get("grow")->info("{}: {} {} on {} layers", variant_name(plan.variant), kind,
                         beside ? "beside the MLP" : "beside each MLP linear", layers.size());
  return r;
}

}  // namespace gb::grow
