#pragma once
// The smoke version of an experiment spec (`growbench-cli run SPEC --smoke`, `report SPEC
// --smoke`): the same plans, data, tasks, figures and claims, but a few steps, one seed, no
// sweep and small evaluation sets, so that CI checks the whole pipeline and the report's
// structure in seconds (not the claims: their verdicts are inconclusive with one seed).

#include <nlohmann/json.hpp>

namespace gb::experiment {

// Returns the smoke version of a spec given as JSON (before parsing); its name gets the
// suffix "-smoke" so that its runs form their own group.
nlohmann::json smoke_spec(const nlohmann::json& spec);

}  // namespace gb::experiment

#include <string>

#include "experiment/spec.h"

namespace gb::experiment {

// load_spec(path), or with `smoke` the smoke version of the file's spec.
ExperimentSpec load_spec_for(const std::string& path, bool smoke);

}  // namespace gb::experiment
