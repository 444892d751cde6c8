#include "experiment/train_options.h"

namespace gb::experiment {

train::TrainOptions train_options(const TrainSpec& t) {
  train::TrainOptions to;
  to.adamw.lr = t.lr;
  to.adamw.beta1 = t.beta1;
  to.adamw.beta2 = t.beta2;
  to.adamw.eps = t.eps;
  to.adamw.weight_decay = t.weight_decay;
  to.schedule.kind = t.schedule;
  to.schedule.warmup = t.warmup;
  to.schedule.min_ratio = t.min_lr_ratio;
  to.clip = t.clip;
  to.accumulation = t.accumulation;
  to.row_shards = t.row_shards;
  to.ce_chunk = t.ce_chunk;
  to.checkpointing = t.checkpointing;
  return to;
}

}  // namespace gb::experiment
