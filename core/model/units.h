#pragma once
// The unit registry: the named parts of a decoder layer that importance probes score,
// growth operators replace, LoRA targets, ADEPT gives learning rates, the heatmaps show and
// the exporter maps, with their registered path inside the layer. The one place where a
// unit name (q, k, v, o, gate, up, down, norms) meets its tensor path. No LibTorch here.

#include <string>
#include <utility>
#include <vector>

#include "model/config.h"

namespace gb::units {

enum class Kind { Linear, Norm };

struct UnitInfo {
  const char* name;  // "q"
  const char* path;  // registered path inside a layer: "self_attn.q_proj"
  Kind kind;
  const char* description;             // "query projection"
  bool (*exists)(const ModelConfig&);  // whether a family has it
};

// Every unit in canonical order (attention, MLP, norms).
const std::vector<UnitInfo>& all();
// The units a model of this config has, in canonical order.
std::vector<const UnitInfo*> of(const ModelConfig& config);
std::vector<std::string> names_of(const ModelConfig& config);
// The linear units' names (LoRA targets): q k v o gate up down.
std::vector<std::string> linear_names();
const UnitInfo* find(const std::string& name);
// The unit a path inside a layer belongs to ("mlp.up_proj.grown_weight" → up), or nullptr.
const UnitInfo* of_path(const std::string& path_in_layer);
// Path of a unit inside a layer; throws for an unknown unit.
std::string path(const std::string& name);

}  // namespace gb::units
