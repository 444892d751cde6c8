#pragma once
// Closed-form figures of a growth plan on a model config, for the Grow planner's live
// display: parameters added, trainable parameters (and their share of the base model), the
// parameters active per token (routed experts), and the memory of weights, gradients and
// AdamW state (experiment/estimate.h, the formula of `growbench-cli run --dry-run`, which
// adds the activations and logits of the spec's batch). The counts are the variant module's
// own estimate (core/grow/variant.h):
// computed from config.json alone (no LibTorch, no weights); `growbench-cli grow --json`
// gives the exact counts.

#include <QString>

#include <nlohmann/json.hpp>

#include "experiment/estimate.h"
#include "model/config.h"

namespace gb::gui {

struct PlanEstimate {
  bool ok = false;
  QString error;  // why no estimate (invalid plan, budget too small, ...)
  QString note;   // caveats ("policy resolved by the runner: assumes k layers"), translated
  qint64 baseParams = 0;
  qint64 addedParams = 0;
  qint64 totalParams = 0;
  qint64 trainableParams = 0;
  qint64 activatedParams = 0;  // trainable parameters active per token (= trainable unless routed)
  int layersTouched = 0;
  double trainableShare() const {
    return baseParams > 0 ? double(trainableParams) / double(baseParams) : 0.0;
  }
  // float32 weights + gradients of the trainable set + AdamW's two moments (bytes).
  double memoryBytes() const {
    return static_cast<double>(gb::experiment::state_bytes(totalParams, trainableParams));
  }
  bool functionPreserving = true;
};

PlanEstimate estimatePlan(const gb::ModelConfig& config, const nlohmann::json& plan);

}  // namespace gb::gui
