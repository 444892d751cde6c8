#pragma once
// The trainer's options from a spec's "train" section: the one place where TrainSpec's keys
// become train::TrainOptions (the runner adds what belongs to the process: the device's NaN
// check, the data-parallel group). The schedule's total stays unset: each phase sets it.

#include "experiment/spec.h"
#include "train/trainer.h"

namespace gb::experiment {

train::TrainOptions train_options(const TrainSpec& t);

}  // namespace gb::experiment
