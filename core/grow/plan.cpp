#include "grow/plan.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "util/error.h"
#include "util/json.h"

namespace gb::grow {

using Json = nlohmann::json;
namespace js = gb::json;

namespace {

const char* const kPolicies[] = {"least-important", "most-important", "update-magnitude",
                                 "uniform",         "above-lfp",      "calibrated",
                                 "manual"};

const std::set<std::string> kLinearUnits = {"q", "k", "v", "o", "gate", "up", "down"};

int64_t positive(const Json& j, const char* key, int64_t fallback, const std::string& ctx,
                 int64_t minimum = 1) {
  int64_t v = js::get_or<int64_t>(j, key, fallback, ctx);
  if (v < minimum) fail("{}: '{}' must be at least {}, found {}", ctx, key, minimum, v);
  return v;
}

double number(const Json& j, const char* key, double fallback, const std::string& ctx, double lo,
              double hi) {
  double v = js::get_or<double>(j, key, fallback, ctx);
  if (v < lo || v > hi) fail("{}: '{}' must be in [{}, {}], found {}", ctx, key, lo, hi, v);
  return v;
}

std::string choice(const Json& j, const char* key, const std::string& fallback,
                   std::initializer_list<const char*> allowed, const std::string& ctx) {
  std::string v = js::get_or<std::string>(j, key, fallback, ctx);
  std::string list;
  for (const char* a : allowed) {
    if (v == a) return v;
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  fail("{}: '{}' must be one of {}, found '{}'", ctx, key, list, v);
}

void check_layers_in_range(const LayerSelection& sel, int64_t n, const std::string& ctx) {
  if (sel.kind != LayerSelection::Kind::List) return;
  for (int64_t l : sel.layers) {
    if (l < 0 || l >= n) {
      fail("{}: layer index {} is out of range (the model has {} layers, 0..{})", ctx, l, n, n - 1);
    }
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------
// LayerSelection

LayerSelection LayerSelection::list(std::vector<int64_t> layers) {
  LayerSelection s;
  s.kind = Kind::List;
  std::sort(layers.begin(), layers.end());
  layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
  s.layers = std::move(layers);
  return s;
}

LayerSelection LayerSelection::parse(const Json& j, const std::string& ctx) {
  if (j.is_null()) return all();
  if (j.is_string()) {
    if (j.get<std::string>() == "all") return all();
    fail("{}: 'layers' must be \"all\", a list of layer indices or a policy object, found '{}'",
         ctx, j.get<std::string>());
  }
  if (j.is_array()) {
    std::vector<int64_t> v;
    for (const auto& e : j) {
      if (!e.is_number_integer()) {
        fail("{}: 'layers' must hold integer layer indices, found {}", ctx, e.dump());
      }
      if (e.get<int64_t>() < 0) fail("{}: layer index {} is negative", ctx, e.get<int64_t>());
      v.push_back(e.get<int64_t>());
    }
    if (v.empty()) fail("{}: 'layers' is an empty list", ctx);
    return list(std::move(v));
  }
  if (j.is_object()) {
    std::string p = js::get<std::string>(j, "policy", ctx + ".layers");
    bool known = false;
    for (const char* k : kPolicies) known |= p == k;
    if (!known) {
      std::string list;
      for (const char* k : kPolicies) list += (list.empty() ? "" : ", ") + std::string(k);
      fail("{}.layers: unknown policy '{}' (known: {})", ctx, p, list);
    }
    if (p == "manual") {
      return list(js::get<std::vector<int64_t>>(j, "layers", ctx + ".layers"));
    }
    LayerSelection s;
    s.kind = Kind::Policy;
    s.policy = j;
    return s;
  }
  fail("{}: 'layers' must be \"all\", a list or a policy object, found {}", ctx, js::type_name(j));
}

std::vector<int64_t> LayerSelection::resolve(int64_t n) const {
  switch (kind) {
    case Kind::All: {
      std::vector<int64_t> v(n);
      for (int64_t i = 0; i < n; ++i) v[i] = i;
      return v;
    }
    case Kind::List:
      check_layers_in_range(*this, n, "plan");
      return layers;
    case Kind::Policy:
      fail(
          "plan: the layer policy {} must be resolved from importance probes first (run it "
          "through growbench-cli run, or give explicit layers)",
          policy.dump());
  }
  return {};
}

Json LayerSelection::to_json() const {
  switch (kind) {
    case Kind::All:
      return "all";
    case Kind::List:
      return layers;
    case Kind::Policy:
      return policy;
  }
  return "all";
}

// ---------------------------------------------------------------------------------------

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::Full:
      return "full";
    case Variant::Freeze:
      return "freeze";
    case Variant::Lora:
      return "lora";
    case Variant::Grow:
      return "grow";
    case Variant::Scale:
      return "scale";
    case Variant::Depth:
      return "depth";
    case Variant::NeutralResidues:
      return "neutral-residues";
    case Variant::Adapters:
      return "adapters";
    case Variant::Ewc:
      return "ewc";
    case Variant::LoraMoe:
      return "loramoe";
    case Variant::MhMoe:
      return "mh-moe";
  }
  return "?";
}

std::vector<std::string> variant_names() {
  return {"full",     "freeze", "lora",    "grow",  "scale", "depth", "neutral-residues",
          "adapters", "ewc",    "loramoe", "mh-moe"};
}

const LayerSelection* GrowthPlan::layers() const {
  return const_cast<GrowthPlan*>(this)->layers();
}

LayerSelection* GrowthPlan::layers() {
  if (auto* p = std::get_if<LoraParams>(&params)) return &p->layers;
  if (auto* p = std::get_if<GrowParams>(&params)) return &p->layers;
  if (auto* p = std::get_if<DepthParams>(&params))
    return p->style == "adept" ? &p->layers : nullptr;
  if (auto* p = std::get_if<AdapterParams>(&params)) return &p->layers;
  if (auto* p = std::get_if<MoeParams>(&params)) return &p->layers;
  return nullptr;
}

std::string GrowthPlan::label() const {
  if (!name.empty()) return name;
  std::string s = variant_name(variant);
  std::visit(
      [&](const auto& p) {
        using T = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<T, FreezeParams>) s += fmt::format(" bottom={}", p.bottom);
        if constexpr (std::is_same_v<T, LoraParams>) s += fmt::format(" r={}", p.rank);
        if constexpr (std::is_same_v<T, GrowParams>) s += fmt::format("/{} k={}", p.mode, p.k);
        if constexpr (std::is_same_v<T, ScaleParams>) {
          s += fmt::format("/{} d_up={} p_up={}", p.mode, p.d_up, p.p_up);
        }
        if constexpr (std::is_same_v<T, DepthParams>) {
          s += "/" + p.style;
          if (p.style == "llama-pro") s += fmt::format(" P={}", p.count);
        }
        if constexpr (std::is_same_v<T, AdapterParams>) {
          if (variant == Variant::NeutralResidues) s += "/" + p.gate;
        }
        if constexpr (std::is_same_v<T, EwcParams>) s += fmt::format(" lambda={}", p.lambda);
        if constexpr (std::is_same_v<T, MoeParams>) {
          s += fmt::format(" K={} top{}", p.experts, p.top_k);
          if (p.heads > 1) s += fmt::format(" H={}", p.heads);
        }
      },
      params);
  if (const LayerSelection* sel = layers()) {
    if (sel->kind == LayerSelection::Kind::List) {
      std::string l;
      for (int64_t i : sel->layers) l += (l.empty() ? "" : ",") + std::to_string(i);
      s += " layers=" + l;
    } else if (sel->kind == LayerSelection::Kind::Policy) {
      s += " layers=" + sel->policy.value("policy", std::string("policy"));
    }
  }
  return s;
}

GrowthPlan parse_plan(const Json& j, const std::string& ctx) {
  if (!j.is_object()) fail("{}: expected an object, found {}", ctx, js::type_name(j));
  GrowthPlan plan;
  const std::string v = js::get<std::string>(j, "variant", ctx);
  plan.name = js::get_or<std::string>(j, "name", "", ctx);
  auto layers_of = [&](const char* fallback_all) {
    (void)fallback_all;
    return j.contains("layers") ? LayerSelection::parse(j["layers"], ctx) : LayerSelection::all();
  };
  if (v == "full") {
    js::check_keys(j, {"variant", "name"}, ctx);
    plan.variant = Variant::Full;
    plan.params = FullParams{};
  } else if (v == "freeze") {
    js::check_keys(j, {"variant", "name", "bottom", "freeze_embedding"}, ctx);
    FreezeParams p;
    p.bottom = positive(j, "bottom", 2, ctx, 0);
    p.freeze_embedding = js::get_or<bool>(j, "freeze_embedding", true, ctx);
    plan.variant = Variant::Freeze;
    plan.params = p;
  } else if (v == "lora") {
    js::check_keys(j, {"variant", "name", "rank", "alpha", "targets", "layers"}, ctx);
    LoraParams p;
    p.rank = positive(j, "rank", 8, ctx);
    p.alpha = number(j, "alpha", 2.0 * p.rank, ctx, 1e-9, 1e9);
    if (j.contains("targets")) p.targets = js::get<std::vector<std::string>>(j, "targets", ctx);
    if (p.targets.empty()) fail("{}: 'targets' must name at least one unit", ctx);
    for (const auto& t : p.targets) {
      if (!kLinearUnits.count(t)) {
        fail("{}: unknown LoRA target '{}' (expected q, k, v, o, gate, up, down)", ctx, t);
      }
    }
    p.layers = layers_of("all");
    plan.variant = Variant::Lora;
    plan.params = p;
  } else if (v == "grow") {
    js::check_keys(j, {"variant", "name", "mode", "k", "layers"}, ctx);
    GrowParams p;
    p.mode = choice(j, "mode", "freeze", {"freeze", "train"}, ctx);
    p.k = js::get_or<int64_t>(j, "k", 2, ctx);
    if (p.k < 2) fail("{}: 'k' must be at least 2 (k copies of each MLP unit), found {}", ctx, p.k);
    p.layers = layers_of("all");
    plan.variant = Variant::Grow;
    plan.params = p;
  } else if (v == "scale") {
    js::check_keys(
        j, {"variant", "name", "mode", "d_up", "p_up", "l_fp", "attention_only", "tau", "init"},
        ctx);
    ScaleParams p;
    p.mode = choice(j, "mode", "preserve", {"preserve", "adapt", "route"}, ctx);
    p.d_up = positive(j, "d_up", 0, ctx);
    p.p_up = positive(j, "p_up", 0, ctx, 0);
    p.l_fp = positive(j, "l_fp", 0, ctx, 0);
    p.attention_only = js::get_or<bool>(j, "attention_only", false, ctx);
    p.tau = number(j, "tau", 0.5, ctx, -1.0, 1.0);
    std::string init = js::get_or<std::string>(j, "init", "svd,zero", ctx);
    auto comma = init.find(',');
    if (comma == std::string::npos) {
      fail(
          "{}: 'init' must be \"W21,W22\" with each zero, random or svd (e.g. \"svd,zero\"), "
          "found '{}'",
          ctx, init);
    }
    p.init_w21 = init.substr(0, comma);
    p.init_w22 = init.substr(comma + 1);
    for (const auto& part : {p.init_w21, p.init_w22}) {
      if (part != "zero" && part != "random" && part != "svd") {
        fail("{}: 'init' part '{}' must be zero, random or svd", ctx, part);
      }
    }
    if (p.mode == "preserve" && p.l_fp != 0) {
      fail("{}: 'l_fp' applies to adapt and route (preserve freezes W12 everywhere)", ctx);
    }
    plan.variant = Variant::Scale;
    plan.params = p;
  } else if (v == "depth") {
    js::check_keys(j, {"variant", "name", "style", "count", "layers"}, ctx);
    DepthParams p;
    p.style = choice(j, "style", "llama-pro", {"llama-pro", "adept"}, ctx);
    if (p.style == "llama-pro") {
      if (j.contains("layers")) {
        fail(
            "{}: LLaMA-Pro inserts blocks uniformly; give 'count', not 'layers' (use style "
            "\"adept\" to choose layers)",
            ctx);
      }
      p.count = positive(j, "count", 0, ctx);
    } else {
      if (j.contains("count")) {
        fail("{}: ADEPT copies the chosen 'layers'; 'count' is for llama-pro", ctx);
      }
      if (!j.contains("layers")) fail("{}: ADEPT needs 'layers' (a list or a policy)", ctx);
      p.layers = LayerSelection::parse(j["layers"], ctx);
      if (p.layers.kind == LayerSelection::Kind::All) {
        fail(
            "{}: ADEPT copies chosen layers; \"all\" would double the model (give a list or "
            "a policy such as {{\"policy\":\"least-important\",\"k\":2}})",
            ctx);
      }
    }
    plan.variant = Variant::Depth;
    plan.params = p;
  } else if (v == "neutral-residues" || v == "adapters") {
    bool nr = v == "neutral-residues";
    if (nr) {
      js::check_keys(j, {"variant", "name", "gate", "layers", "budget", "inner", "alpha"}, ctx);
    } else {
      js::check_keys(j, {"variant", "name", "layers", "budget", "inner"}, ctx);
    }
    AdapterParams p;
    p.gate = nr ? choice(j, "gate", "elu", {"elu", "sigmoid"}, ctx) : "none";
    p.layers = layers_of("all");
    p.budget = number(j, "budget", 0.2, ctx, 0.0, 10.0);
    p.inner = positive(j, "inner", 0, ctx, 0);
    if (p.inner == 0 && p.budget <= 0) fail("{}: give a positive 'budget' or 'inner'", ctx);
    p.alpha = nr ? number(j, "alpha", 100.0, ctx, 0.0, 1e9) : 0.0;
    plan.variant = nr ? Variant::NeutralResidues : Variant::Adapters;
    plan.params = p;
  } else if (v == "ewc") {
    js::check_keys(j, {"variant", "name", "lambda"}, ctx);
    EwcParams p;
    p.lambda = number(j, "lambda", 1.0, ctx, 0.0, 1e12);
    plan.variant = Variant::Ewc;
    plan.params = p;
  } else if (v == "loramoe" || v == "mh-moe") {
    bool mh = v == "mh-moe";
    js::check_keys(
        j, {"variant", "name", "heads", "experts", "top_k", "rank", "alpha", "balance", "layers"},
        ctx);
    MoeParams p;
    p.heads = mh ? positive(j, "heads", 4, ctx) : 1;
    if (!mh && j.contains("heads") && j["heads"] != 1) {
      fail("{}: LoRAMoE routes whole tokens; use variant \"mh-moe\" for 'heads' > 1", ctx);
    }
    p.experts = positive(j, "experts", 4, ctx);
    p.top_k = positive(j, "top_k", mh ? 1 : 2, ctx);
    if (p.top_k > p.experts) {
      fail("{}: 'top_k' ({}) cannot exceed 'experts' ({})", ctx, p.top_k, p.experts);
    }
    p.rank = positive(j, "rank", 4, ctx);
    p.alpha = number(j, "alpha", 0.0, ctx, 0.0, 1e9);
    p.balance = number(j, "balance", 0.0, ctx, 0.0, 1e9);
    p.layers = layers_of("all");
    plan.variant = mh ? Variant::MhMoe : Variant::LoraMoe;
    plan.params = p;
  } else {
    std::string list;
    for (const auto& n : variant_names()) list += (list.empty() ? "" : ", ") + n;
    fail("{}: unknown variant '{}' (known: {})", ctx, v, list);
  }
  return plan;
}

void validate_plan(const GrowthPlan& plan, const ModelConfig& c, const std::string& ctx) {
  if (const LayerSelection* sel = plan.layers()) check_layers_in_range(*sel, c.num_layers, ctx);
  switch (plan.variant) {
    case Variant::Freeze: {
      const auto& p = plan.get<FreezeParams>();
      if (p.bottom >= c.num_layers) {
        fail("{}: freezing the bottom {} layers leaves nothing to train (the model has {})", ctx,
             p.bottom, c.num_layers);
      }
      break;
    }
    case Variant::Lora: {
      const auto& p = plan.get<LoraParams>();
      for (const auto& t : p.targets) {
        if (t == "gate" && !c.gated_mlp) {
          fail("{}: LoRA target 'gate': {} has no gated MLP (its MLP is up → down)", ctx,
               c.model_type);
        }
      }
      break;
    }
    case Variant::Scale: {
      const auto& p = plan.get<ScaleParams>();
      const int64_t group = c.head_dim * c.kv_groups();
      if (p.d_up % group != 0) {
        fail(
            "{}: 'd_up' = {} must be a multiple of head_dim x (heads / kv heads) = {} x {} = {}, "
            "so that whole kv groups of heads are added",
            ctx, p.d_up, c.head_dim, c.kv_groups(), group);
      }
      if (p.l_fp > c.num_layers) {
        fail("{}: 'l_fp' = {} exceeds the number of layers ({})", ctx, p.l_fp, c.num_layers);
      }
      if (c.family == Family::Gpt2) {
        fail(
            "{}: SCALE on GPT-2 is not supported: its learned position embeddings would need "
            "widening too (use a rotary family)",
            ctx);
      }
      break;
    }
    case Variant::Depth: {
      const auto& p = plan.get<DepthParams>();
      if (p.style == "llama-pro" && (p.count > c.num_layers)) {
        fail(
            "{}: LLaMA-Pro inserts one block after every L/P layers; 'count' = {} exceeds the "
            "{} layers",
            ctx, p.count, c.num_layers);
      }
      break;
    }
    case Variant::MhMoe: {
      const auto& p = plan.get<MoeParams>();
      if (c.hidden_size % p.heads != 0) {
        fail(
            "{}: MH-MoE splits the hidden state into 'heads' = {} equal slices; hidden size {} "
            "is not divisible",
            ctx, p.heads, c.hidden_size);
      }
      break;
    }
    default:
      break;
  }
}

Json to_json(const GrowthPlan& plan) {
  Json j;
  j["variant"] = variant_name(plan.variant);
  if (!plan.name.empty()) j["name"] = plan.name;
  std::visit(
      [&](const auto& p) {
        using T = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<T, FreezeParams>) {
          j["bottom"] = p.bottom;
          j["freeze_embedding"] = p.freeze_embedding;
        } else if constexpr (std::is_same_v<T, LoraParams>) {
          j["rank"] = p.rank;
          j["alpha"] = p.alpha;
          j["targets"] = p.targets;
          j["layers"] = p.layers.to_json();
        } else if constexpr (std::is_same_v<T, GrowParams>) {
          j["mode"] = p.mode;
          j["k"] = p.k;
          j["layers"] = p.layers.to_json();
        } else if constexpr (std::is_same_v<T, ScaleParams>) {
          j["mode"] = p.mode;
          j["d_up"] = p.d_up;
          j["p_up"] = p.p_up;
          j["l_fp"] = p.l_fp;
          j["attention_only"] = p.attention_only;
          j["tau"] = p.tau;
          j["init"] = p.init_w21 + "," + p.init_w22;
        } else if constexpr (std::is_same_v<T, DepthParams>) {
          j["style"] = p.style;
          if (p.style == "llama-pro") {
            j["count"] = p.count;
          } else {
            j["layers"] = p.layers.to_json();
          }
        } else if constexpr (std::is_same_v<T, AdapterParams>) {
          if (plan.variant == Variant::NeutralResidues) {
            j["gate"] = p.gate;
            j["alpha"] = p.alpha;
          }
          j["layers"] = p.layers.to_json();
          j["budget"] = p.budget;
          if (p.inner > 0) j["inner"] = p.inner;
        } else if constexpr (std::is_same_v<T, EwcParams>) {
          j["lambda"] = p.lambda;
        } else if constexpr (std::is_same_v<T, MoeParams>) {
          if (plan.variant == Variant::MhMoe) j["heads"] = p.heads;
          j["experts"] = p.experts;
          j["top_k"] = p.top_k;
          j["rank"] = p.rank;
          if (p.alpha > 0) j["alpha"] = p.alpha;
          j["balance"] = p.balance;
          j["layers"] = p.layers.to_json();
        }
      },
      plan.params);
  return j;
}

}  // namespace gb::grow
