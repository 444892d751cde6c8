#pragma once
// The one registry of architectures and tensor names: for each family, the tensors a
// Hugging Face checkpoint holds (name, shape on disk) and how they map to GrowBench's
// internal parameters (Llama-style names). Llama, Qwen2, Qwen3, Gemma and Gemma 3 map one
// to one; GPT-2 (Conv1D weights stored (in, out), fused c_attn = [q|k|v]) and GPT-NeoX
// (fused per-head query_key_value with layout (H, 3, d_h)) are converted.

#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"

namespace gb::arch {

enum class Transform {
  Identity,      // internal = file tensor
  Transpose,     // internal = file tensorᵀ (GPT-2 Conv1D)
  SplitQkvGpt2,  // file (d, 3d) Conv1D weight or (3d) bias → q, k, v (then transposed)
  SplitQkvNeoX,  // file (3d, d) weight or (3d) bias, per head [q|k|v] → q, k, v
};

struct TensorMap {
  std::string hf_name;
  std::vector<int64_t> hf_shape;
  Transform transform = Transform::Identity;
  std::vector<std::string> internal;  // one name, or q/k/v names for the split transforms
};

// Internal parameter names (always Llama style).
namespace names {
std::string layer_prefix(int64_t layer);  // "model.layers.3."
extern const char* const kEmbed;          // "model.embed_tokens.weight"
extern const char* const kPositions;      // "model.embed_positions.weight"
extern const char* const kFinalNormW;     // "model.norm.weight"
extern const char* const kFinalNormB;     // "model.norm.bias"
extern const char* const kLmHead;         // "lm_head.weight"
// Path of a unit's module inside a layer: "self_attn.q_proj", "mlp.up_proj", ...
std::string unit_path(const std::string& unit);
}  // namespace names

// Every tensor a plain checkpoint of this configuration holds on disk, in a canonical
// order. The tied LM head is not listed (tied models do not store it).
std::vector<TensorMap> hf_tensors(const ModelConfig& config);

// Tensors some checkpoints carry that are derived buffers, not parameters (rotary
// inv_freq, GPT-2 attn.bias/masked_bias, ...): ignored on load.
bool is_ignorable(const std::string& hf_name, const ModelConfig& config);

// Other names under which a file may store `hf_name` (GPT-2 checkpoints without the
// "transformer." prefix; a tied model that also stores lm_head.weight).
std::vector<std::string> aliases(const std::string& hf_name, const ModelConfig& config);

// The Hugging Face module path of the final norm, for messages and reference checks.
std::string final_norm_module(Family family);

}  // namespace gb::arch
