#pragma once
// The one place probes are written out: the JSON object the CLI prints and JSON files hold,
// and the run store's probes/importance tables (core/store/store.h add_probe).
//
// JSON form (other tools rely on these names):
//   {"method": "...",
//    "layers": [one value per layer],
//    "units": {"names": [unit names], "values": [[per layer: one value per unit]]},
//    "base_loss": x,                                   (probes that measure a loss)
//    "layers_mean_rank": [...],                        (unit methods: rank aggregation)
//    "stages": {"names": [...], "steps": [...],        (effective-rank: layers × stages)
//               "values": [[per layer: one value per stage]]},
//    "details": {...}}                                 (method-specific)
// Layer-only methods have "units": {"names": [], "values": []}. Missing cells are null.
//
// Store form: one probes row (method, probe-set description, parameters JSON) and its
// importance cells: the layer vector (unit '') and the unit matrix; for effective-rank the
// matrix columns are the stage names. Rank aggregation, stage steps, the base loss and the
// details travel in the parameters JSON under "result", so load_probe() rebuilds the same
// ProbeResult.

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "importance/result.h"

namespace gb::store {
class Store;
}

namespace gb::importance {

nlohmann::json probe_json(const ProbeResult& result);
ProbeResult probe_from_json(const nlohmann::json& j, const std::string& context);
// Writes probe_json(result) merged with `extra` (e.g. the probe set summary) atomically.
void write_probe_json(const std::string& path, const ProbeResult& result,
                      const nlohmann::json& extra = nlohmann::json::object());

struct ProbeRecord {
  // The model (store models table; identity = key).
  std::string model_key;  // absolute folder path or "preset:<name>"
  std::string model_family;
  std::string model_config = "{}";  // JSON text
  int64_t model_params = 0;
  // The probe data (store datasets table; identity = name, path, hash). Empty name: none.
  std::string dataset_name;
  std::string dataset_path;
  std::string dataset_kind;  // "text", "jsonl", "mc"
  std::string dataset_hash;  // hex
  int64_t dataset_tokens = 0;
  std::string probe_set;                             // human-readable description
  nlohmann::json params = nlohmann::json::object();  // options of the probe
  double duration_s = 0;
  std::optional<int64_t> run_id;
};

// Records the probe (model and dataset upserted) in one transaction; returns the probe id.
int64_t record_probe(store::Store& store, const ProbeResult& result, const ProbeRecord& record);
// Reads a recorded probe back.
ProbeResult load_probe(store::Store& store, int64_t probe_id);

}  // namespace gb::importance
