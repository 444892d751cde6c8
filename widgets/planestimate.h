#pragma once
// Closed-form figures of a growth plan on a model config, for the Grow planner's live
// display: parameters added, trainable parameters (and their share of the base model), and
// the memory of weights, gradients and AdamW state. Computed from config.json alone (no
// LibTorch, no weights); `growbench-cli grow --json` gives the exact counts.

#include <QString>

#include <nlohmann/json.hpp>

#include "model/config.h"

namespace gb::gui {

struct PlanEstimate {
  bool ok = false;
  QString error;  // why no estimate (unknown variant, layers unresolved, ...)
  QString note;   // caveats ("policy resolved by the runner: assumes k layers")
  qint64 baseParams = 0;
  qint64 addedParams = 0;
  qint64 totalParams = 0;
  qint64 trainableParams = 0;
  int layersTouched = 0;
  double trainableShare() const {
    return baseParams > 0 ? double(trainableParams) / double(baseParams) : 0.0;
  }
  // float32 weights + gradients of the trainable set + AdamW's two moments (bytes).
  double memoryBytes() const { return 4.0 * totalParams + 12.0 * trainableParams; }
  bool functionPreserving = true;
};

// Parameters of one transformer block of this config.
qint64 layerParams(const gb::ModelConfig& config);
// The number of layers a plan's "layers" value selects on an L-layer model ("all", a list,
// or a policy object: its k / count / L − l_fp). -1 when it cannot be told.
int selectedLayerCount(const nlohmann::json& layers, int numLayers, QString* note);
PlanEstimate estimatePlan(const gb::ModelConfig& config, const nlohmann::json& plan);

}  // namespace gb::gui
