#pragma once
// Plans in the terms of the general schema (util/schema.h): the keys every plan accepts
// whatever its variant, declared once (parse_plan's known keys, the experiment spec's schema
// in experiment/spec_schema.cpp and the docs follow), and a variant parameter (ParamSpec) as
// a schema key. A header of its own so that plan.h and variant.h, included nearly
// everywhere, stay as they are.

#include <vector>

#include "grow/variant.h"
#include "util/schema.h"

namespace gb::grow {

// variant, name, replay, replay_mode, ewc {lambda, mode, gamma} and LoRA's from_peft.
const std::vector<schema::Key>& plan_common_keys();

// A variant's parameter as a schema key (a Layers parameter: type any, shown "layers"; a
// Plan parameter: a reference to the named type PLAN).
schema::Key to_schema_key(const ParamSpec& param);

}  // namespace gb::grow
