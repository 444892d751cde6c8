#include "model/hf_io.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <unordered_map>

#include <torch/torch.h>

#include "model/arch.h"
#include "model/runtime.h"
#include "model/safetensors.h"
#include "model/tensor_io.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json.h"
#include "util/log.h"
#include "util/memory_context.h"

namespace gb {

namespace fs = std::filesystem;

namespace {

std::string shape_str(c10::IntArrayRef s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}
std::string shape_str(const std::vector<int64_t>& s) {
  return shape_str(c10::IntArrayRef(s));
}

// Applies a file → internal transform; returns the internal tensors in map order.
std::vector<torch::Tensor> to_internal(const arch::TensorMap& m, const torch::Tensor& t,
                                       const ModelConfig& c) {
  switch (m.transform) {
    case arch::Transform::Identity:
      return {t};
    case arch::Transform::Transpose:
      return {t.t().contiguous()};
    case arch::Transform::SplitQkvGpt2: {
      const int64_t d = c.hidden_size;
      if (t.dim() == 2) {
        return {t.narrow(1, 0, d).t().contiguous(), t.narrow(1, d, d).t().contiguous(),
                t.narrow(1, 2 * d, d).t().contiguous()};
      }
      return {t.narrow(0, 0, d).contiguous(), t.narrow(0, d, d).contiguous(),
              t.narrow(0, 2 * d, d).contiguous()};
    }
    case arch::Transform::SplitQkvNeoX: {
      const int64_t h = c.num_heads, hd = c.head_dim;
      std::vector<torch::Tensor> out;
      if (t.dim() == 2) {
        auto v = t.view({h, 3, hd, t.size(1)});
        for (int i = 0; i < 3; ++i) out.push_back(v.select(1, i).reshape({h * hd, t.size(1)}));
      } else {
        auto v = t.view({h, 3, hd});
        for (int i = 0; i < 3; ++i) out.push_back(v.select(1, i).reshape({h * hd}));
      }
      for (auto& o : out) o = o.contiguous();
      return out;
    }
  }
  return {t};
}

// Internal tensors → the file tensor (inverse of to_internal).
torch::Tensor to_file(const arch::TensorMap& m, const std::vector<torch::Tensor>& in,
                      const ModelConfig& c) {
  switch (m.transform) {
    case arch::Transform::Identity:
      return in.at(0);
    case arch::Transform::Transpose:
      return in.at(0).t().contiguous();
    case arch::Transform::SplitQkvGpt2:
      if (in.at(0).dim() == 2) return torch::cat({in[0].t(), in[1].t(), in[2].t()}, 1);
      return torch::cat({in[0], in[1], in[2]}, 0);
    case arch::Transform::SplitQkvNeoX: {
      const int64_t h = c.num_heads, hd = c.head_dim;
      if (in.at(0).dim() == 2) {
        const int64_t d = in[0].size(1);
        return torch::stack(
                   {in[0].view({h, hd, d}), in[1].view({h, hd, d}), in[2].view({h, hd, d})}, 1)
            .reshape({3 * h * hd, d});
      }
      return torch::stack({in[0].view({h, hd}), in[1].view({h, hd}), in[2].view({h, hd})}, 1)
          .reshape({3 * h * hd});
    }
  }
  return in.at(0);
}

std::unordered_map<std::string, torch::Tensor> param_map(CausalLMImpl& model) {
  std::unordered_map<std::string, torch::Tensor> m;
  for (auto& item : model.named_parameters(true)) m.emplace(item.key(), item.value());
  return m;
}

}  // namespace

std::vector<std::string> tokenizer_files(const std::string& folder) {
  static const char* const kNames[] = {"tokenizer.json",
                                       "tokenizer_config.json",
                                       "special_tokens_map.json",
                                       "generation_config.json",
                                       "vocab.json",
                                       "merges.txt",
                                       "tokenizer.model",
                                       "added_tokens.json",
                                       "chat_template.jinja",
                                       "chat_template.json"};
  std::vector<std::string> out;
  if (folder.empty()) return out;
  for (const char* n : kNames) {
    fs::path p = fs::path(folder) / n;
    if (file_exists(p.string())) out.push_back(p.string());
  }
  return out;
}

std::string find_tokenizer(const std::string& folder) {
  fs::path p = fs::path(folder) / "tokenizer.json";
  return file_exists(p.string()) ? p.string() : std::string();
}

CausalLM build_from_checkpoint(const ModelConfig& config, const std::string& folder,
                               const LoadOptions& options) {
  auto logger = log::get("model");
  st::Checkpoint ck(folder);
  CausalLM model{nullptr};
  {
    // The size config.json asks for, named if it cannot be allocated.
    double numel = 0;
    for (const auto& m : arch::hf_tensors(config)) {
      double n = 1;
      for (int64_t s : m.hf_shape) n *= static_cast<double>(s);
      numel += n;
    }
    MemoryContext mc(
        fmt::format("the weights config.json describes ({:.3g} parameters in {} layers, hidden "
                    "size {}, vocabulary {}: {} as {})",
                    numel, config.num_layers, config.hidden_size, config.vocab_size,
                    format_bytes(numel * c10::elementSize(options.dtype)),
                    dtype_name(options.dtype)),
        "the model (is config.json right?) or --dtype (bfloat16 halves the weights)");
    SkipInitGuard skip;
    model = CausalLM(config);
  }
  auto params = param_map(*model);
  std::set<std::string> filled;
  std::set<std::string> consumed;
  std::vector<std::string> missing;
  torch::NoGradGuard no_grad;

  for (const auto& m : arch::hf_tensors(config)) {
    std::string name = m.hf_name;
    if (!ck.contains(name)) {
      for (const auto& alias : arch::aliases(m.hf_name, config)) {
        if (ck.contains(alias)) {
          name = alias;
          break;
        }
      }
    }
    if (!ck.contains(name)) {
      missing.push_back(m.hf_name);
      continue;
    }
    const st::TensorInfo& info = ck.info(name);
    if (info.shape != m.hf_shape) {
      fail(
          "{}: tensor '{}' has shape {} but config.json implies {}; hint: does config.json "
          "belong to these weights?",
          ck.file_of(name), name, shape_str(info.shape), shape_str(m.hf_shape));
    }
    switch (info.dtype) {
      case st::DType::F32:
      case st::DType::F16:
      case st::DType::BF16:
      case st::DType::F64:
        break;
      default:
        fail("{}: tensor '{}' has dtype {}, expected a floating-point dtype (F32, F16, BF16)",
             ck.file_of(name), name, st::dtype_name(info.dtype));
    }
    consumed.insert(name);
    torch::Tensor t = st::to_tensor(info, ck.data(name), options.dtype, options.device);
    auto parts = to_internal(m, t, config);
    for (size_t i = 0; i < parts.size(); ++i) {
      auto it = params.find(m.internal[i]);
      if (it == params.end()) fail("internal error: no parameter '{}'", m.internal[i]);
      if (it->second.sizes() != parts[i].sizes()) {
        fail("internal error: parameter '{}' is {}, tensor '{}' gives {}", m.internal[i],
             shape_str(it->second.sizes()), name, shape_str(parts[i].sizes()));
      }
      it->second.set_data(parts[i]);
      filled.insert(m.internal[i]);
    }
  }
  if (!missing.empty()) {
    std::string list;
    for (size_t i = 0; i < missing.size() && i < 8; ++i) list += (i ? ", " : "") + missing[i];
    if (missing.size() > 8) list += fmt::format(", ... ({} in all)", missing.size());
    fail("{}: {} tensor(s) that config.json ({} with {} layers) requires are missing: {}", folder,
         missing.size(), config.model_type, config.num_layers, list);
  }
  std::vector<std::string> unexpected;
  for (const auto& n : ck.names()) {
    if (!consumed.count(n) && !arch::is_ignorable(n, config)) unexpected.push_back(n);
  }
  if (!unexpected.empty()) {
    std::string list;
    for (size_t i = 0; i < unexpected.size() && i < 8; ++i) {
      list += (i ? ", " : "") + unexpected[i];
    }
    if (unexpected.size() > 8) list += fmt::format(", ... ({} in all)", unexpected.size());
    fail(
        "{}: {} unexpected tensor(s) not described by config.json ({}): {}; hint: the "
        "checkpoint may be of another architecture or have more layers than the config says",
        folder, unexpected.size(), config.model_type, list);
  }
  for (const auto& [name, p] : params) {
    if (!filled.count(name)) fail("internal error: parameter '{}' was not loaded", name);
  }
  if (config.tie_embeddings) {
    // transformers' rule: with tie_word_embeddings the head IS the token embedding and a
    // stored head is not used. Say so when the stored one is not the embedding.
    for (const char* head : {"lm_head.weight", "embed_out.weight"}) {
      if (!ck.contains(head)) continue;
      const st::TensorInfo& info = ck.info(head);
      const torch::Tensor emb = params.at(arch::names::kEmbed).to(torch::kFloat);
      std::string how;
      if (info.shape != emb.sizes().vec()) {
        how = fmt::format("its shape {} is not the embedding's {}", shape_str(info.shape),
                          shape_str(emb.sizes()));
      } else {
        const torch::Tensor stored = st::to_tensor(info, ck.data(head), torch::kFloat, torch::kCPU);
        const double diff = (stored - emb.to(torch::kCPU)).abs().max().item<double>();
        if (diff > 0) how = fmt::format("it differs from the embedding by up to {:.3g}", diff);
      }
      if (!how.empty()) {
        log::get("model")->warn(
            "{}: config.json sets tie_word_embeddings, so the stored '{}' is not used (as in "
            "transformers: the LM head is the token embedding), but {}; set "
            "\"tie_word_embeddings\": false in config.json if the stored head is the one meant",
            ck.file_of(head), head, how);
      }
    }
  }
  model->to(options.device);
  model->eval();
  logger->info("loaded {} ({} parameters, {} layers) from {}", config.model_type,
               count_parameters(*model), config.num_layers, folder);
  return model;
}

LoadedModel load_hf_model(const std::string& folder, const LoadOptions& options) {
  if (!is_directory(folder)) {
    fail(
        "'{}' is not a folder; expected a Hugging Face model folder with config.json and "
        "model.safetensors",
        folder);
  }
  fs::path cfg = fs::path(folder) / "config.json";
  if (!file_exists(cfg.string())) {
    fail("'{}' has no config.json; expected a Hugging Face model folder", folder);
  }
  LoadedModel lm;
  lm.folder = folder;
  lm.config = load_config(cfg.string());
  lm.model = build_from_checkpoint(lm.config, folder, options);
  lm.tokenizer_file = find_tokenizer(folder);
  if (options.check_finite) check_finite_weights(*lm.model, folder);
  return lm;
}

void check_finite_weights(CausalLMImpl& model, const std::string& folder) {
  torch::NoGradGuard no_grad;
  for (const auto& item : model.named_parameters(true)) {
    if (!torch::isfinite(item.value()).all().item<bool>()) {
      const int64_t bad = (~torch::isfinite(item.value())).sum().item<int64_t>();
      fail(
          "'{}': the weight {} holds {} non-finite value(s) (NaN or Inf); every output of the "
          "model would be meaningless",
          folder, item.key(), bad);
    }
  }
}

bool is_hf_expressible(CausalLMImpl& model, std::string* reason) {
  auto no = [&](const std::string& why) {
    if (reason) *reason = why;
    return false;
  };
  if (!std::dynamic_pointer_cast<EmbeddingImpl>(model.model->embed_tokens)) {
    return no("the token embedding is widened (not a plain embedding)");
  }
  if (!std::dynamic_pointer_cast<NormImpl>(model.model->norm)) {
    return no("the final norm is split into parts");
  }
  if (!std::dynamic_pointer_cast<LinearHeadImpl>(model.lm_head) &&
      !std::dynamic_pointer_cast<TiedHeadImpl>(model.lm_head)) {
    return no("the LM head is not a plain linear head");
  }
  if (model.forward_override) return no("the forward pass is routed (SCALE Route)");
  const ModelConfig& c = model.config;
  int64_t p = -1;
  for (int64_t l = 0; l < model.num_layers(); ++l) {
    auto layer = model.layer(l);
    if (!layer->branches().empty()) {
      return no(fmt::format("layer {} has modules in parallel to its MLP ({})", l,
                            layer->branches().front().second->kind()));
    }
    for (const auto& u : layer->units()) {
      if (auto lin = std::dynamic_pointer_cast<LinearUnitImpl>(u.module)) {
        if (!lin->mergeable()) {
          return no(fmt::format("layer {} unit {} has no plain form ({})", l, u.name, lin->kind()));
        }
      }
      if (auto n = std::dynamic_pointer_cast<NormUnitImpl>(u.module)) {
        if (!std::dynamic_pointer_cast<NormImpl>(n)) {
          return no(fmt::format("layer {} unit {} is a split norm", l, u.name));
        }
      }
    }
    if (layer->self_attn->split_heads > 0) return no(fmt::format("layer {} has new heads", l));
    auto q = layer->self_attn->q_proj;
    if (q->out_features() != c.num_heads * c.head_dim || q->in_features() != c.hidden_size) {
      return no(fmt::format("layer {} attention is resized", l));
    }
    int64_t lp = layer->mlp->intermediate_size();
    if (p >= 0 && lp != p) {
      return no(fmt::format("layers have different MLP sizes ({} and {})", p, lp));
    }
    p = lp;
    bool has_bias = static_cast<bool>(layer->mlp->up_proj->dense_bias().defined());
    if (has_bias != c.mlp_bias) return no("MLP biases differ from the architecture's");
  }
  return true;
}

ModelConfig plain_config(CausalLMImpl& model) {
  ModelConfig c = model.config;
  c.num_layers = model.num_layers();
  c.layer_types.clear();
  for (int64_t l = 0; l < c.num_layers; ++l) {
    c.layer_types.push_back(model.layer(l)->self_attn->sliding ? AttentionKind::Sliding
                                                               : AttentionKind::Full);
  }
  if (c.num_layers > 0) c.intermediate_size = model.layer(0)->mlp->intermediate_size();
  return c;
}

void export_hf(CausalLMImpl& model, const std::string& out_dir,
               const std::string& tokenizer_source) {
  std::string reason;
  if (!is_hf_expressible(model, &reason)) {
    fail(
        "this model cannot be written as a plain {} checkpoint: {}; write a GrowBench "
        "checkpoint instead",
        model.config.model_type, reason);
  }
  torch::NoGradGuard no_grad;
  ModelConfig c = plain_config(model);
  // The plain internal state: dense weights of every unit (LoRA merged, splits joined).
  std::unordered_map<std::string, torch::Tensor> internal;
  auto put = [&](const std::string& name, const torch::Tensor& t) {
    if (t.defined()) internal[name] = t.detach().to(torch::kCPU).contiguous();
  };
  put(arch::names::kEmbed, model.model->embed_tokens->tied_weight());
  if (model.model->embed_positions)
    put(arch::names::kPositions, model.model->embed_positions->weight);
  auto final_norm = std::dynamic_pointer_cast<NormImpl>(model.model->norm);
  put(arch::names::kFinalNormW, final_norm->weight);
  put(arch::names::kFinalNormB, final_norm->bias);
  if (auto head = std::dynamic_pointer_cast<LinearHeadImpl>(model.lm_head)) {
    put(arch::names::kLmHead, head->weight);
  }
  for (int64_t l = 0; l < model.num_layers(); ++l) {
    auto layer = model.layer(l);
    const std::string pre = arch::names::layer_prefix(l);
    for (const auto& u : layer->units()) {
      const std::string base = pre + arch::names::unit_path(u.name);
      if (auto lin = std::dynamic_pointer_cast<LinearUnitImpl>(u.module)) {
        put(base + ".weight", lin->dense_weight());
        put(base + ".bias", lin->dense_bias());
      } else if (auto norm = std::dynamic_pointer_cast<NormImpl>(u.module)) {
        put(base + ".weight", norm->weight);
        put(base + ".bias", norm->bias);
      }
    }
  }
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  std::set<std::string> used;
  for (const auto& m : arch::hf_tensors(c)) {
    std::vector<torch::Tensor> parts;
    for (const auto& n : m.internal) {
      auto it = internal.find(n);
      if (it == internal.end()) fail("export: no value for internal tensor '{}'", n);
      parts.push_back(it->second);
      used.insert(n);
    }
    torch::Tensor t = to_file(m, parts, c).contiguous();
    if (t.sizes().vec() != m.hf_shape) {
      fail("export: tensor '{}' has shape {}, expected {}", m.hf_name, shape_str(t.sizes()),
           shape_str(m.hf_shape));
    }
    tensors.emplace_back(m.hf_name, t);
  }
  for (const auto& [n, t] : internal) {
    if (!used.count(n))
      fail("export: internal tensor '{}' has no place in the {} format", n, c.model_type);
  }
  // Written as a whole: a kill or a full disk never leaves config and weights of two models.
  StagedFolder staged(out_dir);
  const fs::path dir(staged.path());
  st::write_tensors((dir / "model.safetensors").string(), tensors, {{"format", "pt"}});
  nlohmann::json cfg = to_hf_json(c);
  cfg["torch_dtype"] =
      dtype_name(tensors.empty() ? torch::kFloat : tensors[0].second.scalar_type());
  write_file_atomic((dir / "config.json").string(), cfg.dump(2) + "\n");
  for (const auto& f : tokenizer_files(tokenizer_source)) {
    fs::copy_file(f, dir / fs::path(f).filename(), fs::copy_options::overwrite_existing);
  }
  staged.commit();
  log::get("model")->info("exported {} ({} tensors) to {}", c.model_type, tensors.size(), out_dir);
}

}  // namespace gb
