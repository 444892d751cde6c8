#pragma once
// GrowthPlan: a growth variant, the layers it applies to, and the variant's
// hyper-parameters. Parsed from and written to JSON (it is part of every run's spec);
// validated with errors naming the key. No LibTorch here.
//
// Accepted JSON forms (see docs/plans.md for every key and an example per variant):
//   {"variant":"full"}
//   {"variant":"freeze","bottom":2}
//   {"variant":"lora","rank":8,"alpha":16,"targets":["q","v","gate","up","down"]}
//   {"variant":"lora","from_peft":"path/to/adapter"}   (a PEFT LoRA adapter folder)
//   {"variant":"grow","mode":"freeze"|"train","k":2,"layers":[0,3]|"all"}
//   {"variant":"scale","mode":"preserve"|"adapt"|"route","d_up":64,"p_up":128,"l_fp":1,
//    "tau":0.5,"init":"svd,zero"}
//   {"variant":"depth","style":"llama-pro","count":2}
//   {"variant":"depth","style":"adept","layers":[1,3]}
//   {"variant":"depth","style":"in-place","layers":[1,3]}   (ADEPT without stage 1)
//   {"variant":"neutral-residues","gate":"elu"|"sigmoid","layers":"all","budget":0.2,
//    "alpha":100}
//   {"variant":"adapters","layers":"all","budget":0.2}
//   {"variant":"ewc","lambda":1.0}
//   {"variant":"loramoe","experts":4,"top_k":2,"rank":4}
//   {"variant":"mh-moe","heads":4,"experts":4,"top_k":1,"rank":4}
// "layers" is "all", a list of indices, or a selection policy object
// {"policy": "least-important"|"most-important"|"update-magnitude"|"uniform"|"above-lfp"|
//  "calibrated", "k": N, ...} that the runner resolves from importance probes.

#include <cstdint>
#include <optional>
#include <string>
#include <memory>
#include <typeinfo>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/config.h"

namespace gb::grow {

struct LayerSelection {
  enum class Kind { All, List, Policy };
  Kind kind = Kind::All;
  std::vector<int64_t> layers;  // Kind::List (sorted, unique)
  nlohmann::json policy;        // Kind::Policy, e.g. {"policy":"least-important","k":2}

  // The explicit layer list for a model with `num_layers` layers. Throws for an index out
  // of range, or for an unresolved policy.
  std::vector<int64_t> resolve(int64_t num_layers) const;
  nlohmann::json to_json() const;
  static LayerSelection parse(const nlohmann::json& j, const std::string& context);
  static LayerSelection all() { return {}; }
  static LayerSelection list(std::vector<int64_t> layers);
};

// The parameters of a variant: a struct deriving from VariantParamsOf<itself>. The
// variant module (core/grow/variants/<id>.cpp) binds its fields to the parameter schema.
struct VariantParams {
  virtual ~VariantParams() = default;
  virtual std::unique_ptr<VariantParams> clone() const = 0;
};
template <typename Derived>
struct VariantParamsOf : VariantParams {
  std::unique_ptr<VariantParams> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

struct FullParams : VariantParamsOf<FullParams> {};

struct FreezeParams : VariantParamsOf<FreezeParams> {
  int64_t bottom = 2;  // the bottom k layers and the input embedding are frozen
  bool freeze_embedding = true;
};

struct LoraParams : VariantParamsOf<LoraParams> {
  int64_t rank = 8;
  // Extra parameters as a fraction of the base model (0: off, `rank` as given): the rank whose
  // adapters' parameters come nearest to budget · base parameters (ties: the smaller rank),
  // chosen on the model (VariantModule::resolve), which then clears it.
  double budget = 0;
  double alpha = 16;  // 0 (and absent): 2 · rank
  std::vector<std::string> targets = {"q", "v"};  // units: q k v o gate up down
  LayerSelection layers;
};

struct GrowParams : VariantParamsOf<GrowParams> {
  std::string mode = "freeze";  // "freeze" (G-Freeze) or "train" (G-Train)
  int64_t k = 2;                // replication factor, >= 2
  LayerSelection layers;
};

struct ScaleParams : VariantParamsOf<ScaleParams> {
  std::string mode = "preserve";  // "preserve", "adapt" or "route"
  int64_t d_up = 0;               // added hidden width: whole kv groups of heads
  int64_t p_up = 0;               // added MLP width
  int64_t l_fp = 0;               // lowest layers whose W12 stays zero and frozen
  // Where the new part collaborates (trainable W12 above l_fp): "all" linears, "attention"
  // (q, k, v, o) or "ffn" (gate, up, down) only (§3.3's module ablation).
  std::string collaboration = "all";
  bool attention_only = false;  // earlier specs: the same as collaboration "attention"
  // The collaboration in effect (attention_only wins when set).
  std::string effective_collaboration() const {
    return attention_only ? "attention" : collaboration;
  }
  double tau = 0.5;              // Route threshold on cos(Z_p, Z_a)
  std::string init_w21 = "svd";  // "zero", "random" or "svd"
  std::string init_w22 = "zero";
  std::string init() const { return init_w21 + "," + init_w22; }
};

struct DepthParams : VariantParamsOf<DepthParams> {
  // "llama-pro" (uniform), "adept" (copies after chosen layers) or "in-place" (no copies:
  // the chosen original layers train in place; ADEPT without stage 1 as the paper's
  // ablation states it: unit-wise rates on the k least important layers, no new parameters).
  std::string style = "llama-pro";
  int64_t count = 0;      // llama-pro: number of blocks P
  LayerSelection layers;  // adept: copies go right after these layers; in-place: they train
  // Stage 2 (adept-adaptive-expansion.txt §3.2): unit-wise learning rates
  // lr_U = 2·(max − I_U)/(max − min)·lr on the units of the new blocks (in-place: of the
  // chosen layers), assigned after every t_update training steps (never at step 0; the
  // base rate before the first). On by default for "adept" and "in-place", off for
  // "llama-pro" (on there: LLaMA-Pro placement with stage 2).
  bool unit_lr = true;
  int64_t t_update = 500;
  // taylor-code (ADEPT's public code, the default), taylor (the paper's text), taylor-abs
  // or fisher.
  std::string unit_importance = "taylor-code";
  // Min-max normalisation of stage 2 over all the units ("all", ADEPT's code) or per kind,
  // norms apart from matrices ("kind"; their importances differ by 100x or more).
  std::string unit_norm = "all";
};

struct AdapterParams : VariantParamsOf<AdapterParams> {
  std::string gate = "elu";  // "elu" (neutral residues), "sigmoid" (explicit selector),
                             // "none" (vanilla parallel adapters)
  LayerSelection layers;
  double budget = 0.2;   // extra parameters as a fraction of the base model
  int64_t inner = 0;     // inner size; 0 = derived from the budget
  double alpha = 100.0;  // coefficient of the local l1 loss (both gates; the sigmoid
                         // gate's BCE has coefficient 1, see grow/adapters.h)
};

struct EwcParams : VariantParamsOf<EwcParams> {
  double lambda = 1.0;
};

struct MoeParams : VariantParamsOf<MoeParams> {
  int64_t heads = 1;  // 1 = LoRAMoE; > 1 = MH-MoE with head-wise routing
  int64_t experts = 4;
  int64_t top_k = 1;  // the paper's default for both LoRAMoE and MH-MoE
  int64_t rank = 4;
  double alpha = 0;                             // LoRA-style scale alpha/rank; 0 = scale 1
  double balance = 0.0;                         // coefficient of the load-balancing loss (0 = off)
  std::string router_weights = "renormalised";  // eq. 13, or "softmax_all" (Switch-style)
  // "mlp-linears": a bank beside each linear of the MLP (the paper's A.3.4); "beside-mlp":
  // one bank d → r → d in parallel to the whole MLP.
  std::string placement = "mlp-linears";
  // A reference plan: the rank is chosen so that this plan's activated parameters (per
  // token) match the reference's on the model (null: off; `rank` as given).
  nlohmann::json match_active_params_of;
  LayerSelection layers;
};

// The ids of the built-in variants (the JSON "variant" values). A plan's variant is its id
// string: `plan.variant == Variant::Ewc`. The registry (grow/variant.h) knows them all.
namespace Variant {
inline constexpr char Full[] = "full";
inline constexpr char Freeze[] = "freeze";
inline constexpr char Lora[] = "lora";
inline constexpr char Grow[] = "grow";
inline constexpr char Scale[] = "scale";
inline constexpr char Depth[] = "depth";
inline constexpr char NeutralResidues[] = "neutral-residues";
inline constexpr char Adapters[] = "adapters";
inline constexpr char Ewc[] = "ewc";
inline constexpr char LoraMoe[] = "loramoe";
inline constexpr char MhMoe[] = "mh-moe";
}  // namespace Variant
const char* variant_name(const std::string& id);  // the id itself (kept for call sites)
std::vector<std::string> variant_names();         // every registered id

// A value-semantic holder of a variant's parameters.
class ParamsHolder {
 public:
  ParamsHolder() = default;
  ParamsHolder(std::unique_ptr<VariantParams> p) : m_p(std::move(p)) {}
  ParamsHolder(const ParamsHolder& o) : m_p(o.m_p ? o.m_p->clone() : nullptr) {}
  ParamsHolder& operator=(const ParamsHolder& o) {
    if (this != &o) m_p = o.m_p ? o.m_p->clone() : nullptr;
    return *this;
  }
  ParamsHolder(ParamsHolder&&) = default;
  ParamsHolder& operator=(ParamsHolder&&) = default;
  VariantParams* get() const { return m_p.get(); }
  explicit operator bool() const { return m_p != nullptr; }

 private:
  std::unique_ptr<VariantParams> m_p;
};

// EWC as a regulariser of any plan ("ewc": {...}): λ/2 · Σ_tasks Σ_i F_i (θ_i − θ*_i)² over
// the variant's trainable parameters. The first anchor is the grown model before training
// with the Fisher of the original domain (the general probe set); in a task sequence the
// Fisher is re-estimated after each task on that task's data:
//   per-task  one anchor and Fisher per finished task, the penalties add up;
//   online    one anchor (the latest) and F = γ·F_previous + F_task (online EWC).
struct EwcOptions {
  double lambda = 1.0;
  std::string mode = "per-task";  // or "online"
  double gamma = 1.0;             // online: decay of the previous Fisher, in (0, 1]
};

struct GrowthPlan {
  std::string variant = Variant::Full;
  ParamsHolder params;  // the variant's parameter struct (FullParams, LoraParams, ...)
  std::string name;     // optional label ("G-Freeze k=2"); defaults to a generated one
  // Keys every plan accepts (not the variant's; the runner applies them):
  std::optional<double> replay;   // fraction p of original-domain batches for this plan's
                                  // run, in [0, 1); unset: the spec's train.replay
  // How replay mixes: "batches" (whole original-domain batches with probability p) or
  // "rows" (round(p·B) original-domain rows in every batch; data/packing.h); unset: the
  // spec's train.replay_mode.
  std::optional<std::string> replay_mode;
  std::optional<EwcOptions> ewc;  // EWC on this plan's trainable parameters
  // LoRA only: the PEFT adapter folder (absolute) whose adapter_config.json gave rank,
  // alpha, targets and layers, and whose A and B the plan loads instead of initialising them
  // ("from_peft"; grow/peft.h). Empty otherwise.
  std::string from_peft;
  // The EWC of the run: `ewc`, or for the "ewc" variant (full fine-tuning + EWC, kept for
  // earlier specs) its lambda in per-task mode; unset: none.
  std::optional<EwcOptions> effective_ewc() const;

  template <typename T>
  const T& get() const {
    return const_cast<GrowthPlan*>(this)->get<T>();
  }
  template <typename T>
  T& get() {
    auto* p = dynamic_cast<T*>(params.get());
    if (!p) throw_wrong_params(typeid(T).name());
    return *p;
  }
  // The layer selection of the variant, or nullptr when the variant takes none (or the
  // layers key does not apply in its mode, e.g. depth/llama-pro).
  const LayerSelection* layers() const;
  LayerSelection* layers();
  std::string label() const;  // name, or e.g. "grow/freeze k=2 layers=all"

 private:
  [[noreturn]] void throw_wrong_params(const char* type) const;
};

// Parses and validates everything that does not depend on a model (types, ranges, known
// keys, k >= 2, ...). Errors name the key: "plan: 'k' must be at least 2, found 1".
GrowthPlan parse_plan(const nlohmann::json& j, const std::string& context = "plan");
// Validates against a model: layer indices in range, SCALE d_up a whole number of kv
// groups of heads, the family having the parts the variant touches, ...
void validate_plan(const GrowthPlan& plan, const ModelConfig& config,
                   const std::string& context = "plan");
nlohmann::json to_json(const GrowthPlan& plan);

}  // namespace gb::grow
