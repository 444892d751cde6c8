// SCALE width upscaling: Preserve, Adapt, collaboration above L_fp, Route. The design, the
// exactness argument and every initialisation choice are documented in grow/scale.h.
#include "grow/scale.h"

#include <algorithm>
#include <map>
#include <vector>

#include <torch/torch.h>

#include "grow/growth.h"
#include "model/arch.h"
#include "util/error.h"
#include "util/log.h"

namespace gb::grow {

namespace F = torch::nn::functional;

// ---------------------------------------------------------------------------------------
// ScaleLinear

ScaleLinearImpl::ScaleLinearImpl(torch::Tensor w, torch::Tensor b, int64_t in_up, int64_t out_up,
                                 bool with_w12)
    : m_in(w.size(1)), m_out(w.size(0)), m_in_up(in_up), m_out_up(out_up) {
  TORCH_CHECK(w.dim() == 2, "ScaleLinear weight must be 2-D");
  const auto opts = w.options().requires_grad(false);
  weight = register_parameter("weight", std::move(w), /*requires_grad=*/false);
  if (b.defined()) bias = register_parameter("bias", std::move(b), /*requires_grad=*/false);
  // New blocks: registered (and trainable) only when they hold at least one value.
  if (with_w12 && m_in_up > 0) {
    w12 = register_parameter("w12", torch::zeros({m_out, m_in_up}, opts));
  }
  if (m_out_up > 0) {
    w21 = register_parameter("w21", torch::zeros({m_out_up, m_in}, opts));
    if (m_in_up > 0) w22 = register_parameter("w22", torch::zeros({m_out_up, m_in_up}, opts));
    if (bias.defined()) bias_up = register_parameter("bias_up", torch::zeros({m_out_up}, opts));
  }
}

torch::Tensor ScaleLinearImpl::forward(const torch::Tensor& x, const ForwardState& state) {
  // The original outputs: the base's own call on a contiguous copy of the original inputs
  // (bit-exact with the base), plus W12·x_up where W12 collaborates and is not masked.
  torch::Tensor x_o = m_in_up > 0 ? x.narrow(-1, 0, m_in).contiguous() : x;
  torch::Tensor x_u;
  if (m_in_up > 0) x_u = x.narrow(-1, m_in, m_in_up).contiguous();
  torch::Tensor y_o = F::linear(x_o, weight, bias);
  if (w12.defined() && !state.mask_w12) y_o = y_o + F::linear(x_u, w12);
  if (m_out_up == 0) return y_o;
  torch::Tensor y_u = F::linear(x_o, w21, bias_up);
  if (w22.defined()) y_u = y_u + F::linear(x_u, w22);
  return torch::cat({y_o, y_u}, -1);
}

torch::Tensor ScaleLinearImpl::dense_weight() const {
  torch::NoGradGuard no_grad;
  auto full = torch::zeros({m_out + m_out_up, m_in + m_in_up}, weight.options());
  full.narrow(0, 0, m_out).narrow(1, 0, m_in).copy_(weight);
  if (w12.defined()) full.narrow(0, 0, m_out).narrow(1, m_in, m_in_up).copy_(w12);
  if (w21.defined()) full.narrow(0, m_out, m_out_up).narrow(1, 0, m_in).copy_(w21);
  if (w22.defined()) full.narrow(0, m_out, m_out_up).narrow(1, m_in, m_in_up).copy_(w22);
  return full;
}

torch::Tensor ScaleLinearImpl::dense_bias() const {
  if (!bias.defined()) return {};
  if (!bias_up.defined()) return bias;
  torch::NoGradGuard no_grad;
  return torch::cat({bias, bias_up});
}

std::string ScaleLinearImpl::kind() const {
  return fmt::format("SCALE {}x{} +{} out +{} in{}", m_out, m_in, m_out_up, m_in_up,
                     has_w12() ? ", W12" : "");
}

// ---------------------------------------------------------------------------------------
// Split norms

namespace {

// Registers the tensors of an unregistered NormImpl on `owner` under `suffix` names.
void adopt_norm(torch::nn::Module& owner, NormImpl& norm, const std::string& suffix,
                bool trainable) {
  owner.register_parameter("weight" + suffix, norm.weight, trainable);
  if (norm.bias.defined()) owner.register_parameter("bias" + suffix, norm.bias, trainable);
}

}  // namespace

SplitNormImpl::SplitNormImpl(std::shared_ptr<NormImpl> orig, int64_t features_up)
    : original(std::move(orig)) {
  added = std::make_shared<NormImpl>(original->norm_kind, features_up, original->eps);
  {
    torch::NoGradGuard no_grad;
    const auto opts = original->weight.options();
    added->weight.set_data(added->weight.to(opts));
    if (added->bias.defined()) added->bias.set_data(added->bias.to(opts));
  }
  adopt_norm(*this, *original, "", false);
  adopt_norm(*this, *added, "_up", true);
}

torch::Tensor SplitNormImpl::forward(const torch::Tensor& x) {
  const int64_t d = original->features();
  auto x_o = x.narrow(-1, 0, d).contiguous();
  auto x_u = x.narrow(-1, d, x.size(-1) - d).contiguous();
  return torch::cat({original->forward(x_o), added->forward(x_u)}, -1);
}

int64_t SplitNormImpl::features() const {
  return original->features() + added->features();
}

std::string SplitNormImpl::kind() const {
  return fmt::format("{} split {}+{}", original->kind(), original->features(), added->features());
}

SplitHeadNormImpl::SplitHeadNormImpl(std::shared_ptr<NormImpl> orig, int64_t heads)
    : original(std::move(orig)), original_heads(heads) {
  added = std::make_shared<NormImpl>(original->norm_kind, original->features(), original->eps);
  {
    torch::NoGradGuard no_grad;
    const auto opts = original->weight.options();
    added->weight.set_data(added->weight.to(opts));
    if (added->bias.defined()) added->bias.set_data(added->bias.to(opts));
  }
  adopt_norm(*this, *original, "", false);
  adopt_norm(*this, *added, "_up", true);
}

torch::Tensor SplitHeadNormImpl::forward(const torch::Tensor& x) {
  // x (B, T, heads, d_h): original heads first, then the new heads.
  const int64_t heads = x.size(-2);
  if (heads <= original_heads) return original->forward(x);
  auto x_o = x.narrow(-2, 0, original_heads).contiguous();
  auto x_u = x.narrow(-2, original_heads, heads - original_heads).contiguous();
  return torch::cat({original->forward(x_o), added->forward(x_u)}, -2);
}

std::string SplitHeadNormImpl::kind() const {
  return fmt::format("{} per head, split {} heads + new", original->kind(), original_heads);
}

// ---------------------------------------------------------------------------------------
// Embeddings

ScaleEmbeddingImpl::ScaleEmbeddingImpl(torch::Tensor w, int64_t dim_up) {
  const auto opts = w.options().requires_grad(false);
  const int64_t v = w.size(0);
  weight = register_parameter("weight", std::move(w), /*requires_grad=*/false);
  weight_up = register_parameter("weight_up", torch::zeros({v, dim_up}, opts));
}

torch::Tensor ScaleEmbeddingImpl::forward(const torch::Tensor& ids) {
  return torch::cat({F::embedding(ids, weight), F::embedding(ids, weight_up)}, -1);
}

ScalePositionsImpl::ScalePositionsImpl(const torch::Tensor& w, int64_t dim_up)
    : EmbeddingImpl(0, 0) {
  // The base class registered an empty (0, 0) weight; point it at the original storage.
  {
    torch::NoGradGuard no_grad;
    weight.set_data(w);
  }
  weight.set_requires_grad(false);
  weight_up = register_parameter(
      "weight_up", torch::zeros({w.size(0), dim_up}, w.options().requires_grad(false)));
}

torch::Tensor ScalePositionsImpl::forward(const torch::Tensor& positions) {
  return torch::cat({F::embedding(positions, weight), F::embedding(positions, weight_up)}, -1);
}

// ---------------------------------------------------------------------------------------
// Head

ScaleHeadImpl::ScaleHeadImpl(torch::Tensor w, std::shared_ptr<EmbeddingUnitImpl> tied_to,
                             int64_t dim_up, std::optional<double> cap_value)
    : tied(tied_to), softcap(cap_value) {
  torch::Tensor reference = w.defined() ? w : tied_to->tied_weight();
  if (w.defined()) weight = register_parameter("weight", std::move(w), /*requires_grad=*/false);
  weight_up = register_parameter(
      "weight_up",
      torch::zeros({reference.size(0), dim_up}, reference.options().requires_grad(false)));
}

torch::Tensor ScaleHeadImpl::original_weight() const {
  if (weight.defined()) return weight;
  auto e = tied.lock();
  TORCH_CHECK(e, "SCALE head lost its tied embedding");
  return e->tied_weight();
}

ScaleHeadImpl::Parts ScaleHeadImpl::parts(const torch::Tensor& h) const {
  const torch::Tensor w = original_weight();
  const int64_t d = w.size(1);
  Parts p;
  p.original = F::linear(h.narrow(-1, 0, d).contiguous(), w);
  // Masked: zeros, and x + 0 is x, so the logits are exactly cap(W_out·X).
  p.added = mask_added ? torch::zeros_like(p.original)
                       : F::linear(h.narrow(-1, d, h.size(-1) - d).contiguous(), weight_up);
  return p;
}

bool is_upscaled(const CausalLMImpl& model) {
  return std::dynamic_pointer_cast<ScaleHeadImpl>(model.head()) != nullptr;
}

FrozenHeadLogits::FrozenHeadLogits(CausalLMImpl& model)
    : m_head(std::dynamic_pointer_cast<ScaleHeadImpl>(model.head())) {
  if (!m_head) return;
  m_previous = m_head->mask_added;
  m_head->mask_added = true;
}

FrozenHeadLogits::~FrozenHeadLogits() {
  if (m_head) m_head->mask_added = m_previous;
}

torch::Tensor ScaleHeadImpl::cap(const torch::Tensor& logits) const {
  if (!softcap) return logits;
  return torch::tanh(logits / *softcap) * *softcap;
}

torch::Tensor ScaleHeadImpl::forward(const torch::Tensor& h) {
  Parts p = parts(h);
  return cap(p.original + p.added);
}

std::string ScaleHeadImpl::kind() const {
  return fmt::format("SCALE head{} +{}", weight.defined() ? "" : " (tied)", weight_up.size(1));
}

// ---------------------------------------------------------------------------------------
// Initialisation

namespace {

uint64_t mix_seed(uint64_t seed, const std::string& name) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a of the registered name
  for (unsigned char c : name) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL + h;  // splitmix64 finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// He (Kaiming) normal: std = sqrt(2 / fan_in).
torch::Tensor he_normal(c10::IntArrayRef shape, int64_t fan_in, uint64_t seed,
                        const torch::TensorOptions& opts) {
  return init_normal(shape, std::sqrt(2.0 / static_cast<double>(std::max<int64_t>(1, fan_in))),
                     seed, opts);
}

struct SvdParts {
  torch::Tensor s;   // (r) descending
  torch::Tensor vh;  // (r, in) rows v_iᵀ, signs fixed: largest-magnitude entry positive
};

SvdParts svd_of(const torch::Tensor& w) {
  auto wf = w.detach().to(torch::kFloat);
  auto usv = torch::linalg_svd(wf, /*full_matrices=*/false, c10::nullopt);
  SvdParts r;
  r.s = std::get<1>(usv);
  auto vh = std::get<2>(usv);
  auto idx = vh.abs().argmax(1, /*keepdim=*/true);
  auto sign = vh.gather(1, idx).sign();
  sign = torch::where(sign == 0, torch::ones_like(sign), sign);
  r.vh = vh * sign;
  return r;
}

// Fills w21 and w22 of `unit` as scale.h documents. `name` is the unit's registered prefix.
void init_blocks(ScaleLinearImpl& unit, const ScaleParams& p, uint64_t seed,
                 const std::string& name) {
  torch::NoGradGuard no_grad;
  const int64_t out_up = unit.out_up(), in_up = unit.in_up(), in = unit.in_original();
  if (out_up == 0) return;
  const bool need_svd = p.init_w21 == "svd" || (p.init_w22 == "svd" && unit.w22.defined());
  SvdParts svd;
  if (need_svd) svd = svd_of(unit.weight);
  const auto opts = unit.w21.options();
  if (p.init_w21 == "random") {
    unit.w21.copy_(he_normal({out_up, in}, in, mix_seed(seed, name + ".w21"), opts));
  } else if (p.init_w21 == "svd") {
    const int64_t r = svd.s.size(0);
    const int64_t m = std::min(out_up, r);
    unit.w21.narrow(0, 0, m).copy_(svd.s.narrow(0, 0, m).unsqueeze(1) * svd.vh.narrow(0, 0, m));
    if (out_up > r) {
      unit.w21.narrow(0, r, out_up - r)
          .copy_(he_normal({out_up - r, in}, in, mix_seed(seed, name + ".w21"), opts));
    }
  }
  if (!unit.w22.defined()) return;
  if (p.init_w22 == "random") {
    unit.w22.copy_(he_normal({out_up, in_up}, in_up, mix_seed(seed, name + ".w22"), opts));
  } else if (p.init_w22 == "svd") {
    const int64_t m = std::min({out_up, in_up, svd.s.size(0)});
    unit.w22.diagonal().narrow(0, 0, m).copy_(svd.s.narrow(0, 0, m));
  }
}

// normal(0, std(reference)²) into `target`.
void init_like(torch::Tensor& target, const torch::Tensor& reference, uint64_t seed) {
  torch::NoGradGuard no_grad;
  const double sd = reference.detach().to(torch::kFloat).std().item<double>();
  target.copy_(init_normal(target.sizes(), sd, seed, target.options()));
}

// ---------------------------------------------------------------------------------------
// Route

struct RouteSettings {
  double tau = 0.5;
  int64_t fork = 0;  // the lowest layer with a W12 block: both passes agree below it
};

// The routed forward pass (paper eq. 5). With a KV cache, the preserve pass keeps its own
// entries for the layers at and above the fork in cache->k/v[L + l] (after the L entries of
// the adapt pass), so that they live, and are reordered, with the cache itself.
torch::Tensor route_forward(CausalLMImpl& m, const torch::Tensor& ids, const ForwardOptions& o,
                            const RouteSettings& rs) {
  auto head = std::dynamic_pointer_cast<ScaleHeadImpl>(m.head());
  if (!head) fail("SCALE Route: the LM head is not a SCALE head (was the model re-headed?)");
  TORCH_CHECK(ids.dim() == 2, "input ids must be (batch, length)");
  const int64_t n = m.num_layers();
  const int64_t fork = std::min(rs.fork, n);
  if (o.mask_w12) {
    // Asked for the preserve path alone: Z_p + Z_up,p.
    return head->forward(m.hidden_states(ids, o));
  }
  std::vector<torch::Tensor> extra_k, extra_v;
  if (o.cache && static_cast<int64_t>(o.cache->k.size()) == 2 * n) {
    extra_k.assign(o.cache->k.begin() + n, o.cache->k.end());
    extra_v.assign(o.cache->v.begin() + n, o.cache->v.end());
  }
  ForwardState sa = m.make_state(ids.size(1), o, ids.device());  // resizes the cache to L
  KVCache preserve_cache;
  ForwardState sp = sa;
  sp.mask_w12 = true;
  if (o.cache) {
    if (sa.past == 0 || extra_k.empty()) {
      extra_k.assign(n, torch::Tensor());
      extra_v.assign(n, torch::Tensor());
    }
    preserve_cache.k = std::move(extra_k);
    preserve_cache.v = std::move(extra_v);
    sp.cache = &preserve_cache;
  }
  torch::Tensor h = m.embed(ids, sa.past);
  for (int64_t l = 0; l < fork; ++l) h = m.run_layer(l, h, sa);
  torch::Tensor ha = h, hp = h;
  for (int64_t l = fork; l < n; ++l) {
    ha = m.run_layer(l, ha, sa);
    hp = m.run_layer(l, hp, sp);
  }
  if (o.cache) {
    o.cache->k.insert(o.cache->k.end(), preserve_cache.k.begin(), preserve_cache.k.end());
    o.cache->v.insert(o.cache->v.end(), preserve_cache.v.begin(), preserve_cache.v.end());
  }
  ScaleHeadImpl::Parts za = head->parts(m.final_hidden(ha));
  ScaleHeadImpl::Parts zp = fork < n ? head->parts(m.final_hidden(hp)) : za;
  torch::Tensor keep;  // (B, T, 1) bool: true = the averaged (preserve) path
  {
    // The router carries no gradient (stop-gradient, the paper's Assumption D.3).
    torch::NoGradGuard no_grad;
    auto cos = F::cosine_similarity(zp.original.detach().to(torch::kFloat),
                                    za.original.detach().to(torch::kFloat),
                                    F::CosineSimilarityFuncOptions().dim(-1));
    keep = (cos > rs.tau).unsqueeze(-1);
  }
  // (Z + Z)/2 + 0 is exactly Z, so at initialisation this is the base model's output.
  auto preserve = (zp.original + za.original) / 2 + zp.added;
  auto adapt = za.original + za.added;
  return head->cap(torch::where(keep, preserve, adapt));
}

// The original MLP width p of a widened layer (the up projection's original outputs).
int64_t scale_unit_inner(const DecoderLayerImpl& layer) {
  auto up = std::dynamic_pointer_cast<ScaleLinearImpl>(layer.mlp->up_proj);
  TORCH_CHECK(up, "SCALE: the up projection was not widened");
  return up->out_original();
}

bool is_attention_unit(const std::string& unit) {
  return unit == "q" || unit == "k" || unit == "v" || unit == "o";
}

}  // namespace

// ---------------------------------------------------------------------------------------
// The operator

GrowthResult apply_scale(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx) {
  const auto& p = plan.get<ScaleParams>();
  const ModelConfig& c = model.config;
  auto logger = log::get("grow");
  auto base_embed = std::dynamic_pointer_cast<EmbeddingImpl>(model.model->embed_tokens);
  if (!base_embed) {
    fail(
        "SCALE: the token embedding is not a plain embedding (SCALE or another variant "
        "replaced it); apply SCALE to a plain model");
  }
  const int64_t d = base_embed->dim();
  const int64_t d_h = c.head_dim, groups = c.kv_groups();
  const int64_t n_layers = model.num_layers();
  if (p.d_up <= 0 || p.d_up % (d_h * groups) != 0) {
    fail(
        "SCALE: 'd_up' = {} must be a positive multiple of head_dim x (heads / kv heads) = "
        "{} x {} = {}",
        p.d_up, d_h, groups, d_h * groups);
  }
  if (p.p_up < 0) fail("SCALE: 'p_up' must not be negative, found {}", p.p_up);
  if (p.l_fp < 0 || p.l_fp > n_layers) {
    fail("SCALE: 'l_fp' = {} must be between 0 and the number of layers ({})", p.l_fp, n_layers);
  }
  const int64_t new_heads = p.d_up / d_h;
  const int64_t new_kv_heads = new_heads / groups;
  const bool collaborate = p.mode != "preserve";
  const bool values = !ctx.structure_only;

  freeze_all(model);
  GrowthResult r;
  auto add_group = [&](const std::string& name, int64_t layer, const std::string& unit,
                       torch::nn::Module& module) {
    ParamGroup g;
    g.name = name;
    g.layer = layer;
    g.unit = unit;
    for (auto& t : module.parameters(/*recurse=*/false)) {
      if (t.requires_grad()) g.params.push_back(t);
    }
    if (!g.params.empty()) r.groups.push_back(std::move(g));
  };

  int64_t fork = n_layers;
  for (int64_t l = 0; l < n_layers; ++l) {
    DecoderLayer layer = model.layer(l);
    const std::string prefix = arch::names::layer_prefix(l);
    auto& attn = *layer->self_attn;
    if (attn.split_heads > 0) {
      fail("SCALE: layer {} already has new attention heads (SCALE was applied before)", l);
    }
    const bool layer_collab = collaborate && l >= p.l_fp;
    for (const auto& u : layer->units()) {
      const std::string name = prefix + arch::names::unit_path(u.name);
      if (auto lin = std::dynamic_pointer_cast<LinearUnitImpl>(u.module)) {
        auto dense = std::dynamic_pointer_cast<DenseLinearImpl>(lin);
        if (!dense) {
          fail(
              "SCALE: layer {} unit '{}' is a '{}' unit, not a plain linear one; apply SCALE "
              "to a plain model (not after LoRA, SCALE or another unit-replacing variant)",
              l, u.name, lin->kind());
        }
        int64_t in_up = p.d_up, out_up = p.d_up;
        if (u.name == "k" || u.name == "v") out_up = new_kv_heads * d_h;
        if (u.name == "gate" || u.name == "up") out_up = p.p_up;
        if (u.name == "down") in_up = p.p_up;
        const std::string collab = p.effective_collaboration();
        const bool with_w12 = layer_collab && (collab == "all" || (collab == "attention") ==
                                                                      is_attention_unit(u.name));
        auto unit =
            std::make_shared<ScaleLinearImpl>(dense->weight, dense->bias, in_up, out_up, with_w12);
        if (values) init_blocks(*unit, p, ctx.seed, name);
        if (unit->has_w12()) fork = std::min(fork, l);
        layer->set_linear(u.name, unit);
        add_group(fmt::format("layers.{}.{}", l, u.name), l, u.name, *unit);
      } else if (auto norm = std::dynamic_pointer_cast<NormUnitImpl>(u.module)) {
        auto plain = std::dynamic_pointer_cast<NormImpl>(norm);
        if (!plain) {
          fail(
              "SCALE: layer {} norm '{}' is a '{}' unit, not a plain norm; apply SCALE to a "
              "plain model",
              l, u.name, norm->kind());
        }
        NormUnit split;
        if (u.name == "q_norm") {
          split = std::make_shared<SplitHeadNormImpl>(plain, c.num_heads);
        } else if (u.name == "k_norm") {
          split = std::make_shared<SplitHeadNormImpl>(plain, c.num_kv_heads);
        } else {
          split = std::make_shared<SplitNormImpl>(plain, p.d_up);
        }
        layer->set_norm(u.name, split);
        add_group(fmt::format("layers.{}.{}", l, u.name), l, u.name, *split);
      }
    }
    attn.split_heads = c.num_heads;
    attn.split_kv_heads = c.num_kv_heads;
    // The activation of the original MLP units runs on a tensor of the base's shape.
    layer->mlp->split_inner = scale_unit_inner(*layer);
  }

  // Embedding (E_up) and, for GPT-2, learned positions (P_up).
  auto embed = std::make_shared<ScaleEmbeddingImpl>(base_embed->weight, p.d_up);
  if (values)
    init_like(embed->weight_up, embed->weight, mix_seed(ctx.seed, "model.embed_tokens.weight_up"));
  model.set_embedding(embed);
  add_group("embed_up", -1, "embed_up", *embed);
  if (model.model->embed_positions) {
    auto base_pos = model.model->embed_positions;
    if (std::dynamic_pointer_cast<ScalePositionsImpl>(base_pos)) {
      fail("SCALE: the position embedding is already widened (SCALE was applied before)");
    }
    auto pos = std::make_shared<ScalePositionsImpl>(base_pos->weight, p.d_up);
    if (values) {
      const uint64_t pos_seed = mix_seed(ctx.seed, "model.embed_positions.weight_up");
      init_like(pos->weight_up, pos->weight, pos_seed);
    }
    model.model->embed_positions = model.model->replace_module("embed_positions", pos);
    add_group("positions_up", -1, "positions_up", *pos);
  }

  // Final norm.
  auto final_norm = std::dynamic_pointer_cast<NormImpl>(model.model->norm);
  if (!final_norm) fail("SCALE: the final norm is not a plain norm; apply SCALE to a plain model");
  auto split_final = std::make_shared<SplitNormImpl>(final_norm, p.d_up);
  model.model->norm = model.model->replace_module("norm", split_final);
  add_group("final_norm_up", -1, "final_norm_up", *split_final);

  // Head: W_out_up = 0. Tied: the original part stays the embedding's E.
  std::shared_ptr<ScaleHeadImpl> head;
  if (auto linear = std::dynamic_pointer_cast<LinearHeadImpl>(model.lm_head)) {
    head = std::make_shared<ScaleHeadImpl>(linear->weight, nullptr, p.d_up, linear->softcap);
  } else if (auto tied = std::dynamic_pointer_cast<TiedHeadImpl>(model.lm_head)) {
    head = std::make_shared<ScaleHeadImpl>(torch::Tensor(), embed, p.d_up, tied->softcap);
  } else {
    fail("SCALE: the LM head is a '{}' head, not a plain one; apply SCALE to a plain model",
         model.lm_head->kind());
  }
  model.set_head(head);
  add_group("lm_head_up", -1, "lm_head_up", *head);

  if (p.mode == "route") {
    if (model.forward_override) {
      fail("SCALE Route: the model's forward pass is already overridden by another variant");
    }
    RouteSettings rs;
    rs.tau = p.tau;
    rs.fork = fork;
    model.forward_override = [rs](CausalLMImpl& m, const torch::Tensor& ids,
                                  const ForwardOptions& options) {
      return route_forward(m, ids, options, rs);
    };
  }
  // Preserve and Adapt start as the base model (W12 = 0, W_out_up = 0); Route too, since
  // Z_a = Z_p at initialisation.
  r.function_preserving = true;
  logger->debug("SCALE {}: d {} -> {}, {} new q heads ({} kv), MLP +{}, W12 from layer {}", p.mode,
                d, d + p.d_up, new_heads, new_kv_heads, p.p_up, fork);
  return r;
}

}  // namespace gb::grow
