// LoRA: W x + (alpha / r) · B A x on the target projections, W frozen, B = 0 at
// initialisation (the parameter-efficient baseline of every paper's comparison).
//
// At a parameter budget ("budget", a fraction of the base model's parameters, as neutral
// residues size their adapters): the added parameters are r · n_layers · Σ_targets (in + out),
// linear in r, so the rank is the one nearest to budget · N_base / (n_layers · Σ (in + out)),
// the smaller on a tie, at least 1.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "grow/growth.h"
#include "grow/peft.h"
#include "grow/variant.h"
#include "model/units.h"
#include "util/error.h"

namespace gb::grow {
namespace {

constexpr int64_t kMaxRank = 4096;
// Measured: autograd's peak holds 1.41 × each adapter's target output width per token in
// training (its update B A x and the working tensors beside it; docs/performance.md, "Memory
// estimates": peak RSS of two steps at 4, 8, 12 and 24 layers of three shapes).
constexpr int64_t kLoraKeptPercent = 141;

// Added parameters per unit of rank: Σ_targets (in + out) over the selected layers.
int64_t params_per_rank(const LoraParams& p, const ModelConfig& c, const std::string& ctx) {
  const int layers = estimate_layer_count(p.layers, c.num_layers, nullptr);
  if (layers <= 0) {
    fail(
        "{}: 'budget' needs the layers the plan touches (a list, \"all\" or a policy of known "
        "size)",
        ctx);
  }
  int64_t per = 0;
  for (const auto& t : p.targets) {
    auto [in, out] = unit_shape(c, t);
    per += in + out;
  }
  return per * layers;
}

// The rank whose added parameters come nearest to budget · N_base (ties: the smaller).
int64_t rank_for_budget(const LoraParams& p, const ModelConfig& c, const std::string& ctx) {
  const int64_t per = params_per_rank(p, c, ctx);
  const int64_t base = c.param_count();
  const double target = p.budget * static_cast<double>(base);
  const auto lo = static_cast<int64_t>(std::floor(target / static_cast<double>(per)));
  const double gap_lo = target - static_cast<double>(lo * per);
  const double gap_hi = static_cast<double>((lo + 1) * per) - target;
  const int64_t r = gap_hi < gap_lo ? lo + 1 : lo;
  if (r < 1) {
    fail(
        "{}: 'budget' = {} of {} base parameters gives {:.0f} extra parameters, nearer to none "
        "than to rank 1 ({} parameters on these targets and layers); raise 'budget' or give "
        "'rank'",
        ctx, p.budget, base, target, per);
  }
  if (r > kMaxRank) {
    fail("{}: 'budget' = {} needs rank {}, above the largest rank {}", ctx, p.budget, r, kMaxRank);
  }
  return r;
}

// The plan's rank from its budget (then cleared), and alpha's default 2 · rank.
void resolve_budget(LoraParams& p, const ModelConfig& c, const std::string& ctx) {
  if (p.budget <= 0) return;
  p.rank = rank_for_budget(p, c, ctx);
  if (p.alpha == 0) p.alpha = 2.0 * static_cast<double>(p.rank);
  p.budget = 0;  // resolved: the plan records its rank
}

VariantModule lora_module() {
  using T = ParamSpec::Type;
  VariantModule m;
  m.id = Variant::Lora;
  m.name = GB_TR("GrowPlanner", "LoRA");
  m.paper = "neutral-residues-adapters.txt §5 (LoRA baseline; Hu et al. 2021)";
  m.description =
      GB_TR("GrowPlanner",
            "Low-rank adapters W x + (alpha/r)·B A x on the target projections, W frozen, B = 0 at "
            "initialisation.");
  m.exportable_hf = true;
  m.export_note = "merged into the base weights: a plain Hugging Face folder";
  m.make = [] { return std::make_unique<LoraParams>(); };
  {
    auto& s = m.param("rank", &LoraParams::rank, T::Int);
    s.min = 1;
    s.max = 4096;
    s.label = GB_TR("GrowPlanner", "Rank r");
    s.help =
        GB_TR("GrowPlanner",
              "Rank of A (r × in) and B (out × r); r · (in + out) trainable parameters per target "
              "and layer.");
  }
  {
    auto& s = m.param("budget", &LoraParams::budget, T::Number);
    s.min = 0;
    s.max = 10;
    s.step = 0.05;
    s.unit = "fraction of the base model";
    s.omit_default = true;
    s.label = GB_TR("GrowPlanner", "Budget");
    s.help = GB_TR("GrowPlanner",
                   "Extra parameters as a fraction of the base model, as neutral residues size "
                   "their adapters: the rank whose parameters come nearest to it (instead of "
                   "'rank'); 0 = the rank as given.");
  }
  {
    auto& s = m.param("alpha", &LoraParams::alpha, T::Number);
    s.min = 0;
    s.max = 1e9;
    s.label = GB_TR("GrowPlanner", "Alpha");
    s.help = GB_TR("GrowPlanner",
                   "Scale numerator: the update B A x is scaled by alpha / r (absent or 0: "
                   "2 · rank).");
  }
  {
    auto& s = m.param("targets", &LoraParams::targets, T::StringList);
    s.choices = units::linear_names();
    s.unit = "LoRA target";
    s.label = GB_TR("GrowPlanner", "Targets");
    s.help = GB_TR(
        "GrowPlanner",
        "Projections that get adapters; gate exists only on gated MLPs (Llama, Qwen, Gemma).");
  }
  {
    auto& s = m.param("layers", &LoraParams::layers, T::Layers);
    s.label = GB_TR("GrowPlanner", "Layers");
    s.help = GB_TR("GrowPlanner",
                   "Layers that get adapters: \"all\", a list of indices or a selection policy.");
  }
  m.validate = [](VariantParams& vp, const nlohmann::json& raw, const std::string& ctx) {
    auto& p = static_cast<LoraParams&>(vp);
    if (p.budget > 0) {
      // (A plan written back by to_json lists the default rank beside the budget.)
      if (raw.contains("rank") && raw["rank"] != LoraParams().rank) {
        fail("{}: give 'rank' or 'budget', not both (the budget chooses the rank)", ctx);
      }
      // 2 · the rank the budget gives, once resolve() has chosen it.
      if (!raw.contains("alpha")) p.alpha = 0;
    } else if (!raw.contains("alpha") || p.alpha == 0) {
      p.alpha = 2.0 * static_cast<double>(p.rank);
    }
    if (p.targets.empty()) fail("{}: 'targets' must name at least one unit", ctx);
    for (size_t i = 0; i < p.targets.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (p.targets[i] == p.targets[j]) {
          fail("{}: 'targets' names '{}' twice", ctx, p.targets[i]);
        }
      }
    }
  };
  m.validate_model = [](const VariantParams& vp, const ModelConfig& c, const std::string& ctx) {
    for (const auto& t : static_cast<const LoraParams&>(vp).targets) {
      if (t == "gate" && !c.gated_mlp) {
        fail("{}: LoRA target 'gate': {} has no gated MLP (its MLP is up → down)", ctx,
             c.model_type);
      }
    }
  };
  m.label = [](const VariantParams& vp) {
    const auto& p = static_cast<const LoraParams&>(vp);
    if (p.budget > 0) return fmt::format(" budget={:g}", p.budget);  // before resolve()
    return fmt::format(" r={}", p.rank);
  };
  m.resolve = [](VariantParams& vp, const ModelConfig& c, const std::string& ctx) {
    resolve_budget(static_cast<LoraParams&>(vp), c, ctx);
  };
  m.apply = [](CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx) {
    GrowthResult r = apply_lora(model, plan, ctx);
    if (!plan.from_peft.empty() && !ctx.structure_only) {
      // A and B from a PEFT adapter: the plan's rank, alpha, targets and layers are the
      // adapter's (grow/peft.h; parse_plan read it, read_adapter reads it again only when it
      // changed on disk); a trained B changes the function. Here, not in apply_lora, so that
      // the LoRA operator knows nothing of PEFT files (peft.cpp builds on lora.h).
      peft::load_weights(model, peft::read_adapter(plan.from_peft));
      r.function_preserving = false;
    }
    return r;
  };
  m.estimate = [](const VariantParams& vp, const ModelConfig& c) {
    LoraParams p = static_cast<const LoraParams&>(vp);
    resolve_budget(p, c, "plan");
    VariantEstimate e;
    e.layers_touched = estimate_layer_count(p.layers, c.num_layers, &e.note);
    e.graph_from_layer = estimate_lowest_layer(p.layers);  // only the adapters train
    int64_t per = 0, outs = 0;
    for (const auto& t : p.targets) {
      auto [in, out] = unit_shape(c, t);
      per += p.rank * (in + out);
      outs += out;
    }
    e.added = e.trainable = per * e.layers_touched;
    // Training keeps each adapter's update on the touched layers (not one value per added
    // parameter and hidden unit).
    e.kept_per_token = std::max(0, e.layers_touched) * outs * kLoraKeptPercent / 100;
    e.kept_layers = std::max(1, e.layers_touched);
    return e;
  };
  return m;
}

}  // namespace
GB_REGISTER_VARIANT(lora_module);
}  // namespace gb::grow
