#pragma once
// ADEPT stage 2, unit-wise learning rates (adept-adaptive-expansion.txt §3.2; DESIGN.md
// "Depth expansion"), as ADEPT's public training code runs it (ParameterImportanceCallback
// of its LLaMA-Factory fork). The depth variant's before_step hook (grow/variants/depth.cpp)
// has the runner probe the units and set the optimizer groups (grow/run_hooks.h); this file
// holds the schedule and the multipliers. No LibTorch.
//
// Schedule. With s optimizer steps done (the run's global step), the rates are assigned
// before the next step when s > 0 and s % t_update == 0: the first after t_update steps,
// then every t_update steps (the code's on_step_end at global_step % eval_steps == 0). Never
// at step 0: until the first assignment every unit trains at the base rate (multiplier 1).
// At step 0 a fresh copy has importance 0 everywhere anyway: its zero output projections
// give q, k, v, gate, up and the norms zero gradients, and o and down zero θ.
//
// Multipliers. I_U = the unit's importance on the general probe set (a unit method of
// core/importance; "taylor-code", the code's |θ|·mean_b|∂L_b/∂θ|, is the default), for the
// units U of the stage-2 layers (GrowthResult::unit_lr_layers: a depth plan's new blocks, an
// in-place plan's chosen layers):
//     s_U = 2 · (max − I_U) / (max − min)      (= 2·(1 − Î_U), Î_U min-max normalised)
//     s_U = 1 for every unit when max = min,
// and lr_U = s_U · the scheduled rate (warm-up and decay still apply on top). The most
// important unit gets 0, the least important 2. UnitNorm::All (the code's): max and min over
// all those units; UnitNorm::Kind: over the norms and over the matrices separately. Under
// taylor-code a norm's importance is two to three orders of magnitude above a matrix's
// (50× to 660× on the tiny preset: norm weights are near 1), so under "all" the norms share
// [0, 2] and every matrix lands near 2 (1.98 to 2.0 there).

#include <cstdint>
#include <string>
#include <vector>

#include "importance/result.h"

namespace gb::grow {

enum class UnitNorm { All, Kind };
const char* unit_norm_name(UnitNorm norm);          // "all", "kind"
UnitNorm parse_unit_norm(const std::string& name);  // throws naming the choices

// Whether the unit rates are assigned before the step that follows `steps_done` optimizer
// steps (t_update >= 1).
bool unit_rates_due(int64_t steps_done, int64_t t_update);

struct UnitRate {
  std::string group;  // the unit's optimizer group: "layers.3.q"
  int64_t layer = 0;
  std::string unit;   // "q"
  bool norm = false;  // a norm (model/units.h Kind::Norm); otherwise a matrix
  double importance = 0;
  double scale = 1;  // s_U
};

// The multipliers of the units of `layers` (indices of probe.units' rows) that the probe
// scored (units a layer lacks, kMissing, are left out), in layer then column order. Throws
// when a layer is outside the probe or the probe has no unit matrix.
std::vector<UnitRate> unit_rates(const importance::ProbeResult& probe,
                                 const std::vector<int64_t>& layers, UnitNorm norm);

}  // namespace gb::grow
