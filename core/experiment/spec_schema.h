#pragma once
// The experiment spec's keys, each declared once (spec_schema.cpp) with the general schema
// (util/schema.h): type, default, range or choices, unit, help and when it applies. From
// this declaration come parse_spec's unknown-key errors (the full path and the nearest known
// key), `growbench-cli schema --json|--markdown` and the key tables of docs/experiments.md
// (tests/tst_schema.cpp checks them, and that the defaults equal ExperimentSpec's).
//
// Named types: SOURCE (a data source), TASK (an evaluation task) and PLAN (a growth plan:
// the keys every plan shares and the expansion keys declared here, each variant's own keys
// taken from the variant registry, grow/variant.h). Listings show their keys as
// "SOURCE.path", "TASK.kind", "PLAN.rank" (with the variant they belong to).

#include "util/schema.h"

namespace gb::experiment {

const schema::Schema& spec_schema();

// The key at a path of the spec's schema ("train.lr"); throws when none (a programming
// error: parse_spec asks only for declared keys).
const schema::Key& spec_key(const std::string& path);

}  // namespace gb::experiment
