#include "planestimate.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

#include "guiutil.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace {

template <typename T>
T get(const nlohmann::json& j, const char* key, T fallback) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  try {
    return j[key].get<T>();
  } catch (const std::exception&) {
    return fallback;
  }
}

// In/out sizes of a unit's projection.
struct Proj {
  qint64 in = 0, out = 0;
};

Proj unitShape(const gb::ModelConfig& c, const std::string& unit) {
  const qint64 d = c.hidden_size, p = c.intermediate_size;
  const qint64 qd = c.num_heads * c.head_dim, kvd = c.num_kv_heads * c.head_dim;
  if (unit == "q") return {d, qd};
  if (unit == "k" || unit == "v") return {d, kvd};
  if (unit == "o") return {qd, d};
  if (unit == "gate" || unit == "up") return {d, p};
  if (unit == "down") return {p, d};
  return {};
}

}  // namespace

qint64 layerParams(const gb::ModelConfig& config) {
  gb::ModelConfig zero = config;
  zero.num_layers = 0;
  if (config.num_layers <= 0) return 0;
  return (config.param_count() - zero.param_count()) / config.num_layers;
}

int selectedLayerCount(const nlohmann::json& layers, int L, QString* note) {
  if (layers.is_null() || (layers.is_string() && layers.get<std::string>() == "all")) return L;
  if (layers.is_array()) return static_cast<int>(layers.size());
  if (layers.is_object()) {
    const std::string policy = get<std::string>(layers, "policy", "");
    if (note) {
      *note = QCoreApplication::translate(
          "PlanEstimate",
          "The layer policy is resolved from importance probes when the run starts; the "
          "figures assume its layer count.");
    }
    if (policy == "manual")
      return static_cast<int>(
          get<nlohmann::json>(layers, "layers", nlohmann::json::array()).size());
    if (policy == "above-lfp") return std::max(0, L - get<int>(layers, "l_fp", 0));
    if (policy == "uniform") return get<int>(layers, "count", get<int>(layers, "k", 1));
    return get<int>(layers, "k", get<int>(layers, "n", 1));
  }
  return -1;
}

PlanEstimate estimatePlan(const gb::ModelConfig& c, const nlohmann::json& plan) {
  PlanEstimate e;
  e.baseParams = c.param_count();
  const int L = static_cast<int>(c.num_layers);
  const qint64 d = c.hidden_size, p = c.intermediate_size, dh = c.head_dim;
  const std::string variant = get<std::string>(plan, "variant", "");
  QString note;
  const int n = plan.contains("layers") ? selectedLayerCount(plan["layers"], L, &note) : L;
  if (n < 0) {
    e.error =
        QCoreApplication::translate("PlanEstimate", "Cannot tell which layers the plan selects.");
    return e;
  }
  e.layersTouched = n;
  const qint64 layer = layerParams(c);
  qint64 added = 0, trainable = 0;

  if (variant == "full" || variant == "ewc") {
    trainable = e.baseParams;
    e.layersTouched = L;
  } else if (variant == "freeze") {
    const qint64 bottom = get<qint64>(plan, "bottom", 2);
    const bool embed = get<bool>(plan, "freeze_embedding", true);
    trainable = e.baseParams - bottom * layer;
    if (embed) {
      trainable -= c.vocab_size * d;
      if (c.learned_positions) trainable -= c.max_positions * d;
    }
    e.layersTouched = static_cast<int>(std::max<qint64>(0, L - bottom));
  } else if (variant == "lora") {
    const qint64 r = get<qint64>(plan, "rank", 8);
    std::vector<std::string> targets = {"q", "v"};
    if (plan.contains("targets") && plan["targets"].is_array()) {
      targets = plan["targets"].get<std::vector<std::string>>();
    }
    qint64 per = 0;
    for (const auto& t : targets) {
      const Proj s = unitShape(c, t);
      per += r * (s.in + s.out);
    }
    added = trainable = per * n;
  } else if (variant == "grow") {
    const qint64 k = get<qint64>(plan, "k", 2);
    const std::string mode = get<std::string>(plan, "mode", "freeze");
    const int ups = c.gated_mlp ? 2 : 1;
    qint64 per = (k - 1) * p * d * (ups + 1);
    if (c.mlp_bias) per += (k - 1) * p * ups;
    added = per * n;
    if (mode == "train") {
      trainable = n * (k * p * d * ups + (c.mlp_bias ? k * p * ups : 0));
    } else {
      trainable = added;
    }
  } else if (variant == "scale") {
    const qint64 dUp = get<qint64>(plan, "d_up", 0);
    const qint64 pUp = get<qint64>(plan, "p_up", 0);
    const qint64 lfp = get<qint64>(plan, "l_fp", 0);
    const bool attnOnly = get<bool>(plan, "attention_only", false);
    const std::string mode = get<std::string>(plan, "mode", "preserve");
    const qint64 groups = std::max<qint64>(1, c.kv_groups());
    if (dUp <= 0 || dh <= 0 || dUp % (dh * groups) != 0) {
      e.error = QCoreApplication::translate(
          "PlanEstimate", "d_up must be a positive multiple of head_dim × (heads / kv heads).");
      return e;
    }
    gb::ModelConfig g = c;
    g.hidden_size = d + dUp;
    g.intermediate_size = p + pUp;
    g.num_heads = c.num_heads + dUp / dh;
    g.num_kv_heads = c.num_kv_heads + dUp / (dh * groups);
    // W12 blocks (original outputs ← new inputs) exist only where the new part collaborates
    // (Adapt and Route at layers >= L_fp, attention only if asked); Preserve has none. Every
    // block that exists trains; the original weights stay frozen.
    const qint64 qd = c.num_heads * dh, kvd = c.num_kv_heads * dh;
    const qint64 w12Attn = qd * dUp + 2 * kvd * dUp + d * dUp;
    const qint64 w12Mlp = (c.gated_mlp ? 2 : 1) * p * dUp + d * pUp;
    const qint64 collab = mode == "preserve" ? 0 : std::max<qint64>(0, L - lfp);
    const qint64 w12Present = collab * (attnOnly ? w12Attn : w12Attn + w12Mlp);
    added = g.param_count() - e.baseParams - L * (w12Attn + w12Mlp) + w12Present;
    if (c.qk_norm) added += 2 * dh * L;  // the new heads' own q/k norm weights
    trainable = added;
    e.functionPreserving = mode != "route";
    e.layersTouched = L;
    note = QCoreApplication::translate(
        "PlanEstimate",
        "SCALE counts follow the operator's block structure; the exact numbers come from "
        "“Check preservation”.");
  } else if (variant == "depth") {
    const std::string style = get<std::string>(plan, "style", "llama-pro");
    const int blocks = style == "llama-pro" ? get<int>(plan, "count", 0) : n;
    added = trainable = blocks * layer;
    e.layersTouched = blocks;
  } else if (variant == "neutral-residues" || variant == "adapters") {
    const bool gated = variant == "neutral-residues";
    const double budget = get<double>(plan, "budget", 0.2);
    qint64 inner = get<qint64>(plan, "inner", 0);
    if (inner <= 0 && n > 0) {
      const double perLayer = budget * static_cast<double>(e.baseParams) / n;
      inner = static_cast<qint64>(std::floor((perLayer - (gated ? d : 0)) / (3.0 * d)));
    }
    if (inner < 1) {
      e.error = QCoreApplication::translate(
          "PlanEstimate", "The budget is too small for one adapter unit per layer.");
      return e;
    }
    added = trainable = n * (3 * d * inner + (gated ? d : 0));
  } else if (variant == "loramoe") {
    const qint64 K = get<qint64>(plan, "experts", 4), r = get<qint64>(plan, "rank", 4);
    added = trainable = n * (K * d + K * r * d + K * d * r);
  } else if (variant == "mh-moe") {
    const qint64 H = std::max<qint64>(1, get<qint64>(plan, "heads", 4));
    const qint64 K = get<qint64>(plan, "experts", 4), r = get<qint64>(plan, "rank", 4);
    const qint64 dH = d / H;
    added = trainable = n * H * (K * dH + K * r * dH + K * d * r);
  } else {
    e.error = QCoreApplication::translate("PlanEstimate", "Unknown variant.");
    return e;
  }
  e.addedParams = added;
  e.totalParams = e.baseParams + added;
  e.trainableParams = std::max<qint64>(0, trainable);
  e.note = note;
  e.ok = true;
  return e;
}

}  // namespace gb::gui
