#include "importance/probe.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <torch/torch.h>

#include "importance/update_magnitude.h"
#include "model/config.h"
#include "train/chunked_ce.h"
#include "util/error.h"
#include "util/files.h"
#include "util/memory_context.h"

namespace gb::importance {

using Json = nlohmann::json;

const ProbeSet& probe_data(const ProbeOptions& o, const ProbeSet& set, const ProbeSet* train) {
  return fine_tunes(o) && train ? *train : set;
}

namespace {

// update-magnitude and effective-rank: the preliminary fine-tuning run, then the measure.
ProbeResult fine_tuning_probe(CausalLMImpl& model, const ProbeSet& data, const ProbeOptions& o,
                              Progress& progress, const ProbeSharding* shard) {
  UpdateMagnitudeOptions uo;
  uo.shard = shard;
  uo.steps = o.steps;
  uo.lr = o.lr;
  uo.seed = o.seed;
  if (o.method == methods::kEffectiveRank) uo.snapshot_every = o.effective_snapshot_every();
  auto um = update_magnitude(model, data, uo, progress);
  if (o.method == methods::kUpdateMagnitude) return um.result();
  // Effective rank of the preliminary run's stages (Grow §4.4).
  std::vector<std::vector<torch::Tensor>> stages(um.up_snapshots.begin() + 1,
                                                 um.up_snapshots.end());
  std::vector<std::string> names;
  for (size_t s = 1; s < um.snapshot_steps.size(); ++s) {
    names.push_back("step " + std::to_string(um.snapshot_steps[s]));
  }
  auto er = effective_rank_stages(um.up_snapshots.front(), stages, names, o.reference);
  er.stage_steps.assign(um.snapshot_steps.begin() + 1, um.snapshot_steps.end());
  ProbeResult r = er.result();
  r.details["losses"] = um.losses;
  if (!um.rows_by_rank.empty()) r.details["rows_by_rank"] = um.rows_by_rank;
  return r;
}

}  // namespace

ProbeResult run_probe(CausalLMImpl& model, const ProbeSet& set, const ProbeOptions& o,
                      const Progress& progress_in, const ProbeSet* train,
                      const ModelFactory& fresh_model, const ProbeSharding* shard) {
  validate(o, "probe");
  Progress progress = progress_in;
  int64_t rows = 0, length = 0;
  for (const auto& b : set.batches) {
    rows = std::max(rows, b.rows());
    length = std::max(length, b.length());
  }
  // The loss is chunked as train::summed_lm_nll chunks it: a head matrix (no forward
  // override) and the automatic rule.
  const train::HeadMatrix head = train::head_matrix(model);
  const int64_t vocab = head.weight.defined() ? head.weight.size(0) : model.config.vocab_size;
  const int64_t chunk =
      head.weight.defined() ? train::ce_chunk_tokens(train::kCeChunkAuto, rows * length, vocab) : 0;
  const std::string logits =
      chunk > 0 ? fmt::format("logits {} tokens at a time", chunk)
                : fmt::format("logits of {} x {} x {}: {}", rows, length, vocab,
                              format_bytes(4.0 * static_cast<double>(rows * length) *
                                           static_cast<double>(vocab)));
  const bool gradients = is_unit_method(o.method);
  MemoryContext mc(
      fmt::format("a {} probe (batches of {} x {} tokens, {}{})", o.method, rows, length, logits,
                  gradients && o.checkpointing ? ", activation checkpointing" : ""),
      std::string("the probe's batch size (--batch, probe.batch_size) or sequence length "
                  "(--seq-len, probe.seq_len)") +
          (gradients && !o.checkpointing
               ? ", or activation checkpointing (--checkpointing, probe.checkpointing)"
               : ""));
  if (o.method == methods::kMasking) {
    return to_probe_result(masking_importance(model, set, o.masking_mode, progress, shard));
  }
  if (is_unit_method(o.method)) {
    UnitOptions uo;
    uo.fisher = o.method == methods::kFisher;
    uo.taylor_code = o.method == methods::kTaylorCode;
    uo.fisher_mode = o.fisher_mode;
    uo.checkpointing = o.checkpointing;
    uo.shard = shard;
    return unit_importance(model, set, uo, progress).result(o.method);
  }
  if (!fine_tunes(o)) {  // effective-rank of checkpoints
    return effective_rank_of_checkpoints(model, o.checkpoints, o.reference, progress).result();
  }
  if (fresh_model) {
    CausalLM copy = fresh_model();
    return fine_tuning_probe(*copy, probe_data(o, set, train), o, progress, shard);
  }
  return fine_tuning_probe(model, probe_data(o, set, train), o, progress, shard);
}

std::map<std::string, torch::Tensor> parameter_fisher(CausalLMImpl& model, const ProbeSet& set,
                                                      const ProbeOptions& o,
                                                      const Progress& progress,
                                                      const std::set<std::string>& only,
                                                      const ProbeSharding* shard,
                                                      std::vector<int64_t>* batches_by_rank) {
  return diagonal_fisher(model, set, o.fisher_mode, progress, only, shard, batches_by_rank,
                         o.checkpointing);
}

Json probe_params(const ProbeSetOptions& so, const ProbeSet& data, const ProbeDataInfo& info,
                  const ProbeOptions& o) {
  Json p = {{"seq_len", so.seq_len},
            {"batch", so.batch_size},
            {"tokens", so.max_tokens},
            {"examples", so.max_examples},
            {"seed", so.seed},
            {"format", info.kind},
            {"layout", layout_name(data.layout)}};
  if (o.method == methods::kMasking) p["masking_mode"] = masking_mode_name(o.masking_mode);
  if (o.method == methods::kFisher) p["fisher_mode"] = fisher_mode_name(o.fisher_mode);
  if (o.method == methods::kEffectiveRank) p["reference"] = delta_reference_name(o.reference);
  if (o.checkpointing && is_unit_method(o.method)) p["checkpointing"] = true;
  if (o.method == methods::kEffectiveRank && !fine_tunes(o)) p["checkpoints"] = o.checkpoints;
  if (fine_tunes(o)) {
    p["steps"] = o.steps;
    p["lr"] = o.lr;
    p["trained_on"] = info.path.empty() ? info.name : info.path;
    if (o.method == methods::kEffectiveRank) p["snapshot_every"] = o.effective_snapshot_every();
  }
  return p;
}

ProbeRecord probe_record(const std::string& model_key, const ModelConfig& config,
                         const CausalLMImpl& model, const ProbeSet& data, const ProbeDataInfo& info,
                         const ProbeSetOptions& set_options, const ProbeOptions& options,
                         double duration_s, std::optional<int64_t> run_id) {
  ProbeRecord rec;
  rec.model_key = model_key;
  rec.model_family = family_name(config.family);
  rec.model_config = config.raw.dump();
  rec.model_params = count_parameters(model);
  rec.dataset_name = info.name;
  rec.dataset_path = info.path;
  rec.dataset_kind = info.kind;
  rec.dataset_hash = hex64(data.fingerprint());
  rec.dataset_tokens = data.scored_tokens;
  rec.probe_set = data.description;
  rec.params = probe_params(set_options, data, info, options);
  rec.duration_s = duration_s;
  rec.run_id = run_id;
  return rec;
}

}  // namespace gb::importance
