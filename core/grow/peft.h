#pragma once
// Hugging Face PEFT LoRA adapters: a folder with adapter_config.json and
// adapter_model.safetensors, read into a LoRA plan (`{"variant": "lora", "from_peft": DIR}`)
// and written from a model whose linear units are LoRA units (grow/lora.h).
//
// The tensors are named after the Hugging Face module they adapt, under PEFT's wrapper
// prefix, without the adapter name:
//   base_model.model.<module>.lora_A.weight   (r, in)
//   base_model.model.<module>.lora_B.weight   (out, r)
// e.g. base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight. PEFT's forward adds
// scaling · B A x with scaling = lora_alpha / r, or lora_alpha / √r with use_rslora; GrowBench's
// LoRA unit adds (alpha / r) · B A x, so an rslora adapter is read with alpha = lora_alpha · √r.
//
// Supported: peft_type LORA, task_type CAUSAL_LM (or unset), one rank and one alpha for every
// module, the same targets on every adapted layer, the linear units q k v o gate up down of
// the decoder layers (Llama-style names; GPT-NeoX's attention.dense and mlp.dense_*; GPT-2's
// Conv1D attn.c_proj and mlp.c_fc/c_proj with fan_in_fan_out). Refused with a message: DoRA,
// rank_pattern/alpha_pattern, bias other than "none", modules_to_save, layer_replication,
// trainable tokens, target_parameters, LoRA on fused q/k/v (GPT-2 c_attn, GPT-NeoX
// query_key_value), embeddings or the LM head. lora_dropout is kept in the config but
// GrowBench's LoRA has no dropout (a warning says so).
//
// The torch-free part (read_adapter) is what plan parsing calls.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gb {
class CausalLMImpl;
struct ModelConfig;
}  // namespace gb

namespace gb::grow::peft {

inline constexpr char kConfigFile[] = "adapter_config.json";
inline constexpr char kWeightsFile[] = "adapter_model.safetensors";
inline constexpr char kKeyPrefix[] = "base_model.model.";

// What a PEFT adapter folder holds, validated (config and safetensors header).
struct Adapter {
  std::string folder;                // absolute
  int64_t rank = 0;                  // r
  double lora_alpha = 0;             // as written
  bool use_rslora = false;           // scaling lora_alpha / √r instead of lora_alpha / r
  double alpha = 0;                  // GrowBench's alpha: scaling · rank
  std::vector<std::string> targets;  // unit names (q k v o gate up down), canonical order
  std::vector<int64_t> layers;       // adapted layers, ascending
  double dropout = 0;
  std::string base_model;                      // base_model_name_or_path ("" when unset)
  std::map<std::string, std::string> modules;  // "<layer>.<unit>" -> Hugging Face module path
  std::vector<std::string> warnings;
};

// Reads and validates adapter_config.json and the header of adapter_model.safetensors.
// Errors name the folder, the file and the key or tensor, with what GrowBench supports.
// Read once per process and folder: parse_plan calls it for every parse of a plan (a spec is
// parsed per sweep point and per run) and applying the plan calls it again, so later calls
// return the first read while both files keep their inode, size and modification and change
// times, and read the folder again when either changed. Failed reads are not kept.
Adapter read_adapter(const std::string& folder);
// How many times read_adapter has read an adapter folder from disk in this process (tests).
int64_t adapter_reads();

// The PEFT tensor name of a module's A ('A') or B ('B') matrix.
std::string tensor_name(const std::string& hf_module, char which);

// The Hugging Face module path of linear unit `unit` of layer `layer` of a model of
// `config` ("model.layers.0.self_attn.q_proj"), and whether the file stores that weight
// transposed (GPT-2 Conv1D: PEFT's fan_in_fan_out). Throws naming the unit when the family
// keeps it fused with others (GPT-2 c_attn, GPT-NeoX query_key_value).
struct ModuleName {
  std::string path;
  bool fan_in_fan_out = false;
};
ModuleName hf_module(const ModelConfig& config, int64_t layer, const std::string& unit);

// Copies the adapter's A and B into the model's LoRA units (the plan of `adapter` applied).
// Checks every shape against the model's units (errors name the tensor, expected against
// actual) and that the adapter's module names are the model's.
void load_weights(CausalLMImpl& model, const Adapter& adapter);

struct ExportResult {
  std::string folder;
  int64_t tensors = 0;
  int64_t rank = 0;
  double alpha = 0;
  std::vector<std::string> target_modules;
};
// Writes `out_dir`/adapter_config.json and adapter_model.safetensors from the LoRA units of
// `model` (the same rank and alpha on every unit; the same targets on every adapted layer).
// `base_model` goes to base_model_name_or_path ("" writes null). Throws when the model has no
// LoRA units, or anything else grown.
ExportResult export_adapter(CausalLMImpl& model, const std::string& out_dir,
                            const std::string& base_model);

}  // namespace gb::grow::peft
