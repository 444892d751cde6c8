#pragma once
// Transformer modules of GrowBench, following LibTorch (XxxImpl : torch::nn::Module and
// TORCH_MODULE). Registered names are the Hugging Face tensor names of the Llama family
// (model.layers.3.mlp.down_proj.weight); GPT-2 and GPT-NeoX checkpoints are converted to
// these names on import and back on export (see model/arch.h).
//
// Every unit a growth method can replace is polymorphic: linear units (q, k, v, o, gate,
// up, down, lm_head), norms, the token embedding. Layers also carry "branches": modules in
// parallel to the MLP (adapters, neutral residues, mixtures of LoRA experts).

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include "model/config.h"

namespace gb {

namespace grow {
class RouteRecorder;  // grow/routes.h
}

// An extra loss term a module contributes during a forward pass (local ℓ1 of neutral
// residues, gate classifier, load balancing). The trainer adds coefficient · value.
struct AuxTerm {
  std::string name;
  torch::Tensor value;  // scalar
  double coefficient = 1.0;
  // The value is a mean over the original-domain rows of a batch mixed per row (0 when the
  // batch, or its block of rows, has none): a trainer that splits the batch weighs each
  // block's value by its share of the original-domain rows, not of all rows.
  bool original_rows_only = false;
};

// Key/value cache for incremental decoding: one (k, v) per layer, (B, H_kv, T, d_h).
struct KVCache {
  std::vector<torch::Tensor> k;
  std::vector<torch::Tensor> v;
  int64_t length() const { return k.empty() || !k[0].defined() ? 0 : k[0].size(2); }
};

// Per-call state shared by all layers of one forward pass.
struct ForwardState {
  torch::Tensor cos_global, sin_global;  // (T, rot) RoPE tables of full-attention layers
  torch::Tensor cos_local, sin_local;    // (T, rot) of sliding layers (Gemma 3)
  torch::Tensor key_padding;             // (B, T_total) bool, true = valid; undefined = all
  int64_t past = 0;                      // cached positions before this call
  KVCache* cache = nullptr;
  // Growth-specific switches.
  bool mask_w12 = false;         // SCALE Route: compute with the W12 blocks masked to zero
  bool original_domain = false;  // batch drawn from the original distribution
  torch::Tensor domain_labels;   // (B) float, 1 = new domain (sigmoid-gated neutral residues)
  // (B) float, 1 = an original-domain row: defined only for a batch mixed per row
  // (replay_mode "rows"; original_domain is then false), whose local losses cover these rows.
  torch::Tensor original_rows;
  std::vector<AuxTerm>* aux = nullptr;    // collects aux terms when non-null
  grow::RouteRecorder* routes = nullptr;  // collects routed-expert statistics when non-null
  int64_t layer_index = 0;
};

// While alive (on this thread), module constructors allocate parameters without drawing
// initial values: loading a checkpoint overwrites them anyway.
class SkipInitGuard {
 public:
  SkipInitGuard();
  ~SkipInitGuard();
  SkipInitGuard(const SkipInitGuard&) = delete;
  SkipInitGuard& operator=(const SkipInitGuard&) = delete;
  static bool active();

 private:
  bool m_previous;
};

// ---------------------------------------------------------------------------------------
// Linear units

class LinearUnitImpl : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& x, const ForwardState& state) = 0;
  virtual int64_t in_features() const = 0;
  virtual int64_t out_features() const = 0;
  // The equivalent dense weight (out, in) and bias (out) or undefined; for export, probes
  // and merging. Values as they are now (after training).
  virtual torch::Tensor dense_weight() const = 0;
  virtual torch::Tensor dense_bias() const = 0;
  // Short description for the architecture tree ("Linear", "LoRA r=8", ...).
  virtual std::string kind() const = 0;
  // True when dense_weight() and dense_bias() are the unit's whole function (a plain export
  // then keeps it); false for units with input-dependent paths (routed experts).
  virtual bool mergeable() const { return true; }
};
using LinearUnit = std::shared_ptr<LinearUnitImpl>;

// y = x Wᵀ + b. weight (out, in), bias (out).
class DenseLinearImpl : public LinearUnitImpl {
 public:
  DenseLinearImpl(int64_t in, int64_t out, bool bias);
  DenseLinearImpl(torch::Tensor weight, torch::Tensor bias);  // takes the given values
  torch::Tensor forward(const torch::Tensor& x, const ForwardState& state) override;
  int64_t in_features() const override { return weight.size(1); }
  int64_t out_features() const override { return weight.size(0); }
  torch::Tensor dense_weight() const override { return weight; }
  torch::Tensor dense_bias() const override { return bias; }
  std::string kind() const override { return "Linear"; }

  torch::Tensor weight;  // (out, in)
  torch::Tensor bias;    // (out) or undefined
};
std::shared_ptr<DenseLinearImpl> make_dense(int64_t in, int64_t out, bool bias);

// ---------------------------------------------------------------------------------------
// Norms

class NormUnitImpl : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& x) = 0;
  virtual int64_t features() const = 0;
  virtual std::string kind() const = 0;
};
using NormUnit = std::shared_ptr<NormUnitImpl>;

// RMSNorm (x/rms·w), Gemma's RMSNorm (x/rms·(1+w)) or LayerNorm, over the last dim,
// computed in float32 as Hugging Face does.
class NormImpl : public NormUnitImpl {
 public:
  NormImpl(NormKind kind, int64_t features, double eps);
  torch::Tensor forward(const torch::Tensor& x) override;
  int64_t features() const override { return weight.size(0); }
  std::string kind() const override;

  NormKind norm_kind;
  double eps;
  torch::Tensor weight;  // (features)
  torch::Tensor bias;    // (features), LayerNorm only
  // Llama's RMSNorm in one pass forward and two backward on the CPU in float32
  // (rms_norm_fused; the same numbers as the ops).
  bool fused = true;
};
std::shared_ptr<NormImpl> make_norm(const ModelConfig& config, int64_t features);

// ---------------------------------------------------------------------------------------
// Token embedding

class EmbeddingUnitImpl : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& ids) = 0;  // (B, T) → (B, T, d)
  virtual int64_t num_embeddings() const = 0;
  virtual int64_t dim() const = 0;
  // The (V, d_orig) matrix a tied LM head multiplies with.
  virtual torch::Tensor tied_weight() const = 0;
};
using EmbeddingUnit = std::shared_ptr<EmbeddingUnitImpl>;

class EmbeddingImpl : public EmbeddingUnitImpl {
 public:
  EmbeddingImpl(int64_t num, int64_t dim);
  torch::Tensor forward(const torch::Tensor& ids) override;
  int64_t num_embeddings() const override { return weight.size(0); }
  int64_t dim() const override { return weight.size(1); }
  torch::Tensor tied_weight() const override { return weight; }
  torch::Tensor weight;  // (V, d)
};

// ---------------------------------------------------------------------------------------
// Attention and MLP

struct RopeTables {
  torch::Tensor cos, sin;  // (T, rot)
};

class AttentionImpl : public torch::nn::Module {
 public:
  AttentionImpl(const ModelConfig& config, int64_t layer_index);
  // x (B, T, d_in) → (B, T, d_out)
  torch::Tensor forward(const torch::Tensor& x, ForwardState& state);

  LinearUnit q_proj, k_proj, v_proj, o_proj;
  NormUnit q_norm, k_norm;  // per head over head_dim, or null
  int64_t num_heads, num_kv_heads, head_dim, rotary_dim;
  double scale;
  double softcap = 0;
  int64_t sliding_window = 0;  // 0 = full attention
  bool sliding = false;
  // SCALE: the first `split_heads` q heads and `split_kv_heads` kv heads form the original
  // stream and are computed separately from the new heads (0 = no split).
  int64_t split_heads = 0, split_kv_heads = 0;
  // RoPE in one pass each way on the CPU in float32 (apply_rope_fused; the same numbers).
  bool fused_rope = true;
  // The causal mask by direct loops (compat::causal_mask_; the same numbers).
  bool fused_mask = true;

 private:
  torch::Tensor core(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                     const ForwardState& state, double scores_scale) const;
};
TORCH_MODULE(Attention);

class MLPImpl : public torch::nn::Module {
 public:
  MLPImpl(const ModelConfig& config, int64_t intermediate);
  torch::Tensor forward(const torch::Tensor& x, ForwardState& state);
  int64_t intermediate_size() const { return up_proj->out_features(); }

  LinearUnit gate_proj;  // null for plain MLPs
  LinearUnit up_proj, down_proj;
  Activation activation;
  // SCALE: the first `split_inner` units form the original stream; their activation runs on
  // a tensor of the base's shape, because vectorised and scalar kernels of transcendental
  // activations round differently and multi-threaded chunking depends on the shape
  // (0 = no split).
  int64_t split_inner = 0;
  // SiLU-gated MLPs: silu(gate) · up in one pass each way on the CPU in float32 where
  // swiglu_fusable holds (swiglu_fused; the same numbers as the ops).
  bool fused_swiglu = true;
};
TORCH_MODULE(MLP);

torch::Tensor activate(const torch::Tensor& x, Activation act);

// A module in parallel to a layer's MLP: it receives the MLP's normalised input and
// returns its contribution to the residual stream (B, T, d).
class BranchImpl : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& x_normed, ForwardState& state) = 0;
  virtual std::string kind() const = 0;
};
using Branch = std::shared_ptr<BranchImpl>;

// ---------------------------------------------------------------------------------------
// Decoder layer

// A named unit of a layer: the importance probes and growth operators address units by
// these names: q, k, v, o, q_norm, k_norm, gate, up, down, input_norm, post_attn_norm,
// pre_ffn_norm, post_ffn_norm (whichever the family has).
struct UnitRef {
  std::string name;
  std::shared_ptr<torch::nn::Module> module;
  std::string path;  // registered path inside the layer, e.g. "self_attn.q_proj"
};

class DecoderLayerImpl : public torch::nn::Module {
 public:
  DecoderLayerImpl(const ModelConfig& config, int64_t layer_index);
  torch::Tensor forward(const torch::Tensor& h, ForwardState& state);

  std::vector<UnitRef> units() const;
  std::vector<std::string> unit_names() const;
  LinearUnit linear(const std::string& unit) const;  // q, k, v, o, gate, up, down
  void set_linear(const std::string& unit, LinearUnit replacement);
  NormUnit norm(const std::string& unit) const;  // input_norm, ..., q_norm, k_norm
  void set_norm(const std::string& unit, NormUnit replacement);
  void add_branch(const std::string& name, Branch branch);
  const std::vector<std::pair<std::string, Branch>>& branches() const { return m_branches; }

  Attention self_attn{nullptr};
  MLP mlp{nullptr};
  NormUnit input_layernorm, post_attention_layernorm;
  NormUnit pre_feedforward_layernorm, post_feedforward_layernorm;  // Gemma 3 only
  bool parallel_residual = false;
  bool sandwich = false;

 private:
  std::vector<std::pair<std::string, Branch>> m_branches;
};
TORCH_MODULE(DecoderLayer);

// ---------------------------------------------------------------------------------------
// Whole model

// The LM head: logits from the final normalised hidden state. For SCALE the head also
// reports the new-part contribution separately (Route needs both).
class HeadUnitImpl : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& h) = 0;  // (B, T, d) → (B, T, V)
  virtual std::string kind() const = 0;
};
using HeadUnit = std::shared_ptr<HeadUnitImpl>;

class BackboneImpl : public torch::nn::Module {
 public:
  explicit BackboneImpl(const ModelConfig& config);
  EmbeddingUnit embed_tokens;
  std::shared_ptr<EmbeddingImpl> embed_positions;  // GPT-2 only
  torch::nn::ModuleList layers{nullptr};
  NormUnit norm;
};
TORCH_MODULE(Backbone);

struct ForwardOptions {
  torch::Tensor key_padding;  // (B, T) bool, true = valid (right padding)
  KVCache* cache = nullptr;
  bool original_domain = false;
  torch::Tensor domain_labels;
  torch::Tensor original_rows;  // (B) float; see ForwardState
  std::vector<AuxTerm>* aux = nullptr;
  grow::RouteRecorder* routes = nullptr;  // route statistics (grow/routes.h)
  bool mask_w12 = false;
  // Activation checkpointing (spec train.checkpointing): while gradients are recorded, each
  // decoder layer runs without recording, keeps only its input, and runs again with
  // recording in the backward pass (the same numbers: the layers draw no random numbers).
  // A layer that adds an auxiliary loss term (neutral residues' local losses, MoE load
  // balance) cannot be recomputed this way: the forward pass fails, naming the term.
  bool checkpoint_layers = false;
};

class CausalLMImpl : public torch::nn::Module {
 public:
  explicit CausalLMImpl(const ModelConfig& config);

  // ids (B, T) int64 → logits (B, T, V).
  torch::Tensor forward(const torch::Tensor& ids, const ForwardOptions& options = {});

  // Pieces of the forward pass, for probes that restart from a layer.
  torch::Tensor embed(const torch::Tensor& ids, int64_t past = 0);  // → (B, T, d)
  ForwardState make_state(int64_t seq_len, const ForwardOptions& options,
                          const torch::Device& device);
  torch::Tensor run_layer(int64_t index, const torch::Tensor& h, ForwardState& state);
  // run_layer with activation checkpointing (ForwardOptions::checkpoint_layers).
  torch::Tensor run_layer_checkpointed(int64_t index, const torch::Tensor& h, ForwardState& state);
  torch::Tensor final_hidden(const torch::Tensor& h);  // final norm
  torch::Tensor logits_from_hidden(const torch::Tensor& h, const ForwardOptions& options = {});
  // Final normalised hidden states (B, T, d) of a full pass (representation drift).
  torch::Tensor hidden_states(const torch::Tensor& ids, const ForwardOptions& options = {});

  int64_t num_layers() const { return static_cast<int64_t>(model->layers->size()); }
  DecoderLayer layer(int64_t index) const;
  std::vector<DecoderLayer> all_layers() const;
  // Replaces the list of layers (depth expansion); re-registers them as model.layers.i.
  void set_layers(const std::vector<DecoderLayer>& layers);
  void set_head(HeadUnit head);
  HeadUnit head() const { return lm_head; }
  void set_embedding(EmbeddingUnit embedding);

  // A hook SCALE Route installs: given the two passes' outputs, combine them. When set,
  // forward() runs twice (mask_w12 false and true) and calls it with (Z_a, Z_p) hidden.
  std::function<torch::Tensor(CausalLMImpl&, const torch::Tensor& ids,
                              const ForwardOptions& options)>
      forward_override;

  ModelConfig config;  // sizes of the base architecture; growth may widen modules
  // The dtype the hidden states are computed in when the frozen weights are stored in a
  // narrower one (model/frozen_dtype.h): embed() casts the embedding's output to it. Unset:
  // the embedding's own dtype, as before.
  std::optional<c10::ScalarType> activation_dtype;
  Backbone model{nullptr};
  HeadUnit lm_head;  // a TiedHead when embeddings are tied

  // Rope inverse frequencies (rot/2) for global and local (sliding) layers.
  torch::Tensor inv_freq_global, inv_freq_local;

 private:
  RopeTables rope(const torch::Tensor& inv_freq, int64_t start, int64_t length,
                  const torch::Device& device) const;
};
TORCH_MODULE(CausalLM);

// Plain head: logits = h Wᵀ (untied).
class LinearHeadImpl : public HeadUnitImpl {
 public:
  LinearHeadImpl(int64_t d, int64_t vocab, std::optional<double> softcap);
  torch::Tensor forward(const torch::Tensor& h) override;
  std::string kind() const override { return "Linear"; }
  torch::Tensor weight;  // (V, d)
  std::optional<double> softcap;
};

// Tied head: logits = h Eᵀ with E the embedding's (current) weight; owns no parameter.
class TiedHeadImpl : public HeadUnitImpl {
 public:
  TiedHeadImpl(EmbeddingUnit embedding, std::optional<double> softcap);
  torch::Tensor forward(const torch::Tensor& h) override;
  std::string kind() const override { return "Tied"; }
  std::weak_ptr<EmbeddingUnitImpl> embedding;
  std::optional<double> softcap;
};

// Rotate-half RoPE on the first `rot` dims of x (B, H, T, d_h).
torch::Tensor apply_rope(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin,
                         int64_t rot);
torch::Tensor rope_inv_freq(const ModelConfig& config, bool local);
// apply_rope over all of x's last dim, times `scale` (an exact power of two, 1 for none), as
// one pass forward and one backward (model/exact_kernels.h) with the same numbers as the ops;
// only where rope_fusable holds (CPU, float32, rot = d_h, rows contiguous).
bool rope_fusable(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin,
                  int64_t rot);
torch::Tensor apply_rope_fused(const torch::Tensor& x, const torch::Tensor& cos,
                               const torch::Tensor& sin, double scale);
// Llama's RMSNorm, weight · (x · rsqrt(mean(x²) + eps)), with the products in single passes
// (model/exact_kernels.h) and the same numbers as the ops, forward and backward; only where
// rms_norm_fusable holds (CPU, float32, x contiguous, weight over its last dim).
bool rms_norm_fusable(const torch::Tensor& x, const torch::Tensor& weight);
torch::Tensor rms_norm_fused(const torch::Tensor& x, const torch::Tensor& weight, double eps);
// silu(gate) · up with one pass forward and one backward (model/exact_kernels.h) and the same
// numbers as the ops (silu, mul; MulBackward, SiluBackward); only where swiglu_fusable holds:
// float32 CPU tensors of one shape, contiguous, LibTorch 1.13's AVX2 kernels in use and its
// element-wise loops serial (one intra-op thread, or fewer elements than its grain).
bool swiglu_fusable(const torch::Tensor& gate, const torch::Tensor& up);
torch::Tensor swiglu_fused(const torch::Tensor& gate, const torch::Tensor& up);

// Initialises every parameter as a freshly configured model (normal(0, std) weights,
// zero biases, unit norms; Gemma norms 0), deterministically from the current torch seed.
void init_weights(CausalLMImpl& model, double std = 0.02);

// Parameters with their full registered names (model.layers.0.self_attn.q_proj.weight).
std::vector<std::pair<std::string, torch::Tensor>> named_parameters(const CausalLMImpl& model);
int64_t count_parameters(const CausalLMImpl& model, bool trainable_only = false);

}  // namespace gb
