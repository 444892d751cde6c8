// Neutral residues and vanilla parallel adapters; the design and the paper references are
// in adapters.h.
#include "grow/adapters.h"

#include <cmath>

#include <torch/torch.h>

#include "grow/growth.h"
#include "util/error.h"
#include "util/log.h"

namespace gb::grow {

namespace F = torch::nn::functional;

AdapterGate parse_adapter_gate(const std::string& gate) {
  if (gate == "none") return AdapterGate::None;
  if (gate == "elu") return AdapterGate::Elu;
  if (gate == "sigmoid") return AdapterGate::Sigmoid;
  fail("adapter gate '{}' is unknown (expected elu, sigmoid or none)", gate);
}

const char* adapter_gate_name(AdapterGate gate) {
  switch (gate) {
    case AdapterGate::None:
      return "none";
    case AdapterGate::Elu:
      return "elu";
    case AdapterGate::Sigmoid:
      return "sigmoid";
  }
  return "?";
}

uint64_t branch_seed(uint64_t seed, int64_t layer, int64_t slot) {
  // splitmix64 over the three inputs: well-mixed, platform-independent.
  auto mix = [](uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  return mix(mix(mix(seed) ^ static_cast<uint64_t>(layer)) ^ static_cast<uint64_t>(slot));
}

torch::Tensor branch_token_weights(const ForwardState& state, int64_t batch, int64_t length,
                                   const torch::Device& device) {
  if (!state.key_padding.defined()) return {};
  const auto& kp = state.key_padding;  // (B, T_total)
  if (kp.size(0) != batch || kp.size(1) < length) {
    fail("key_padding has shape ({}, {}) but the branch input is ({}, {}, ...)", kp.size(0),
         kp.size(1), batch, length);
  }
  return kp.narrow(1, kp.size(1) - length, length).to(device, torch::kFloat);
}

// ---------------------------------------------------------------------------------------

GatedAdapterImpl::GatedAdapterImpl(const AdapterOptions& o, const torch::TensorOptions& to)
    : options(o) {
  if (o.hidden <= 0 || o.inner <= 0) {
    fail("adapter: hidden size ({}) and inner size ({}) must be positive", o.hidden, o.inner);
  }
  const int64_t d = o.hidden, m = o.inner;
  // Bias-free linears holding zeros (out, in); init_values draws the values.
  auto linear = [&](int64_t out, int64_t in) {
    return std::make_shared<DenseLinearImpl>(torch::zeros({out, in}, to), torch::Tensor());
  };
  gate_proj = register_module("gate_proj", linear(m, d));
  up_proj = register_module("up_proj", linear(m, d));
  down_proj = register_module("down_proj", linear(d, m));
  if (o.gate != AdapterGate::None) block_gate = register_module("block_gate", linear(1, d));
}

std::string GatedAdapterImpl::kind() const {
  if (options.gate == AdapterGate::None) return fmt::format("Adapter {}", options.inner);
  return fmt::format("NeutralResidue({}) {}", adapter_gate_name(options.gate), options.inner);
}

int64_t GatedAdapterImpl::num_parameters() const {
  const bool gated = options.gate != AdapterGate::None;
  return adapter_params_per_layer(options.hidden, options.inner, gated);
}

void GatedAdapterImpl::init_values(int64_t num_model_layers, uint64_t seed) {
  const double d = static_cast<double>(options.hidden);
  const bool gated = options.gate != AdapterGate::None;
  // Gated: variance 1/(d·L) (the paper's low-variance init); vanilla: He's 2/d.
  const double std_in =
      gated ? 1.0 / std::sqrt(d * static_cast<double>(num_model_layers)) : std::sqrt(2.0 / d);
  torch::NoGradGuard no_grad;
  auto draw = [&](const std::shared_ptr<DenseLinearImpl>& lin, int64_t slot) {
    auto& w = lin->weight;
    w.copy_(init_normal(w.sizes(), std_in, branch_seed(seed, 0, slot), w.options()));
  };
  draw(gate_proj, 1);
  draw(up_proj, 2);
  if (block_gate) draw(block_gate, 3);
  down_proj->weight.zero_();  // near-identity: the block outputs exactly zero at step 0
}

torch::Tensor GatedAdapterImpl::forward(const torch::Tensor& x, ForwardState& state) {
  // x (B, T, d)
  auto hidden = torch::silu(gate_proj->forward(x, state)) * up_proj->forward(x, state);
  auto a = down_proj->forward(hidden, state);  // (B, T, d)
  torch::Tensor z, y;                          // z (B, T, 1) gate logits
  switch (options.gate) {
    case AdapterGate::None:
      y = a;
      break;
    case AdapterGate::Elu:
      z = block_gate->forward(x, state);
      y = torch::elu(z) * a;
      break;
    case AdapterGate::Sigmoid:
      z = block_gate->forward(x, state);
      y = torch::sigmoid(z) * a;
      break;
  }
  if (!state.aux) return y;

  const int64_t b = x.size(0), t = x.dim() == 3 ? x.size(1) : 1;
  auto w = branch_token_weights(state, b, t, x.device());  // (B, T) or undefined
  auto token_mean = [&](const torch::Tensor& per_token) {  // (B, T) float → scalar
    if (!w.defined()) return per_token.mean();
    return (per_token * w).sum() / w.sum().clamp_min(1.0);
  };
  if (options.l1_alpha > 0 && state.original_rows.defined()) {
    // A batch mixed per row: mean |s·a| over the tokens (and features) of its original-domain
    // rows only; 0, still pushed, when this block of rows has none (every block of a split
    // batch names the same terms).
    auto abs_mean = y.to(torch::kFloat).abs().mean(-1).reshape({b, t});
    auto rows = state.original_rows.to(x.device(), torch::kFloat).reshape({-1});
    if (rows.size(0) != b) {
      fail("neutral residues, layer {}: original_rows has {} entries but the batch has {} rows",
           state.layer_index, rows.size(0), b);
    }
    auto weight = rows.unsqueeze(1).expand({b, t});
    if (w.defined()) weight = weight * w;
    auto value = (abs_mean * weight).sum() / weight.sum().clamp_min(1.0);
    state.aux->push_back({"local_l1", value, options.l1_alpha, /*original_rows_only=*/true});
  } else if (options.l1_alpha > 0 && state.original_domain) {
    // mean |s·a| over tokens and features, in float32.
    auto abs_mean = y.to(torch::kFloat).abs().mean(-1).reshape({b, t});
    state.aux->push_back({"local_l1", token_mean(abs_mean), options.l1_alpha});
  }
  if (options.gate == AdapterGate::Sigmoid) {
    torch::Tensor labels;  // (B) float, 1 = new domain
    if (state.domain_labels.defined()) {
      labels = state.domain_labels.to(x.device(), torch::kFloat).reshape({-1});
      if (labels.size(0) != b) {
        fail(
            "neutral residues (sigmoid gate), layer {}: domain_labels has {} entries but the "
            "batch has {} rows (one label per row, 1 = new domain)",
            state.layer_index, labels.size(0), b);
      }
    } else {
      labels = torch::full({b}, state.original_domain ? 0.0 : 1.0,
                           torch::dtype(torch::kFloat).device(x.device()));
    }
    auto logits = z.to(torch::kFloat).reshape({b, t});
    auto target = labels.unsqueeze(1).expand({b, t});
    auto bce = F::binary_cross_entropy_with_logits(
        logits, target, F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(torch::kNone));
    state.aux->push_back({"gate_bce", token_mean(bce), options.bce_coefficient});
  }
  return y;
}

// ---------------------------------------------------------------------------------------

int64_t adapter_params_per_layer(int64_t hidden, int64_t inner, bool gated) {
  return 3 * hidden * inner + (gated ? hidden : 0);
}

int64_t adapter_inner_size(int64_t base_params, double budget, int64_t num_layers, int64_t hidden,
                           bool gated) {
  if (num_layers <= 0) fail("plan: the adapter budget needs at least one selected layer");
  const double per_layer =
      budget * static_cast<double>(base_params) / static_cast<double>(num_layers);
  const double g = gated ? static_cast<double>(hidden) : 0.0;
  const double m = std::floor((per_layer - g) / (3.0 * static_cast<double>(hidden)));
  if (m < 1) {
    fail(
        "plan: 'budget' = {} of {} base parameters gives {:.0f} extra parameters per layer over "
        "{} layers, fewer than one inner unit needs ({}); raise 'budget' or give 'inner'",
        budget, base_params, per_layer, num_layers, adapter_params_per_layer(hidden, 1, gated));
  }
  return static_cast<int64_t>(m);
}

GrowthResult apply_adapters(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx) {
  const auto& p = plan.get<AdapterParams>();
  const bool nr = plan.variant == Variant::NeutralResidues;
  AdapterOptions o;
  o.gate = parse_adapter_gate(p.gate);
  if (nr && o.gate == AdapterGate::None) {
    fail(
        "plan: neutral-residues needs 'gate' \"elu\" or \"sigmoid\" (use variant \"adapters\" "
        "for ungated adapters)");
  }
  if (!nr && o.gate != AdapterGate::None) {
    fail(
        "plan: variant \"adapters\" is the ungated baseline; use \"neutral-residues\" for a "
        "'gate'");
  }
  o.l1_alpha = nr ? p.alpha : 0.0;
  const std::vector<int64_t> layers = resolve_layers(p.layers, model.num_layers(), ctx);
  if (layers.empty()) fail("plan: {} selects no layer", variant_name(plan.variant));
  o.hidden = model.layer(layers.front())->mlp->up_proj->in_features();
  const bool gated = o.gate != AdapterGate::None;
  const int64_t base = count_parameters(model);
  o.inner = p.inner > 0 ? p.inner
                        : adapter_inner_size(base, p.budget, static_cast<int64_t>(layers.size()),
                                             o.hidden, gated);

  freeze_all(model);
  for (int64_t l : layers) {
    auto layer = model.layer(l);
    const int64_t d = layer->mlp->up_proj->in_features();
    if (d != o.hidden) {
      fail("plan: layer {} has MLP input width {}, layer {} has {}; adapters need one width", l, d,
           layers.front(), o.hidden);
    }
    auto options = layer->mlp->up_proj->dense_weight().options().requires_grad(false);
    auto branch = std::make_shared<GatedAdapterImpl>(o, options);
    if (!ctx.structure_only) branch->init_values(model.num_layers(), branch_seed(ctx.seed, l, 0));
    for (auto& t : branch->parameters(true)) t.set_requires_grad(true);
    layer->add_branch(kAdapterBranch, branch);
  }
  GrowthResult r;
  r.groups = groups_from_requires_grad(model);
  r.function_preserving = true;  // W_down = 0
  log::get("grow")->info(
      "{}: inner size {} ({} parameters per layer) on {} layers{}",
      nr ? fmt::format("neutral residues ({} gate)", p.gate) : std::string("parallel adapters"),
      o.inner, adapter_params_per_layer(o.hidden, o.inner, gated), layers.size(),
      p.inner > 0 ? " (inner given)" : "");
  return r;
}

}  // namespace gb::grow
