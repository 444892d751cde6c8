#pragma once
// One check shared by grow/plan.cpp (LayerSelection::resolve) and grow/plan_parse.cpp
// (validate_plan): every index of an explicit layer list lies in [0, n).
#include <cstdint>
#include <string>

namespace gb::grow {

struct LayerSelection;

// Throws "<ctx>: layer index I is out of range (the model has n layers, 0..n-1)" for the first
// index outside the model; does nothing for "all" and for policies.
void check_layers_in_range(const LayerSelection& sel, int64_t n, const std::string& ctx);

}  // namespace gb::grow
