#include "grow/variants/common.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "grow/adapters.h"
#include "util/error.h"

namespace gb::grow {

using T = ParamSpec::Type;

void add_adapter_params(VariantModule& m, bool gated) {
  if (gated) {
    auto& s = m.param("gate", &AdapterParams::gate, T::Choice);
    s.choices = {"elu", "sigmoid"};
    s.choice_labels = {GB_TR("GrowPlanner", "ELU (implicit)"),
                       GB_TR("GrowPlanner", "Sigmoid (explicit)")};
    s.label = GB_TR("GrowPlanner", "Gate");
    s.help = GB_TR("GrowPlanner",
                   "ELU: the implicit selector “that we refer to as neutral residues”. Sigmoid: an "
                   "explicit selector “trained as a local binary classifier” of the domain.");
  }
  {
    auto& s = m.param("layers", &AdapterParams::layers, T::Layers);
    s.label = GB_TR("GrowPlanner", "Layers");
    s.help = GB_TR("GrowPlanner",
                   "Layers that get an adapter beside their MLP: \"all\", a list or a policy.");
  }
  {
    auto& s = m.param("budget", &AdapterParams::budget, T::Number);
    s.min = 0;
    s.max = 10;
    s.step = 0.05;
    s.unit = "fraction of the base model";
    s.label = GB_TR("GrowPlanner", "Budget");
    s.help = gated ? GB_TR("GrowPlanner",
                           "Extra parameters as a fraction of the base model (“with only 20% "
                           "extra learnable weights”).")
                   : GB_TR("GrowPlanner", "Extra parameters as a fraction of the base model.");
  }
  {
    auto& s = m.param("inner", &AdapterParams::inner, T::Int);
    s.min = 0;
    s.max = 1e6;
    s.label = GB_TR("GrowPlanner", "Inner size");
    s.help = GB_TR("GrowPlanner", "Adapter inner size; 0 derives it from the budget.");
  }
  if (gated) {
    auto& s = m.param("alpha", &AdapterParams::alpha, T::Number);
    s.min = 0;
    s.max = 1e9;
    s.step = 10;
    s.label = GB_TR("GrowPlanner", "Local loss α");
    s.help =
        GB_TR("GrowPlanner",
              "Coefficient of the ℓ1 local loss on original-domain batches (“best optimized when "
              "selected α = 100”); 0 switches it off.");
  }
  m.validate = [](VariantParams& vp, const nlohmann::json&, const std::string& ctx) {
    const auto& p = static_cast<const AdapterParams&>(vp);
    if (p.inner == 0 && p.budget <= 0) fail("{}: give a positive 'budget' or 'inner'", ctx);
  };
}

VariantEstimate estimate_all_trainable(const VariantParams&, const ModelConfig& c) {
  VariantEstimate e;
  e.trainable = c.param_count();
  e.layers_touched = static_cast<int>(c.num_layers);
  return e;
}

VariantEstimate estimate_adapters(const AdapterParams& p, const ModelConfig& c, bool gated) {
  VariantEstimate e;
  e.layers_touched = estimate_layer_count(p.layers, c.num_layers, &e.note);
  e.graph_from_layer = estimate_lowest_layer(p.layers);  // only the adapters train
  const int64_t inner = p.inner > 0 ? p.inner
                                    : adapter_inner_size(c.param_count(), p.budget,
                                                         e.layers_touched, c.hidden_size, gated);
  e.added = e.trainable = e.layers_touched * adapter_params_per_layer(c.hidden_size, inner, gated);
  return e;
}

void add_moe_params(VariantModule& m, bool multi_head) {
  {
    auto& s = m.param("heads", &MoeParams::heads, T::Int);
    s.min = 1;
    s.max = 256;
    s.label = GB_TR("GrowPlanner", "Heads H");
    s.help =
        GB_TR("GrowPlanner",
              "Slices of the hidden state, each with “its own router and its own private expert "
              "bank”; “OP improves with M and is best at M = 16”. Must divide the hidden size.");
    if (!multi_head) {
      s.hidden = true;  // LoRAMoE: 1 (validate_moe names mh-moe for more)
      s.max.reset();
    }
  }
  {
    auto& s = m.param("experts", &MoeParams::experts, T::Int);
    s.min = 1;
    s.max = 256;
    s.label = GB_TR("GrowPlanner", "Experts K");
    s.help = multi_head ? GB_TR("GrowPlanner", "Experts per head.")
                        : GB_TR("GrowPlanner", "Experts per bank.");
  }
  {
    auto& s = m.param("top_k", &MoeParams::top_k, T::Int);
    s.min = 1;
    s.max = 256;
    s.label = GB_TR("GrowPlanner", "Top-k");
    s.help = multi_head ? GB_TR("GrowPlanner", "Experts per token and head.")
                        : GB_TR("GrowPlanner", "Experts per token.");
  }
  {
    auto& s = m.param("rank", &MoeParams::rank, T::Int);
    s.min = 1;
    s.max = 4096;
    s.label = GB_TR("GrowPlanner", "Rank r");
    s.help = multi_head ? GB_TR("GrowPlanner", "Rank of each expert (d_in/H → r → d_out).")
                        : GB_TR("GrowPlanner", "Rank of each expert (d_in → r → d_out).");
  }
  {
    auto& s = m.param("alpha", &MoeParams::alpha, T::Number);
    s.min = 0;
    s.max = 1e9;
    s.label = GB_TR("GrowPlanner", "Alpha");
    s.help = multi_head ? GB_TR("GrowPlanner", "Scale alpha / r; 0 = scale 1.")
                        : GB_TR("GrowPlanner", "LoRA-style scale alpha / r; 0 = scale 1.");
  }
  {
    auto& s = m.param("balance", &MoeParams::balance, T::Number);
    s.min = 0;
    s.max = 1e9;
    s.step = 0.01;
    s.label = GB_TR("GrowPlanner", "Balance loss");
    s.help = multi_head ? GB_TR("GrowPlanner", "Load-balancing loss coefficient.")
                        : GB_TR("GrowPlanner", "Coefficient of the load-balancing loss (0 = off).");
  }
  {
    auto& s = m.param("router_weights", &MoeParams::router_weights, T::Choice);
    s.choices = {"renormalised", "softmax_all"};
    s.choice_labels = {GB_TR("GrowPlanner", "Renormalised over the selected (eq. 13)"),
                       GB_TR("GrowPlanner", "Softmax over all experts")};
    s.label = GB_TR("GrowPlanner", "Router weights");
    s.help = GB_TR("GrowPlanner",
                   "Renormalised: the paper's eq. 13, a softmax over the selected experts only; "
                   "with top-1 the weight is exactly 1 and the router never trains (the run "
                   "records a warning). Softmax over all: the selected experts keep their "
                   "share of a softmax over all K (Switch-style), so a top-1 router learns.");
  }
  {
    auto& s = m.param("placement", &MoeParams::placement, T::Choice);
    s.choices = {"mlp-linears", "beside-mlp"};
    s.choice_labels = {GB_TR("GrowPlanner", "Beside each MLP linear (paper, A.3.4)"),
                       GB_TR("GrowPlanner", "Beside the whole MLP")};
    s.label = GB_TR("GrowPlanner", "Placement");
    s.help = GB_TR("GrowPlanner",
                   "Beside each MLP linear: a bank of experts in parallel to each of gate, up and "
                   "down (GPT-2, GPT-NeoX: the two MLP linears), each expert mapping that "
                   "linear's input to its output, as the paper attaches experts. Beside the "
                   "whole MLP: one bank d → r → d reading the MLP's input.");
  }
  {
    auto& s = m.param("layers", &MoeParams::layers, T::Layers);
    s.label = GB_TR("GrowPlanner", "Layers");
    s.help =
        GB_TR("GrowPlanner", "Layers whose MLP gets expert banks: \"all\", a list or a policy.");
  }
  {
    auto& s = m.param("match_active_params_of", &MoeParams::match_active_params_of, T::Plan);
    s.label = GB_TR("GrowPlanner", "Match the activated parameters of");
    s.help = GB_TR("GrowPlanner",
                   "A reference plan: the rank is chosen so that the parameters active per "
                   "token equal the reference's on the model as closely as possible (instead "
                   "of 'rank').");
  }
  // Data-parallel: DDP's load-balancing loss is each process's.
  m.run.warnings = [](const VariantParams& vp, const RunFacts& f) {
    std::vector<std::string> w;
    if (f.data_parallel && static_cast<const MoeParams&>(vp).balance > 0) {
      w.push_back(
          "data-parallel: the load-balancing loss is computed on each process's rows (as DDP "
          "does), so it and the run depend on the number of processes");
    }
    return w;
  };
  m.validate = [multi_head](VariantParams& vp, const nlohmann::json& raw, const std::string& ctx) {
    const auto& p = static_cast<const MoeParams&>(vp);
    // (A plan written back by to_json lists the default rank beside the reference.)
    if (!p.match_active_params_of.is_null() && raw.contains("rank") &&
        raw["rank"] != MoeParams().rank) {
      fail("{}: give 'rank' or 'match_active_params_of', not both", ctx);
    }
    if (!multi_head && p.heads != 1) {
      fail("{}: LoRAMoE routes whole tokens; use variant \"mh-moe\" for 'heads' > 1", ctx);
    }
    validate_moe(p, ctx);
  };
  m.validate_model = [multi_head](const VariantParams& vp, const ModelConfig& c,
                                  const std::string& ctx) {
    const auto& p = static_cast<const MoeParams&>(vp);
    if (multi_head && c.hidden_size % p.heads != 0) {
      fail(
          "{}: MH-MoE splits the hidden state into 'heads' = {} equal slices; hidden size {} is "
          "not divisible",
          ctx, p.heads, c.hidden_size);
    }
    if (multi_head && p.placement == "mlp-linears" && c.intermediate_size % p.heads != 0) {
      fail(
          "{}: MH-MoE splits the input of the MLP's down projection into 'heads' = {} equal "
          "slices; the intermediate size {} is not divisible (or use 'placement': "
          "\"beside-mlp\")",
          ctx, p.heads, c.intermediate_size);
    }
  };
  m.resolve = [](VariantParams& vp, const ModelConfig& c, const std::string& ctx) {
    resolve_matched_rank(static_cast<MoeParams&>(vp), c, ctx);
  };
  m.label = [](const VariantParams& vp) { return moe_label(static_cast<const MoeParams&>(vp)); };
  m.estimate = [](const VariantParams& vp, const ModelConfig& c) {
    return estimate_moe(static_cast<const MoeParams&>(vp), c);
  };
}

void resolve_matched_rank(MoeParams& p, const ModelConfig& c, const std::string& ctx) {
  if (p.match_active_params_of.is_null()) return;
  GrowthPlan ref = parse_plan(p.match_active_params_of, ctx + ".match_active_params_of");
  const VariantModule& rm = variant_module(ref.variant);
  if (rm.resolve) rm.resolve(*ref.params.get(), c, ctx + ".match_active_params_of");
  const VariantEstimate re = rm.estimate(*ref.params.get(), c);
  const int64_t target = re.activated >= 0 ? re.activated : re.trainable;
  if (re.layers_touched < 0 || target <= 0) {
    fail(
        "{}.match_active_params_of: cannot tell the reference plan's activated parameters on "
        "this model",
        ctx);
  }
  if (estimate_layer_count(p.layers, c.num_layers, nullptr) <= 0) {
    fail("{}: match_active_params_of needs the layers this plan touches", ctx);
  }
  // Activated parameters are affine in the rank: try every rank near the solution.
  auto activated = [&](int64_t r) {
    MoeParams q = p;
    q.rank = r;
    const VariantEstimate e = estimate_moe(q, c);
    return e.activated >= 0 ? e.activated : e.trainable;
  };
  const int64_t a1 = activated(1), a2 = activated(2);
  const int64_t slope = std::max<int64_t>(1, a2 - a1);
  const int64_t guess = std::clamp<int64_t>(1 + (target - a1) / slope, 1, 4096);
  int64_t best = 1, best_gap = INT64_MAX;
  for (int64_t r = std::max<int64_t>(1, guess - 2); r <= std::min<int64_t>(4096, guess + 2); ++r) {
    const int64_t gap = std::llabs(activated(r) - target);
    if (gap < best_gap) {
      best = r;
      best_gap = gap;
    }
  }
  p.rank = best;
  p.match_active_params_of = nullptr;  // resolved: the plan records its rank
}

void validate_moe(const MoeParams& p, const std::string& ctx) {
  if (p.top_k > p.experts) {
    fail("{}: 'top_k' ({}) cannot exceed 'experts' ({})", ctx, p.top_k, p.experts);
  }
}

std::string moe_label(const MoeParams& p) {
  std::string s = fmt::format(" K={} top{}", p.experts, p.top_k);
  if (p.heads > 1) s += fmt::format(" H={}", p.heads);
  if (p.router_weights == "softmax_all") s += " softmax-all";
  if (p.placement == "beside-mlp") s += " beside-mlp";
  return s;
}

VariantEstimate estimate_moe(const MoeParams& p, const ModelConfig& c) {
  VariantEstimate e;
  e.layers_touched = estimate_layer_count(p.layers, c.num_layers, &e.note);
  e.graph_from_layer = estimate_lowest_layer(p.layers);  // only the experts and routers train
  const int64_t d = c.hidden_size, H = std::max<int64_t>(1, p.heads), K = p.experts, r = p.rank;
  // The banks of one layer as (d_in, d_out): beside the MLP d → d; per linear gate and up
  // d → p, down p → d.
  std::vector<std::pair<int64_t, int64_t>> banks;
  if (p.placement == "beside-mlp") {
    banks = {{d, d}};
  } else {
    const int64_t inner = c.intermediate_size;
    if (c.gated_mlp) banks.emplace_back(d, inner);
    banks.emplace_back(d, inner);
    banks.emplace_back(inner, d);
  }
  int64_t total = 0, active = 0;
  for (const auto& [d_in, d_out] : banks) {
    // Per head: a router (K × d_in/H) and K experts d_in/H → r → d_out.
    const int64_t dh = d_in / H, router = K * dh, expert = r * dh + d_out * r;
    total += H * (router + K * expert);
    active += H * (router + p.top_k * expert);
  }
  e.added = e.trainable = e.layers_touched * total;
  e.activated = e.layers_touched * active;
  return e;
}

}  // namespace gb::grow
