#pragma once
// Applying a GrowthPlan to a loaded model: the model is changed in place (units replaced,
// layers inserted, branches added), every parameter's requires_grad says whether it
// trains, and the result describes the trainable set as per-unit parameter groups (the
// trainer builds optimizer groups from them; ADEPT's unit-wise learning rates address them
// by layer and unit), the loss terms the variant adds, and parameter counts.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/nn/module.h>

#include "grow/plan.h"
#include "model/modules.h"

namespace gb::grow {

// A set of trainable tensors belonging to one unit (the granularity of learning-rate
// groups). `layer` is -1 for units outside the layers (embedding, head).
struct ParamGroup {
  std::string name;  // "layers.3.q", "layers.3.mlp.up.grown", "embed", "lm_head", ...
  int64_t layer = -1;
  std::string unit;  // q k v o gate up down input_norm ... or a branch/new-part name
  std::vector<torch::Tensor> params;
  int64_t numel() const;
};

// A model-level loss term a variant adds (EWC's penalty): the trainer adds
// coefficient * compute() to the loss of every step.
class LossTerm {
 public:
  virtual ~LossTerm() = default;
  virtual std::string name() const = 0;
  virtual double coefficient() const = 0;
  virtual torch::Tensor compute() = 0;  // scalar, differentiable
};

struct ApplyContext {
  uint64_t seed = 0;  // random initialisation of new parameters
  // Structure only: create every module with the right shapes but skip value computations
  // (SVD inits, copies); used when loading a GrowBench checkpoint, whose file then provides
  // every value.
  bool structure_only = false;
  // Resolves a selection policy ({"policy": ...}) to layers; set by the runner, which runs
  // the probes the policy needs. Unset: a policy in the plan is an error.
  std::function<std::vector<int64_t>(const nlohmann::json& policy)> resolve_policy;
  // EWC: diagonal Fisher per parameter name (from a probe on the original domain).
  std::map<std::string, torch::Tensor> fisher;
};

struct GrowthResult {
  GrowthPlan plan;                 // with every layer selection resolved to a list
  std::vector<ParamGroup> groups;  // exactly the trainable tensors, each once
  std::vector<std::shared_ptr<LossTerm>> loss_terms;
  std::vector<std::string> warnings;  // about the plan as applied (the runner records them)
  std::vector<int64_t> new_layers;    // depth expansion: indices of inserted layers (after)
  // ADEPT stage 2: the layers whose units get unit-wise learning rates (depth plans: the
  // inserted layers; style "in-place": the chosen original layers), indices after growth.
  std::vector<int64_t> unit_lr_layers;
  int64_t base_params = 0;
  int64_t total_params = 0;
  int64_t trainable_params = 0;
  bool function_preserving = true;  // whether the variant claims f(x) unchanged at init
  // Route and other variants that change the forward pass at step 0 set this false.
  int64_t added_params() const { return total_params - base_params; }
  nlohmann::json to_json() const;  // counts and groups (names and sizes)
};

// Applies `plan` to `model` in place. Validates the plan against the model first and
// resolves layer policies; operators receive the plan with explicit layer lists and need not
// set GrowthResult::plan, base_params, total_params or trainable_params (apply_plan does).
GrowthResult apply_plan(CausalLMImpl& model, const GrowthPlan& plan,
                        const ApplyContext& context = {});

// ---------------------------------------------------------------------------------------
// Building blocks for the operators (grow/*.cpp)

// Sets requires_grad(false) on every parameter of the model.
void freeze_all(CausalLMImpl& model);
// Collects every parameter with requires_grad into groups, one per unit, naming them from
// the registered names. Used by operators that only toggle requires_grad.
std::vector<ParamGroup> groups_from_requires_grad(CausalLMImpl& model);
// Registered name → parameter.
std::map<std::string, torch::Tensor> parameter_map(CausalLMImpl& model);
// The layers a selection denotes, resolving policies through the context.
std::vector<int64_t> resolve_layers(const LayerSelection& selection, int64_t num_layers,
                                    const ApplyContext& context);
// A deterministic generator for new parameters: normal(0, std) of `shape`.
torch::Tensor init_normal(c10::IntArrayRef shape, double std, uint64_t seed,
                          const torch::TensorOptions& options);

// Per-variant operators (each in its own file under core/grow/).
GrowthResult apply_full(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx);
GrowthResult apply_freeze(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx);
GrowthResult apply_lora(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx);
GrowthResult apply_grow(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx);
GrowthResult apply_scale(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx);
GrowthResult apply_depth(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx);
GrowthResult apply_adapters(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx);
GrowthResult apply_ewc(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx);
GrowthResult apply_moe(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx);

}  // namespace gb::grow
