#pragma once
// Parameter declarations shared by variants that use the same operator: the gated and the
// plain adapters (neutral-residues.cpp, adapters.cpp), and the two mixtures of LoRA experts
// (loramoe.cpp, mh-moe.cpp).

#include "grow/variant.h"

namespace gb::grow {

// layers, budget, inner (and gate, alpha when gated).
void add_adapter_params(VariantModule& m, bool gated);
// Every parameter trains, none is added (full fine-tuning and EWC).
VariantEstimate estimate_all_trainable(const VariantParams&, const ModelConfig& c);
VariantEstimate estimate_adapters(const AdapterParams& p, const ModelConfig& c, bool gated);

// (heads when multi-head,) experts, top_k, rank, alpha, balance, layers.
void add_moe_params(VariantModule& m, bool multi_head);
void validate_moe(const MoeParams& p, const std::string& ctx);
VariantEstimate estimate_moe(const MoeParams& p, const ModelConfig& c);
// match_active_params_of: sets `rank` so that the activated parameters per token come
// closest to the reference plan's on `c` (ties: the smaller rank), then clears the key.
void resolve_matched_rank(MoeParams& p, const ModelConfig& c, const std::string& ctx);
std::string moe_label(const MoeParams& p);

}  // namespace gb::grow
