#pragma once
// One run of an experiment (run_executor.cpp): load the base model, grow it (probing first
// when the plan needs it), make the trainer, start or resume, train with evaluations,
// checkpoints and the forgetting guard, and finish; the variant's run hooks
// (grow/run_hooks.h) are served here. Internal to the runner (runner.cpp).

#include <cstdint>
#include <optional>

#include "experiment/run_prepare.h"

namespace gb::experiment::detail {

// Runs `run` (one expanded run of the experiment) as run `run_id` of `store`, from the
// start or from `resume_from`; every way it ends is in the outcome (never throws for a run
// that failed, diverged or was cancelled).
RunOutcome execute_run(Prepared& p, store::Store& store, const ExperimentSpec& run, int64_t run_id,
                       const std::optional<store::CheckpointInfo>& resume_from);

}  // namespace gb::experiment::detail
