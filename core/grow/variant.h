#pragma once
// Growth variants as modules. A variant is one file under core/grow/variants/: it declares
// its id, display name, the paper and section it follows, its parameter schema, validation
// beyond the schema, how it is applied, whether it exports to a plain Hugging Face folder,
// its parameter-count estimate and its run-time behaviour (grow/run_hooks.h), and
// registers itself with GB_REGISTER_VARIANT. Plan parsing and its error messages
// (grow/plan_parse.cpp), `growbench-cli variants`, the GUI planner form, the plan estimates, the
// parameter tables of docs/plans.md and what the runner does for a plan are all derived
// from these declarations. docs/architecture.md shows how to add a variant.
//
// No LibTorch here: the GUI includes this header.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grow/plan.h"
#include "grow/run_hooks.h"
#include "model/config.h"

// Marks a display string (variant names, descriptions, parameter labels and help, estimate
// notes) for translation: the GUI shows QCoreApplication::translate(context, text), and
// lupdate finds these through -tr-function-alias QT_TRANSLATE_NOOP+=GB_TR
// (translations/CMakeLists.txt). Plain text everywhere else.
#define GB_TR(context, text) text

namespace gb {
class CausalLMImpl;
}

namespace gb::grow {

struct ApplyContext;
struct GrowthResult;

// One hyper-parameter of a variant.
struct ParamSpec {
  enum class Type {
    Int,
    Number,
    Bool,
    Choice,
    StringList,
    Layers,
    Plan
  };                 // Plan: a plan
                     // object (or null)
  std::string name;  // the plan key
  Type type = Type::Int;
  nlohmann::json default_value;            // the value when the key is absent
  std::optional<double> min, max;          // Int and Number: inclusive bounds
  std::vector<std::string> choices;        // Choice: allowed values; StringList: allowed items
  std::vector<std::string> choice_labels;  // display labels of the choices (GUI)
  std::string unit;                        // "layers", "fraction of the base model", ...
  std::string label;                       // form label ("Rank r")
  std::string help;                        // one line
  double step = 1;                         // GUI spin-box step
  // The key applies only when `when_key` has one of `when_values` (e.g. SCALE's tau only
  // in route mode). A key that does not apply is an error in a plan and hidden in forms.
  std::string when_key;
  std::vector<std::string> when_values;
  // Appended to the error for a key given where it does not apply.
  std::string when_hint;
  // Accepted in plans for compatibility but not offered (forms, listings, docs).
  bool hidden = false;
  // to_json (the canonical plan) leaves the key out while it holds its default: for keys
  // added after plans were stored, whose canonical form (and spec hashes) then stay as they
  // were.
  bool omit_default = false;
  // A default that depends on other keys (the plan's values, schema defaults filled in):
  // used when the key is absent; `default_value` is what listings show. E.g. ADEPT's
  // stage 2 is on by default for style "adept" and off for "llama-pro".
  std::function<nlohmann::json(const nlohmann::json& values)> default_for;
  // Choice: a check before the choices, for a more specific message (throws).
  std::function<void(const nlohmann::json& value, const std::string& ctx)> check;
  // A starting value, maximum and spin-box step that suit `config` (GUI forms; the schema's
  // default and range still decide what a plan may hold). Empty: the schema's own.
  struct ModelHint {
    std::optional<nlohmann::json> value;
    std::optional<double> max;
    std::optional<double> step;
  };
  std::function<ModelHint(const ModelConfig&)> model_hint;

  // Binding to the typed parameter struct (set by VariantModule::param()).
  std::function<nlohmann::json(const VariantParams&)> read;
  std::function<void(VariantParams&, const nlohmann::json&)> write;
  std::function<LayerSelection*(VariantParams&)> layers;  // Type::Layers only

  bool applies(const nlohmann::json& values) const;  // values: the plan's keys (defaults filled)
  nlohmann::json to_json() const;                    // the `variants --json` contract
};
const char* type_name(ParamSpec::Type type);

// Closed-form parameter counts of a plan on a model config (no weights, no LibTorch).
struct VariantEstimate {
  int64_t added = 0;       // parameters the variant adds
  int64_t trainable = 0;   // parameters that train
  int64_t activated = -1;  // parameters active per token among the trainable (routed experts
                           // count top_k of K); -1 = all of `trainable`
  int layers_touched = 0;
  bool function_preserving = true;
  std::string note;  // caveats
  // What the plan adds to the activations autograd keeps in training (the memory estimate,
  // experiment/estimate.h). The defaults fit most plans: about one value per token for each
  // added parameter per hidden unit (a grown MLP's extra gate, up and hidden values;
  // adapters' inner values), spread over the model's layers.
  int64_t added_layers = -1;    // whole decoder layers added, kept as the base's (-1: none)
  int64_t kept_per_token = -1;  // elements per token kept beside the layers' (-1: the default)
  int64_t kept_layers = 0;      // layers they spread over (one at a time under activation
                                // checkpointing); 0: every layer
  // The (V, d) embedding trains, and under activation checkpointing the peak comes when its
  // gradient has two more float32 copies beside it (measured on full fine-tuning).
  bool embedding_gradient_copies = false;
  // The lowest base layer with a graph in training: below it nothing trains and nothing
  // takes a trainable input (the embedding frozen), so autograd keeps nothing there
  // (measured: G-Freeze on the top 4 of 28 layers). 0: every layer.
  int64_t graph_from_layer = 0;
};

// The number of layers a selection denotes on an L-layer model for estimates: policies
// count their k (or L − l_fp, ...) and set `note`; -1 when it cannot be told.
int estimate_layer_count(const LayerSelection& selection, int64_t num_layers, std::string* note);
// The lowest layer a selection names for estimates: the smallest index of an explicit list,
// 0 for "all" and for a policy (resolved only when the run starts: every layer may hold a
// graph).
int64_t estimate_lowest_layer(const LayerSelection& selection);
// Parameters of one transformer block of `config`.
int64_t layer_param_count(const ModelConfig& config);
// In/out sizes of a linear unit (q k v o gate up down) of `config`; {0, 0} otherwise.
std::pair<int64_t, int64_t> unit_shape(const ModelConfig& config, const std::string& unit);

class VariantModule {
 public:
  std::string id;           // the JSON "variant" value
  std::string name;         // display name
  std::string paper;        // paper file and section it follows
  std::string description;  // one paragraph (GUI, docs)
  bool exportable_hf = false;
  std::string export_note;  // how it exports (or why not)
  // Why `growbench-cli grow` has nothing to compare for this variant ("" = it has): the GUI
  // shows it instead of running the preservation check.
  std::string no_check_reason;
  std::vector<ParamSpec> params;

  // A default-constructed parameter struct of this variant.
  std::function<std::unique_ptr<VariantParams>()> make;
  // After the schema checks: checks between keys and values derived from others (raw: the
  // plan JSON as given).
  std::function<void(VariantParams&, const nlohmann::json& raw, const std::string& ctx)> validate;
  // Checks against a model config.
  std::function<void(const VariantParams&, const ModelConfig&, const std::string& ctx)>
      validate_model;
  // The label suffix after the id ("/freeze k=2").
  std::function<std::string(const VariantParams&)> label;
  // Resolves values that depend on the model (e.g. a rank chosen to match another plan's
  // activated parameters) before `apply` and estimates; may be empty.
  std::function<void(VariantParams&, const ModelConfig&, const std::string& ctx)> resolve;
  // Applies the plan (layers resolved to lists) to the model.
  std::function<GrowthResult(CausalLMImpl&, const GrowthPlan&, const ApplyContext&)> apply;
  std::function<VariantEstimate(const VariantParams&, const ModelConfig&)> estimate;
  // Defaults a plan takes from other sections of its experiment spec (keys of earlier spec
  // versions, e.g. ADEPT's top-level "adept" section); returns the plan with them filled in.
  // May be empty.
  std::function<nlohmann::json(const nlohmann::json& spec, const nlohmann::json& plan)>
      spec_defaults;
  // What the variant needs and does while a run trains its plan (grow/run_hooks.h).
  RunHooks run;

  const ParamSpec* find(const std::string& key) const;
  const ParamSpec* layers_param() const;  // the Type::Layers parameter, or nullptr
  nlohmann::json to_json() const;         // the `variants --json` element

  // Declares a parameter bound to a member of the variant's struct P; the default is the
  // member's value in make()'s struct. Returns the spec to fill in.
  template <typename P, typename T>
  ParamSpec& param(const std::string& key, T P::*member, ParamSpec::Type type);
};

// The registry, in registration order sorted by a fixed display order.
const std::vector<const VariantModule*>& variants();
const VariantModule* find_variant(const std::string& id);
const VariantModule& variant_module(const std::string& id);  // throws naming the known ids
bool register_variant(const VariantModule* module);

// Markdown table of a variant's parameters (docs/plans.md embeds these; a test compares).
std::string params_markdown(const VariantModule& module);

// ---------------------------------------------------------------------------------------

template <typename P, typename T>
ParamSpec& VariantModule::param(const std::string& key, T P::*member, ParamSpec::Type type) {
  ParamSpec s;
  s.name = key;
  s.type = type;
  auto defaults = make();
  s.read = [member](const VariantParams& p) -> nlohmann::json {
    const T& v = static_cast<const P&>(p).*member;
    if constexpr (std::is_same_v<T, LayerSelection>) {
      return v.to_json();
    } else {
      return nlohmann::json(v);
    }
  };
  s.write = [member, key](VariantParams& p, const nlohmann::json& j) {
    T& v = static_cast<P&>(p).*member;
    if constexpr (std::is_same_v<T, LayerSelection>) {
      v = LayerSelection::parse(j, "plan");
    } else {
      v = j.get<T>();
    }
  };
  if constexpr (std::is_same_v<T, LayerSelection>) {
    s.layers = [member](VariantParams& p) { return &(static_cast<P&>(p).*member); };
  }
  s.default_value = s.read(*defaults);
  params.push_back(std::move(s));
  return params.back();
}

}  // namespace gb::grow

#define GB_VARIANT_CONCAT2(a, b) a##b
#define GB_VARIANT_CONCAT(a, b) GB_VARIANT_CONCAT2(a, b)
// Registers the VariantModule returned by `factory` (a function returning VariantModule).
// Named by __COUNTER__, not __LINE__: the unity build compiles several variant files as one
// unit, where two registrations on the same line would clash.
#define GB_REGISTER_VARIANT(factory)                                         \
  static const bool GB_VARIANT_CONCAT(gb_variant_registered_, __COUNTER__) = \
      ::gb::grow::register_variant(new ::gb::grow::VariantModule(factory()))
