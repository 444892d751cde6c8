#pragma once
// The one probe dispatcher. Every importance probe runs through run_probe() with a
// ProbeOptions: `growbench-cli probe` (and the GUI, which starts it), and the experiment
// runner (layer policies, ADEPT's unit-wise learning rates, EWC's diagonal Fisher). The same
// options on the same model and probe set give the same result on every path, bit for bit
// (tests/tst_runner.cpp cliProbeAndRunnerProbeAgreeExactly). probe_record() builds the
// run-store record of a probe, with its parameters, for every path.
//
// The options (ProbeOptions, their JSON names and validation) are in probe_options.h,
// which has no LibTorch (the experiment spec holds them).

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/types.h>

#include "importance/effective_rank.h"
#include "importance/masking.h"
#include "importance/probe_set.h"
#include "importance/probe_options.h"
#include "importance/probe_writer.h"
#include "importance/result.h"
#include "importance/sharding.h"
#include "importance/unit_importance.h"
#include "model/config.h"
#include "model/modules.h"
#include "util/progress.h"

namespace gb::importance {

// A fresh copy of the probed model (the fine-tuning methods may train it).
using ModelFactory = std::function<CausalLM()>;

// Runs the probe `options` names on `model`.
//   set          the probe set the importance is measured on;
//   train        the preliminary fine-tuning data of update-magnitude and effective-rank
//                (the new domain); null: `set`;
//   fresh_model  when given, those methods fine-tune a model it makes instead of `model`
//                (which update_magnitude restores afterwards in any case).
// Progress stages are the probes' own ("probe/masking", "probe/units", ...); cancellable
// through the progress' token.
//   shard        a data-parallel run's ranks: masking and the unit probes (taylor,
//                taylor-abs, taylor-code, fisher) run sharded by batch and sum over the
//                ranks (every rank gets the whole result); the fine-tuning probes
//                (update-magnitude, effective-rank) split every step's batch by rows over
//                the ranks and sum the gradients before each step (preliminary.h).
ProbeResult run_probe(CausalLMImpl& model, const ProbeSet& set, const ProbeOptions& options,
                      const Progress& progress = {}, const ProbeSet* train = nullptr,
                      const ModelFactory& fresh_model = {}, const ProbeSharding* shard = nullptr);

// The probe set a probe's result describes (what is recorded): `train` (or `set`) for the
// fine-tuning methods, `set` otherwise.
const ProbeSet& probe_data(const ProbeOptions& options, const ProbeSet& set,
                           const ProbeSet* train = nullptr);

// The per-parameter diagonal Fisher (EWC, grow::ApplyContext::fisher) with the options'
// fisher_mode: registered name → tensor, every parameter of the model, or only the
// parameters named in `only` (non-empty; EWC on a plan's trainable parameters).
std::map<std::string, torch::Tensor> parameter_fisher(
    CausalLMImpl& model, const ProbeSet& set, const ProbeOptions& options,
    const Progress& progress = {}, const std::set<std::string>& only = {},
    const ProbeSharding* shard = nullptr, std::vector<int64_t>* batches_by_rank = nullptr);

// How the store names a probe set.
struct ProbeDataInfo {
  std::string name;  // dataset name ("" = no dataset row)
  std::string path;  // absolute file path, or "" (a data source of a spec)
  std::string kind;  // "text", "jsonl", "mc"
};

// The parameters a probe is recorded with: the probe set's options (seq_len, batch, tokens,
// examples, seed, format, layout) and the options that apply to the method (fisher_mode;
// masking_mode; steps, lr, trained_on; reference, snapshot_every; checkpoints).
nlohmann::json probe_params(const ProbeSetOptions& set_options, const ProbeSet& data,
                            const ProbeDataInfo& info, const ProbeOptions& options);

// The store record of a probe of `model` (identified by `model_key`; `config` names its
// family and configuration: the base config of a GrowBench checkpoint) on `data`.
ProbeRecord probe_record(const std::string& model_key, const ModelConfig& config,
                         const CausalLMImpl& model, const ProbeSet& data, const ProbeDataInfo& info,
                         const ProbeSetOptions& set_options, const ProbeOptions& options,
                         double duration_s, std::optional<int64_t> run_id = std::nullopt);

}  // namespace gb::importance
